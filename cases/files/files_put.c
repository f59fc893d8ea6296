/* SPDX-License-Identifier: Apache-2.0 */
/* F1, F2, F3, F5, F6: what PUT stores, where, with which mode, atomically. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/payload.h"
#include "common/proc_util.h"
#include "common/rest_expect.h"
#include "files/files_util.h"

#define FILES_ROUTE "/v1/files/{path}"

/* PUT that must answer 204 with an empty body, checked against the document. */
static bool put_204(struct case_ctx *ctx, const char *rel, const void *data, size_t len,
                    const char *query)
{
    char *path = rx_path(ctx, rel);
    struct http_response r;
    bool ok = path && rx_put(ctx, path, data, len, query, &r);
    if (ok) {
        ok = expect_status(ctx, &r, 204) && expect_no_body(ctx, &r);
        expect_schema(ctx, &r, FILES_ROUTE, "PUT");
        http_response_free(&r);
    }
    free(path);
    return ok;
}

static bool get_equals(struct case_ctx *ctx, const char *rel, const void *data, size_t len)
{
    char *path = rx_path(ctx, rel);
    bool ok = path && expect_file_content(ctx, path, data, len);
    free(path);
    return ok;
}

/* ---- F1: byte-exact round trips ------------------------------------------ */

static void put_round_trip_sizes(struct case_ctx *ctx)
{
    static const size_t sizes[] = {0, 1, 39, 40, 4095, 4096, 4097, 65537, (1u << 20) + 3};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes && !case_failed(ctx); i++) {
        size_t n = sizes[i];
        uint8_t *data = n >= PAYLOAD_MIN_LEN ? payload_make(case_rand(ctx), n) : malloc(n + 1);
        if (!data) {
            case_error(ctx, "out of memory");
            return;
        }
        if (n < PAYLOAD_MIN_LEN)
            for (size_t k = 0; k < n; k++)
                data[k] = (uint8_t)(k * 37 + 200);
        char rel[32];
        snprintf(rel, sizeof rel, "size-%zu.bin", n);
        if (put_204(ctx, rel, data, n, NULL)) get_equals(ctx, rel, data, n);
        free(data);
    }
    if (case_failed(ctx)) return;
    /* An overwrite with a shorter body, then with an empty one, leaves
     * exactly the new bytes (no tail of the old content). */
    if (put_204(ctx, "size-65537.bin", "short", 5, NULL))
        get_equals(ctx, "size-65537.bin", "short", 5);
    if (put_204(ctx, "size-65537.bin", "", 0, NULL)) get_equals(ctx, "size-65537.bin", "", 0);
}
SBX_CASE(put_round_trip_sizes, .id = "F1-001",
         .title = "PUT stores bodies of 0 B to 1 MiB byte-exact and answers 204 without a body",
         .clauses = "F1", .level = LEVEL_MUST, .tags = "files", .timeout_s = 30,
         .catches = "lost, truncated or altered bytes at buffer boundaries; a status other than "
                    "204; a body on the 204; an overwrite that keeps the old tail or ignores an "
                    "empty body",
         .how = "PUTs binary payloads of 0, 1, 39, 40, 4095, 4096, 4097, 65537 and 1 MiB+3 bytes, "
                "checks 204 with an empty body against the OpenAPI document, and GETs each back "
                "byte for byte; then overwrites the 65537-byte file with 5 bytes and with 0 "
                "bytes and GETs exactly those back");

