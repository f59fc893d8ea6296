/* SPDX-License-Identifier: Apache-2.0 */
/* F4: PUT with a multipart/form-data body. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_util.h"
#include "common/payload.h"
#include "common/rest_expect.h"
#include "files/files_util.h"

#define BOUNDARY "sbx-Boundary-7MA4YWxkTrZu0gW"

static void part(struct sbuf *b, const char *name, const char *filename, const void *p, size_t n)
{
    sbuf_puts(b, "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"");
    sbuf_puts(b, name);
    sbuf_puts(b, "\"");
    if (filename) {
        sbuf_puts(b, "; filename=\"");
        sbuf_puts(b, filename);
        sbuf_puts(b, "\"\r\nContent-Type: application/octet-stream");
    }
    sbuf_puts(b, "\r\n\r\n");
    sbuf_add(b, p, n);
    sbuf_puts(b, "\r\n");
}

static void end(struct sbuf *b)
{
    sbuf_puts(b, "--" BOUNDARY "--\r\n");
}

/* rel may end in "?query", which is sent as it is. */
static bool put_multipart_as(struct case_ctx *ctx, const char *rel, const struct sbuf *b,
                             const char *content_type, struct http_response *r)
{
    const char *const hdrs[] = {content_type, NULL};
    const char *query = strchr(rel, '?');
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(query ? (size_t)(query - rel) : strlen(rel)), rel);
    char *path = rx_path(ctx, name);
    char *base = path ? rest_files_target(path) : NULL;
    char *target = NULL;
    if (base && asprintf(&target, "%s%s", base, query ? query : "") < 0) target = NULL;
    bool ok = target && b->s && rx_send(ctx, NULL, "PUT", target, b->s, b->len, hdrs, r);
    if (!target || !b->s) case_error(ctx, "out of memory");
    free(target);
    free(base);
    free(path);
    return ok;
}

static bool put_multipart(struct case_ctx *ctx, const char *rel, const struct sbuf *b,
                          struct http_response *r)
{
    return put_multipart_as(ctx, rel, b, "Content-Type: multipart/form-data; boundary=" BOUNDARY,
                            r);
}

/* Content that looks like multipart framing but is not the boundary. */
static const char TRICKY[] = "line\r\n--sbx-Boundary-7MA4YWxkTrZu0g\r\n\0\xff\xfe--\r\n\r\nend";

static void multipart_file_part(struct case_ctx *ctx)
{
    struct sbuf b = {0};
    part(&b, "note", NULL, "not the file", 12);
    part(&b, "file", "data.bin", TRICKY, sizeof TRICKY - 1);
    end(&b);
    struct http_response r;
    if (put_multipart(ctx, "mp.bin", &b, &r)) {
        if (expect_status(ctx, &r, 204)) expect_no_body(ctx, &r);
        http_response_free(&r);
        char *path = rx_path(ctx, "mp.bin");
        if (path && !case_failed(ctx)) expect_file_content(ctx, path, TRICKY, sizeof TRICKY - 1);
        free(path);
    }
    /* An empty file part stores an empty file. */
    struct sbuf e = {0};
    part(&e, "file", "empty.bin", "", 0);
    end(&e);
    if (put_multipart(ctx, "mp-empty.bin", &e, &r)) {
        expect_status(ctx, &r, 204);
        http_response_free(&r);
        char *path = rx_path(ctx, "mp-empty.bin");
        if (path && !case_failed(ctx)) expect_file_content(ctx, path, "", 0);
        free(path);
    }
    /* The same form with the boundary parameter quoted (RFC 2046 allows it). */
    if (!case_failed(ctx) &&
        put_multipart_as(ctx, "mp-quoted.bin", &b,
                         "Content-Type: multipart/form-data; boundary=\"" BOUNDARY "\"", &r)) {
        if (expect_status(ctx, &r, 204)) {
            char *path = rx_path(ctx, "mp-quoted.bin");
            if (path) expect_file_content(ctx, path, TRICKY, sizeof TRICKY - 1);
            free(path);
        }
        http_response_free(&r);
    }
    /* mode applies to a multipart upload as to a raw one (F3). */
    if (!case_failed(ctx) && put_multipart(ctx, "mp-mode.bin?mode=0750", &b, &r)) {
        if (expect_status(ctx, &r, 204)) {
            int m = fx_mode(ctx, "mp-mode.bin");
            if (m >= 0)
                CASE_CHECK(ctx, (m & 0777) == 0750, "mode=0750 applied to a multipart upload",
                           "%04o", (unsigned)m);
        }
        http_response_free(&r);
    }
    /* A large file part, with near-boundaries where a server's reads are
     * likely to split (64 KiB, 128 KiB, 1 MiB). */
    const size_t big_len = (3u << 19) + 7;
    uint8_t *big = payload_make(case_rand(ctx), big_len);
    static const char near[] = "\r\n--" BOUNDARY;
    const size_t at[] = {65536 - 10, 131072 - 3, 1048576 - 20};
    struct sbuf l = {0};
    if (big) {
        for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
            /* All but the boundary's last byte, then a byte that is not it. */
            memcpy(big + at[i], near, sizeof near - 2);
            big[at[i] + sizeof near - 2] = 'X';
        }
        part(&l, "file", "big.bin", big, big_len);
        end(&l);
    }
    if (!big || !l.s) {
        case_error(ctx, "out of memory");
    } else if (!case_failed(ctx) && put_multipart(ctx, "mp-big.bin", &l, &r)) {
        if (expect_status(ctx, &r, 204)) {
            char *path = rx_path(ctx, "mp-big.bin");
            if (path) expect_file_content(ctx, path, big, big_len);
            free(path);
        }
        http_response_free(&r);
    }
    free(big);
    sbuf_free(&l);
    sbuf_free(&b);
    sbuf_free(&e);
}
SBX_CASE(multipart_file_part, .id = "F4-001",
         .title = "PUT stores exactly the bytes of the multipart part named file",
         .clauses = "F4,F3", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "the raw multipart body stored; another part stored; binary bytes or "
                    "boundary-like content mangled; a quoted boundary parameter not understood; "
                    "mode ignored for multipart uploads; "
                    "large parts truncated or corrupted where reads split",
         .how = "PUTs a form with a text part and a file part holding NULs, 0xff and "
                "boundary-like lines, an empty file part, the first form again with "
                "boundary=\"...\" quoted, the same with mode=0750 (stat -c %a through Execute "
                "must print 750), and a 1.5 MiB binary file part holding near-boundaries "
                "at 64 KiB, 128 KiB and 1 MiB; GET must return exactly each file part's bytes");