static void put_binary_safe(struct case_ctx *ctx)
{
    static const uint8_t tail[] = {'\r', '\n', 0, 0xc3, 0x28, 0xff, 0xfe, 0};
    uint8_t all[256 * 3 + sizeof tail];
    size_t n = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int b = 0; b < 256; b++)
            all[n++] = (uint8_t)(rep == 1 ? 255 - b : b);
    memcpy(all + n, tail, sizeof tail);
    n += sizeof tail;
    static const uint8_t nuls[] = {0, 0, 0, 0};
    static const uint8_t bad_utf8[] = {0xc0, 0xae, 0xed, 0xa0, 0x80, 0xf8, 0x88, 0x80, '\r', '\n'};
    if (put_204(ctx, "all-bytes.bin", all, n, NULL)) get_equals(ctx, "all-bytes.bin", all, n);
    if (put_204(ctx, "nuls.bin", nuls, sizeof nuls, NULL))
        get_equals(ctx, "nuls.bin", nuls, sizeof nuls);
    if (put_204(ctx, "utf8.bin", bad_utf8, sizeof bad_utf8, NULL))
        get_equals(ctx, "utf8.bin", bad_utf8, sizeof bad_utf8);
    /* What a process reads must be the same bytes (no text conversion). */
    char *sum =
        fx_sh(ctx, "od -An -tx1 -v nuls.bin utf8.bin | tr -d ' \\n'", "od reads the stored files");
    if (sum)
        CASE_CHECK(ctx, strcmp(sum, "00000000c0aeeda080f888800d0a") == 0,
                   "the stored bytes as a process reads them: 00000000c0aeeda080f888800d0a", "%s",
                   sum);
    free(sum);
}
SBX_CASE(put_binary_safe, .id = "F1-002",
         .title = "PUT is binary-safe: NULs, every byte value, CR LF and invalid UTF-8",
         .clauses = "F1", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "bodies treated as text (NUL-terminated, re-encoded, newline conversion)",
         .how = "PUTs every byte value, only NULs and invalid UTF-8, GETs them back and reads "
                "them with od through Execute");

struct big_get {
    struct payload_check check;
    uint64_t received;
};

static size_t big_get_cb(char *buf, size_t size, size_t nitems, void *ud)
{
    struct big_get *g = ud;
    g->received += size * nitems;
    return payload_write_cb(buf, size, nitems, &g->check);
}

static void put_get_256mib(struct case_ctx *ctx)
{
    const uint64_t total = 256ull << 20;
    char *path = rx_path(ctx, "big.bin");
    char *target = path ? rest_files_target(path) : NULL;
    if (!target) {
        free(path);
        case_error(ctx, "out of memory");
        return;
    }
    static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
    struct payload_source src = {.seed = case_rand(ctx), .total = total};
    struct http_request put = {.method = "PUT",
                               .target = target,
                               .headers = octet,
                               .read_cb = payload_read_cb,
                               .read_ud = &src,
                               .upload_size = (long long)total,
                               .timeout_ms = 150000};
    struct http_response r;
    case_request(ctx, "PUT %s (256 MiB streamed)", target);
    if (rest_do(ctx, &put, &r) != 0) {
        case_fail(ctx, "204 for a 256 MiB PUT", "no response: %s", r.error);
    } else if (expect_status(ctx, &r, 204)) {
        case_note(ctx, "256 MiB PUT took %.1f s", r.seconds);
        http_response_free(&r);
        struct big_get g;
        payload_check_init(&g.check);
        g.received = 0;
        struct http_request get = {.method = "GET",
                                   .target = target,
                                   .write_cb = big_get_cb,
                                   .write_ud = &g,
                                   .timeout_ms = 150000};
        case_request(ctx, "GET %s (256 MiB streamed)", target);
        if (rest_do(ctx, &get, &r) != 0)
            case_fail(ctx, "the 256 MiB file back", "transfer failed after %llu bytes: %s",
                      (unsigned long long)g.received, r.error);
        else if (expect_status(ctx, &r, 200)) {
            case_note(ctx, "256 MiB GET took %.1f s", r.seconds);
            CASE_CHECK(ctx, payload_check_finish(&g.check), "the 256 MiB written, byte-exact", "%s",
                       g.check.why);
        }
    }
    http_response_free(&r);
    /* Free the space now rather than at the end of the run. */
    struct http_response d;
    if (rx_file(ctx, "DELETE", path, NULL, &d)) http_response_free(&d);
    free(target);
    free(path);
}
SBX_CASE(put_get_256mib, .id = "F1-003", .title = "A 256 MiB file round-trips byte-exact, streamed",
         .clauses = "F1", .level = LEVEL_MUST, .tags = "files,large", .timeout_s = 240,
         .catches = "large bodies truncated, corrupted or refused; size limits below 256 MiB",
         .how = "streams a 256 MiB self-verifying payload up with a read callback and down with "
                "a write callback that checks every byte as it arrives (never held in memory)");

/* ---- F2: parents ----------------------------------------------------------- */

static void put_creates_parents(struct case_ctx *ctx)
{
    static const char body[] = "deep content\n";
    if (!put_204(ctx, "p1/p2/p3/p4/leaf.txt", body, sizeof body - 1, NULL)) return;
    get_equals(ctx, "p1/p2/p3/p4/leaf.txt", body, sizeof body - 1);
    char *out = fx_sh(ctx, "test -d p1 && test -d p1/p2/p3/p4 && cat p1/p2/p3/p4/leaf.txt",
                      "the parent directories exist for processes");
    if (out)
        CASE_CHECK(ctx, strcmp(out, "deep content") == 0, "the file's content through Execute",
                   "'%s'", out);
    free(out);
    char *p = rx_path(ctx, "p1/p2");
    json_t *listing = p ? rx_list(ctx, p) : NULL;
    if (listing) {
        const json_t *e = listing_entry(listing, "p3");
        CASE_CHECK(ctx, e && entry_type(e) && strcmp(entry_type(e), "directory") == 0,
                   "p1/p2 lists p3 as a directory", "%s", e ? "another type" : "no p3 entry");
    }
    json_decref(listing);
    free(p);
}
SBX_CASE(put_creates_parents, .id = "F2-001", .title = "PUT creates every missing parent directory",
         .clauses = "F2", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "PUT failing (404/500) when parents are missing, or creating them as files",
         .how = "PUTs p1/p2/p3/p4/leaf.txt into an empty directory, then reads it over REST, "
                "checks the directories with test -d through Execute and lists p1/p2");

/* ---- F3: modes ---------------------------------------------------------------- */

/* The mode of rel as a listing of its directory reports it (-1 if absent). */
static int listed_mode(struct case_ctx *ctx, const json_t *listing, const char *name)
{
    const json_t *e = listing_entry(listing, name);
    if (!e) {
        case_fail(ctx, "the stored file in the listing", "no entry named %s", name);
        return -2;
    }
    const char *m = json_string_value(json_object_get(e, "mode"));
    if (!m) return -1;
    return (int)(strtol(m, NULL, 8) & 0777);
}

static void put_mode_exact(struct case_ctx *ctx)
{
    static const struct {
        const char *q;
        int mode;
    } modes[] = {{"0600", 0600}, {"0640", 0640}, {"0755", 0755}, {"0777", 0777},
                 {"0000", 0000}, {"0444", 0444}, {"0701", 0701}, {"0666", 0666}};
    const size_t n = sizeof modes / sizeof *modes;
    for (size_t i = 0; i < n; i++) {
        char rel[32], q[32];
        snprintf(rel, sizeof rel, "m-%s", modes[i].q);
        snprintf(q, sizeof q, "mode=%s", modes[i].q);
        put_204(ctx, rel, "x", 1, q);
    }
    /* An overwrite takes the new mode too. */
    put_204(ctx, "m-0600", "y", 1, "mode=0750");
    if (case_failed(ctx)) return;
    char *dir = rx_path(ctx, "");
    json_t *listing = dir ? rx_list(ctx, dir) : NULL;
    for (size_t i = 0; i < n; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "m-%s", modes[i].q);
        int want = i == 0 ? 0750 : modes[i].mode;
        int got = fx_mode(ctx, rel);
        if (got >= 0)
            CASE_CHECK(ctx, (got & 0777) == want, "the exact permission bits (stat -c %a)",
                       "%s has %04o, expected %04o", rel, (unsigned)got, (unsigned)want);
        if (listing) {
            int lm = listed_mode(ctx, listing, rel);
            if (lm >= 0)
                CASE_CHECK(ctx, lm == want, "the listing's mode equal to the bits set",
                           "%s listed as %04o, expected %04o", rel, (unsigned)lm, (unsigned)want);
        }
    }
    json_decref(listing);
    free(dir);
}
SBX_CASE(put_mode_exact, .id = "F3-001",
         .title = "mode sets the permission bits exactly, 0000 to 0777, not masked by a umask",
         .clauses = "F3", .level = LEVEL_MUST, .tags = "files", .timeout_s = 30,
         .catches = "the daemon's umask applied (0777 stored as 0755); mode ignored; an "
                    "overwrite keeping the old mode",
         .how = "PUTs files with modes 0600..0777 and 0000, overwrites one with 0750, and "
                "compares stat -c %a through Execute and the listing's mode with each value");