static void multipart_no_file_part(struct case_ctx *ctx)
{
    struct sbuf b = {0};
    part(&b, "data", "data.bin", "payload", 7);
    part(&b, "other", NULL, "x", 1);
    end(&b);
    struct http_response r;
    if (put_multipart(ctx, "nofile.bin", &b, &r)) {
        expect_error_body(ctx, &r, 400, "INVALID_ARGUMENT");
        http_response_free(&r);
    }
    sbuf_free(&b);
    char *ls = fx_sh(ctx, "ls -A", "ls of the case directory");
    if (ls)
        CASE_CHECK(ctx, ls[0] == '\0', "nothing stored for a form without a file part",
                   "directory holds: %s", ls);
    free(ls);
}
SBX_CASE(multipart_no_file_part, .id = "F4-002",
         .title = "A multipart body without a file part fails with 400 INVALID_ARGUMENT",
         .clauses = "F4,F13", .level = LEVEL_MUST, .tags = "files,errors", .timeout_s = 20,
         .catches = "a form without a file part accepted (empty or raw file stored)",
         .how = "PUTs a form whose parts are named data and other; expects 400 with an "
                "INVALID_ARGUMENT Error body and an empty directory (ls -A through Execute)");

/* Malformed and truncated bodies (each with a correct Content-Length). */
static void broken_bodies(struct sbuf out[3])
{
    memset(out, 0, 3 * sizeof *out);
    /* Truncated inside the file part: no closing boundary. */
    part(&out[0], "file", "t.bin", "complete part", 13);
    out[0].len -= 6;
    /* A part without the blank line that ends its headers. */
    sbuf_puts(&out[1], "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"file\"\r\nabc");
    /* Content under a different boundary than the header announces. */
    sbuf_puts(&out[2], "--other-boundary\r\nContent-Disposition: form-data; name=\"file\"; "
                       "filename=\"a\"\r\n\r\nhello\r\n--other-boundary--\r\n");
}

static void check_broken(struct case_ctx *ctx, bool should)
{
    struct sbuf bodies[3];
    broken_bodies(bodies);
    char *existing = rx_path(ctx, "existing.bin");
    if (!existing || !expect_put_ok(ctx, existing, "original", 8, NULL)) {
        free(existing);
        for (int i = 0; i < 3; i++)
            sbuf_free(&bodies[i]);
        return;
    }
    static const char *const what[] = {"truncated", "headers without end", "wrong boundary"};
    for (int i = 0; i < 3; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "broken-%d.bin", i);
        const char *targets[] = {rel, "existing.bin"};
        for (int t = 0; t < 2; t++) {
            struct http_response r;
            if (!put_multipart(ctx, targets[t], &bodies[i], &r)) continue;
            if (should) {
                if (!expect_error_body(ctx, &r, 400, "INVALID_ARGUMENT"))
                    case_note(ctx, "the failing body was %s multipart", what[i]);
            } else if (r.status >= 200 && r.status < 300) {
                case_note(ctx, "%s multipart answered %ld", what[i], r.status);
            }
            http_response_free(&r);
        }
    }
    if (!should) {
        char *ls = fx_sh(ctx, "ls -A", "ls of the case directory");
        if (ls)
            CASE_CHECK(ctx, strcmp(ls, "existing.bin") == 0,
                       "nothing stored from malformed or truncated multipart bodies",
                       "directory holds: %s", ls);
        free(ls);
        expect_file_content(ctx, existing, "original", 8);
    }
    free(existing);
    for (int i = 0; i < 3; i++)
        sbuf_free(&bodies[i]);
}

static void multipart_broken_stores_nothing(struct case_ctx *ctx)
{
    check_broken(ctx, false);
}
SBX_CASE(multipart_broken_stores_nothing, .id = "F4-003",
         .title = "A malformed or truncated multipart body stores nothing", .clauses = "F4",
         .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "the partial content of a truncated form stored; an existing file "
                    "overwritten by a broken upload",
         .how = "PUTs a truncated form, a part without the end of its headers and a body under "
                "another boundary, to new paths and over an existing file; no new file may "
                "appear and the existing one keeps its content");

static void multipart_broken_400(struct case_ctx *ctx)
{
    check_broken(ctx, true);
}
SBX_CASE(multipart_broken_400, .id = "F4-004",
         .title = "A malformed or truncated multipart body answers 400 INVALID_ARGUMENT",
         .clauses = "F4,F13", .level = LEVEL_SHOULD, .tags = "files,errors", .timeout_s = 20,
         .catches = "500 or a success for a broken form",
         .how = "the three broken bodies of F4-003; each must answer 400 with an "
                "INVALID_ARGUMENT Error body");