static void put_mode_default(struct case_ctx *ctx)
{
    put_204(ctx, "default.txt", "d", 1, NULL);
    /* The default applies to an overwrite as well. */
    put_204(ctx, "was-0600.txt", "a", 1, "mode=0600");
    put_204(ctx, "was-0600.txt", "b", 1, NULL);
    if (case_failed(ctx)) return;
    int m1 = fx_mode(ctx, "default.txt");
    if (m1 >= 0)
        CASE_CHECK(ctx, (m1 & 0777) == 0644, "mode 0644 without a mode parameter", "%04o",
                   (unsigned)m1);
    int m2 = fx_mode(ctx, "was-0600.txt");
    if (m2 >= 0)
        CASE_CHECK(ctx, (m2 & 0777) == 0644,
                   "mode 0644 after an overwrite without a mode parameter", "%04o", (unsigned)m2);
}
SBX_CASE(put_mode_default, .id = "F3-002", .title = "Without mode a PUT stores the file as 0644",
         .clauses = "F3", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "another default (0600 from a temporary file, 0666, umask-dependent)",
         .how = "PUTs a new file and overwrites a 0600 file without mode; stat -c %a through "
                "Execute must print 644 for both");

static void put_mode_invalid(struct case_ctx *ctx)
{
    static const char *const bad[] = {"0999",  "644",   "00644",  "abc",     "-1", "0o644", "1644",
                                      "0644x", "0x1a4", "%2B644", "0%20644", "08", "07777"};
    const size_t n = sizeof bad / sizeof *bad;
    put_204(ctx, "existing.txt", "original", 8, "mode=0640");
    if (case_failed(ctx)) return;
    for (size_t i = 0; i < n; i++) {
        char rel[32], q[48];
        snprintf(rel, sizeof rel, "bad-%zu.txt", i);
        snprintf(q, sizeof q, "mode=%s", bad[i]);
        char *path = rx_path(ctx, rel);
        struct http_response r;
        if (path && rx_put(ctx, path, "new", 3, q, &r)) {
            expect_error_body(ctx, &r, 400, "INVALID_ARGUMENT");
            http_response_free(&r);
        }
        free(path);
        /* And an existing file is left alone. */
        path = rx_path(ctx, "existing.txt");
        if (path && rx_put(ctx, path, "clobbered", 9, q, &r)) {
            expect_error_body(ctx, &r, 400, "INVALID_ARGUMENT");
            http_response_free(&r);
        }
        free(path);
    }
    char *ls = fx_sh(ctx, "ls -A", "ls of the case directory");
    if (ls)
        CASE_CHECK(ctx, strcmp(ls, "existing.txt") == 0,
                   "nothing written for an invalid mode (only existing.txt in the directory)",
                   "directory holds: %s", ls);
    free(ls);
    get_equals(ctx, "existing.txt", "original", 8);
    int m = fx_mode(ctx, "existing.txt");
    if (m >= 0)
        CASE_CHECK(ctx, (m & 0777) == 0640, "existing.txt keeps mode 0640", "%04o", (unsigned)m);
}
SBX_CASE(
    put_mode_invalid, .id = "F3-003",
    .title = "A mode not matching ^0[0-7]{3}$ fails with 400 INVALID_ARGUMENT, nothing written",
    .clauses = "F3,F13", .level = LEVEL_MUST, .tags = "files,errors", .timeout_s = 30,
    .catches = "invalid modes accepted (stored with a default or a parsed value); a file "
               "created or overwritten before the mode is validated",
    .how = "PUTs with 13 invalid modes (0999, 644, 00644, abc, -1, 0o644, 1644, 07777, ...) "
           "to a new and to an existing path; each must be 400 with an INVALID_ARGUMENT "
           "Error body, no new file may appear and the existing one keeps content and mode");

static void put_mode_empty(struct case_ctx *ctx)
{
    if (!put_204(ctx, "empty-mode.txt", "e", 1, "mode=")) return;
    int m = fx_mode(ctx, "empty-mode.txt");
    if (m >= 0)
        CASE_CHECK(ctx, (m & 0777) == 0644, "mode= (empty) stores the default 0644", "%04o",
                   (unsigned)m);
}
SBX_CASE(put_mode_empty, .id = "F3-004", .title = "An empty mode= means the default 0644",
         .clauses = "F3", .level = LEVEL_SHOULD, .tags = "files", .timeout_s = 20,
         .catches = "mode= refused with 400 or stored with another mode",
         .how = "PUTs with mode= and checks 204 and stat -c %a = 644 through Execute");

/* ---- F5: PUT onto a directory --------------------------------------------------- */

static void put_onto_directory(struct case_ctx *ctx)
{
    if (!put_204(ctx, "adir/child.txt", "c", 1, NULL)) return;
    char *path = rx_path(ctx, "adir");
    struct http_response r;
    if (path && rx_put(ctx, path, "over", 4, NULL, &r)) {
        expect_error_body(ctx, &r, 400, "INVALID_ARGUMENT");
        http_response_free(&r);
    }
    free(path);
    char *out = fx_sh(ctx, "test -d adir && cat adir/child.txt", "adir is still a directory");
    if (out) CASE_CHECK(ctx, strcmp(out, "c") == 0, "adir/child.txt intact", "'%s'", out);
    free(out);
}
SBX_CASE(put_onto_directory, .id = "F5-001",
         .title = "PUT to an existing directory fails with 400 INVALID_ARGUMENT",
         .clauses = "F5,F13", .level = LEVEL_SHOULD, .tags = "files,errors", .timeout_s = 20,
         .catches = "500 for a PUT onto a directory; the directory replaced by a file",
         .how = "creates adir/child.txt, PUTs to adir, expects 400 with an INVALID_ARGUMENT "
                "Error body and adir unchanged (test -d and cat through Execute)");

/* ---- F6: atomic replacement ------------------------------------------------------ */

struct reader_state {
    struct case_ctx *ctx;
    const char *target;
    uint64_t deadline_ms;
    unsigned reads, good, failed_reads;
    char torn[240];
};

static void *reader_main(void *arg)
{
    struct reader_state *st = arg;
    while (case_now_ms() < st->deadline_ms && !st->torn[0] && st->reads < 400) {
        struct http_request req = {
            .method = "GET", .target = st->target, .timeout_ms = 10000, .max_body = 8u << 20};
        struct http_response r;
        st->reads++;
        if (rest_do(st->ctx, &req, &r) != 0 || r.status != 200) {
            st->failed_reads++; /* a read may fail (C1); it must never be partial */
        } else {
            char why[200];
            if (payload_verify(r.body, r.body_len, NULL, why, sizeof why))
                st->good++;
            else
                snprintf(st->torn, sizeof st->torn, "read %u (%zu bytes): %s", st->reads,
                         r.body_len, why);
        }
        http_response_free(&r);
    }
    return NULL;
}

static void put_atomic_replace(struct case_ctx *ctx)
{
    const size_t size = 3u << 20;
    uint8_t *v[2] = {payload_make(case_rand(ctx), size), payload_make(case_rand(ctx), size)};
    char *path = rx_path(ctx, "atomic.bin");
    char *target = path ? rest_files_target(path) : NULL;
    if (!v[0] || !v[1] || !target) {
        case_error(ctx, "out of memory");
        goto out;
    }
    if (!put_204(ctx, "atomic.bin", v[0], size, NULL)) goto out;
    struct reader_state st = {.ctx = ctx, .target = target, .deadline_ms = case_now_ms() + 3000};
    pthread_t th;
    if (pthread_create(&th, NULL, reader_main, &st) != 0) {
        case_error(ctx, "cannot start the reader thread");
        goto out;
    }
    static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
    unsigned writes = 0;
    while (case_now_ms() < st.deadline_ms && writes < 200) {
        struct http_request req = {.method = "PUT",
                                   .target = target,
                                   .body = v[writes % 2],
                                   .body_len = size,
                                   .headers = octet,
                                   .timeout_ms = 10000};
        struct http_response r;
        if (rest_do(ctx, &req, &r) == 0 && r.status != 204)
            case_fail(ctx, "every overwrite answers 204", "status %ld", r.status);
        http_response_free(&r);
        writes++;
        if (case_failed(ctx)) break;
    }
    pthread_join(th, NULL);
    case_note(ctx, "%u overwrites, %u reads (%u complete, %u failed)", writes, st.reads, st.good,
              st.failed_reads);
    case_request(ctx, "GET %s while PUTs replace it", target);
    CASE_CHECK(ctx, st.torn[0] == '\0', "every successful read returns one complete version", "%s",
               st.torn);
    if (!case_failed(ctx) && st.good == 0)
        case_fail(ctx, "at least one successful read while writes go on", "all %u reads failed",
                  st.reads);
out:
    free(v[0]);
    free(v[1]);
    free(target);
    free(path);
}
SBX_CASE(put_atomic_replace, .id = "F6-001",
         .title = "PUT replaces a file atomically: readers see the old or the new content only",
         .clauses = "F6", .level = LEVEL_MUST, .tags = "files,concurrency", .timeout_s = 40,
         .catches = "in-place writes (truncate then write) visible to concurrent readers",
         .how = "for 3 s one thread overwrites a 3 MiB file alternately with two self-verifying "
                "payloads while another GETs it; every 200 body must verify byte-exact as one "
                "complete version");

struct abort_source {
    size_t sent, limit;
};

static size_t abort_read_cb(char *buf, size_t size, size_t nitems, void *ud)
{
    struct abort_source *s = ud;
    if (s->sent >= s->limit) return CURL_READFUNC_ABORT;
    size_t n = size * nitems;
    if (n > s->limit - s->sent) n = s->limit - s->sent;
    memset(buf, 'z', n);
    s->sent += n;
    return n;
}

static void put_no_temp_files(struct case_ctx *ctx)
{
    put_204(ctx, "t/one.txt", "1", 1, NULL);
    put_204(ctx, "t/one.txt", "11", 2, NULL);
    put_204(ctx, "t/two.txt", "2", 1, "mode=0600");
    if (case_failed(ctx)) return;
    /* A failed PUT: invalid mode, then an upload cut off by the client. */
    char *bad = rx_path(ctx, "t/bad.txt");
    struct http_response r;
    if (bad && rx_put(ctx, bad, "x", 1, "mode=9", &r)) http_response_free(&r);
    char *cut = rx_path(ctx, "t/cut.txt");
    char *target = cut ? rest_files_target(cut) : NULL;
    if (target) {
        struct abort_source src = {.limit = 256 * 1024};
        static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
        struct http_request req = {.method = "PUT",
                                   .target = target,
                                   .headers = octet,
                                   .read_cb = abort_read_cb,
                                   .read_ud = &src,
                                   .upload_size = 1 << 20,
                                   .timeout_ms = 10000};
        case_request(ctx, "PUT %s (aborted by the client after 256 KiB of 1 MiB)", target);
        rest_do(ctx, &req, &r);
        http_response_free(&r);
    }
    free(bad);
    free(cut);
    free(target);
    /* The server may notice the aborted upload a moment later. */
    char *ls = NULL;
    for (int i = 0; i < 25; i++) {
        free(ls);
        ls = fx_sh(ctx, "ls -A t | tr '\\n' ' '", "ls -A of the directory");
        if (!ls || strcmp(ls, "one.txt two.txt ") == 0) break;
        usleep(400 * 1000);
    }
    if (ls)
        CASE_CHECK(ctx, strcmp(ls, "one.txt two.txt ") == 0,
                   "only one.txt and two.txt in the directory (no temporary files, nothing "
                   "from the failed PUTs)",
                   "ls -A: %s", ls);
    free(ls);
}
SBX_CASE(put_no_temp_files, .id = "F6-002",
         .title = "No temporary files remain after PUTs complete or fail", .clauses = "F6",
         .level = LEVEL_SHOULD, .tags = "files", .timeout_s = 30,
         .catches = "temporary files left next to the target after a successful, refused or "
                    "aborted upload",
         .how = "three successful PUTs, one refused for its mode and one upload aborted by the "
                "client midway; ls -A through Execute must show exactly the two stored files");
