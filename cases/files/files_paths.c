/* SPDX-License-Identifier: Apache-2.0 */
/* F12: percent-decoding of {path}; F14: paths that cannot be resolved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"
#include "common/rest_expect.h"
#include "files/files_util.h"

/* PUT to a raw request-target (no encoding applied) with a body. */
static bool put_raw(struct case_ctx *ctx, const char *target, const char *body,
                    struct http_response *r)
{
    static const char *const hdrs[] = {"Content-Type: application/octet-stream", NULL};
    return rx_send(ctx, NULL, "PUT", target, body, strlen(body), hdrs, r);
}

static char *raw_target(struct case_ctx *ctx, const char *encoded_rest)
{
    char *t = NULL;
    if (asprintf(&t, "/v1/files/%s/%s", case_dir(ctx), encoded_rest) < 0) return NULL;
    return t;
}

static void names_round_trip(struct case_ctx *ctx)
{
    static const char *const names[] = {
        "with space.txt", "question?mark", "hash#tag",    "100%",
        "pct%41literal",  "plus+and&eq=",  "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
        "semi;colon",     "quote'd",       "tilde~",      "[brackets]"};
    const size_t n = sizeof names / sizeof *names;
    for (size_t i = 0; i < n; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "N/%s", names[i]);
        char *p = rx_path(ctx, rel);
        if (p && expect_put_ok(ctx, p, names[i], strlen(names[i]), NULL))
            expect_file_content(ctx, p, names[i], strlen(names[i]));
        free(p);
    }
    if (case_failed(ctx)) return;
    /* The names as the runtime's processes see them. */
    char *ls =
        fx_sh(ctx, "cd N && for f in *; do printf '%s/' \"$f\"; done", "listing N through Execute");
    if (ls) {
        for (size_t i = 0; i < n; i++) {
            char needle[80];
            snprintf(needle, sizeof needle, "%s/", names[i]);
            bool found = strncmp(ls, needle, strlen(needle)) == 0;
            for (const char *s = ls; !found && (s = strchr(s, '/')) != NULL; s++)
                found = strncmp(s + 1, needle, strlen(needle)) == 0;
            CASE_CHECK(ctx, found, "a file with exactly the decoded name", "'%s' missing in: %s",
                       names[i], ls);
        }
    }
    free(ls);
    /* The listing reports the decoded names too. */
    char *p = rx_path(ctx, "N");
    json_t *listing = p ? rx_list(ctx, p) : NULL;
    for (size_t i = 0; listing && i < n; i++)
        CASE_CHECK(ctx, listing_entry(listing, names[i]) != NULL, "the decoded name listed",
                   "no entry '%s'", names[i]);
    json_decref(listing);
    free(p);
    /* A raw '+' in the path is a plus, never a space (no form decoding). */
    char *t = raw_target(ctx, "N/raw+plus");
    struct http_response r;
    if (t && put_raw(ctx, t, "plus", &r)) {
        expect_status(ctx, &r, 204);
        http_response_free(&r);
        char *rp = rx_path(ctx, "N/raw+plus");
        if (rp && !case_failed(ctx)) expect_file_content(ctx, rp, "plus", 4);
        free(rp);
        char *out = fx_sh(ctx, "cat 'N/raw+plus'; test ! -e 'N/raw plus' && echo /none",
                          "reading N/raw+plus through Execute");
        if (out)
            CASE_CHECK(ctx, strcmp(out, "plus/none") == 0,
                       "a file named raw+plus, none named 'raw plus'", "'%s'", out);
        free(out);
    }
    free(t);
}
SBX_CASE(names_round_trip, .id = "F12-001",
         .title = "Names with spaces, ?, #, %, UTF-8 and other reserved bytes round-trip",
         .clauses = "F12", .level = LEVEL_MUST, .tags = "files", .timeout_s = 30,
         .catches = "paths decoded twice (pct%41literal becoming pctAliteral), not decoded, or "
                    "mangled (+ as space, UTF-8 re-encoded)",
         .how = "PUTs and GETs 12 percent-encoded names; the names must appear exactly, decoded "
                "once, to processes (shell glob through Execute) and in the listing; a raw + in "
                "the request line must name a file with a + (read back encoded as %2B)");

static void encoded_slash_separates(struct case_ctx *ctx)
{
    char *t = raw_target(ctx, "E%2Fsub%2Ffile.txt");
    struct http_response r;
    if (t && put_raw(ctx, t, "slash", &r)) {
        expect_status(ctx, &r, 204);
        http_response_free(&r);
    }
    free(t);
    if (case_failed(ctx)) return;
    char *out = fx_sh(ctx, "test -d E/sub && cat E/sub/file.txt", "E/sub/file.txt exists");
    if (out) CASE_CHECK(ctx, strcmp(out, "slash") == 0, "%2F acting as a separator", "'%s'", out);
    free(out);
    char *p = rx_path(ctx, "E/sub/file.txt");
    if (p) expect_file_content(ctx, p, "slash", 5);
    free(p);
    /* And the other way round: an encoded slash reads what a plain one wrote. */
    t = raw_target(ctx, "E%2fsub/file.txt");
    if (t && rx_send(ctx, NULL, "GET", t, NULL, 0, NULL, &r)) {
        if (expect_status(ctx, &r, 200))
            CASE_CHECK(ctx, r.body_len == 5 && memcmp(r.body, "slash", 5) == 0, "the file's bytes",
                       "%s", rx_preview(&r));
        http_response_free(&r);
    }
    free(t);
}
SBX_CASE(encoded_slash_separates, .id = "F12-002", .title = "%2F in {path} acts as a separator",
         .clauses = "F12", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "encoded slashes refused or kept literally",
         .how = "PUTs E%2Fsub%2Ffile.txt; E/sub/file.txt must exist for processes and be "
                "readable with a plain and a lower-case %2f path");

static void double_encoding_literal(struct case_ctx *ctx)
{
    char *t = raw_target(ctx, "X/%252e%252e");
    struct http_response r;
    if (t && put_raw(ctx, t, "double", &r)) {
        expect_status(ctx, &r, 204);
        http_response_free(&r);
    }
    free(t);
    if (case_failed(ctx)) return;
    char *out = fx_sh(ctx, "ls -A X | tr '\\n' ' '; cat X/%2e%2e; echo; ls -A | tr '\\n' ' '",
                      "listing X through Execute");
    if (out)
        CASE_CHECK(ctx, strcmp(out, "%2e%2e double\nX ") == 0,
                   "one file named literally %2e%2e inside X, nothing else created",
                   "ls -A X; cat; ls -A: %s", out);
    free(out);
    t = raw_target(ctx, "X/%252e%252e");
    if (t && rx_send(ctx, NULL, "GET", t, NULL, 0, NULL, &r)) {
        if (expect_status(ctx, &r, 200))
            CASE_CHECK(ctx, r.body_len == 6 && memcmp(r.body, "double", 6) == 0,
                       "the literal %2e%2e file read back", "%s", rx_preview(&r));
        http_response_free(&r);
    }
    free(t);
}
SBX_CASE(double_encoding_literal, .id = "F12-003",
         .title = "Double-encoded %252e%252e is the literal name %2e%2e", .clauses = "F12",
         .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "paths decoded twice, so %252e%252e becomes .. (a traversal or a refusal)",
         .how = "PUTs X/%252e%252e; ls through Execute must show one file named %2e%2e inside "
                "X and nothing in X's parent; GET reads it back");

/* ---- F14 ------------------------------------------------------------------------- */

static void check_unresolvable(struct case_ctx *ctx, const char *rel, const char *why)
{
    char *p = rx_path(ctx, rel);
    if (!p) return;
    struct http_response r;
    const char *reads[] = {"GET", "DELETE"};
    for (int i = 0; i < 2; i++)
        if (rx_file(ctx, reads[i], p, NULL, &r)) {
            if (!expect_error_body(ctx, &r, 404, "NOT_FOUND"))
                case_note(ctx, "%s %s (%s)", reads[i], rel, why);
            http_response_free(&r);
        }
    if (rx_file(ctx, "HEAD", p, NULL, &r)) {
        CASE_CHECK(ctx, r.status == 404, "HEAD answering 404", "HEAD %s (%s): %ld", rel, why,
                   r.status);
        http_response_free(&r);
    }
    if (rx_put(ctx, p, "w", 1, NULL, &r)) {
        if (expect_status(ctx, &r, 400, 409))
            expect_error_body(ctx, &r, r.status, r.status == 400 ? "INVALID_ARGUMENT" : "CONFLICT");
        else
            case_note(ctx, "PUT %s (%s)", rel, why);
        http_response_free(&r);
    }
    free(p);
}

/* What `rel` (a regular file's name) holds now, through Execute: its
 * content, or "(absent)". NULL with a failure when it cannot be looked at. */
static char *slash_file_state(struct case_ctx *ctx, const char *rel)
{
    char script[512];
    snprintf(script, sizeof script, "if test -f %s; then cat %s; else printf '(absent)'; fi", rel,
             rel);
    return fx_sh(ctx, script, "looking at the file after a request on its name with a slash");
}

/* Whether the file `rel` holds `want` ("(absent)" for none), else a failure
 * naming the request and its answer. */
static void expect_slash_file(struct case_ctx *ctx, const char *rel, const char *want,
                              const char *request, long status)
{
    char *now = slash_file_state(ctx, rel);
    if (now)
        CASE_CHECK(ctx, strcmp(now, want) == 0, "the file as the answer says",
                   "%s answered %ld, and then %s holds '%s' (expected '%s')", request, status, rel,
                   now, want);
    free(now);
}

/* "<file>/" (a trailing slash after a regular file, nothing after it): the
 * contract leaves open whether the slash is ignored (the file is served,
 * replaced and deleted) or the name is a file used as a directory (F14's
 * 404 for reads and deletes, 400/409 for writes). Each request may take
 * either reading, but its answer must match what it did to the file, and
 * it is never a 500. `file` holds `content` on entry. */
static void check_file_slash(struct case_ctx *ctx, const char *file, const char *content)
{
    char rel[256], request[320];
    snprintf(rel, sizeof rel, "%s/", file);
    char *p = rx_path(ctx, rel);
    if (!p) return;
    struct http_response r;
    snprintf(request, sizeof request, "GET %s", rel);
    if (rx_file(ctx, "GET", p, NULL, &r)) {
        if (r.status == 200)
            CASE_CHECK(ctx,
                       r.body_len == strlen(content) && memcmp(r.body, content, r.body_len) == 0,
                       "a 200 for the name with a slash serves the file",
                       "%s: 200 with '%s', the file holds '%s'", request, rx_preview(&r), content);
        else if (!expect_error_body(ctx, &r, 404, "NOT_FOUND"))
            case_note(ctx, "%s: the file served (200) or 404 NOT_FOUND", request);
        http_response_free(&r);
    }
    if (rx_file(ctx, "HEAD", p, NULL, &r)) {
        CASE_CHECK(ctx, r.status == 200 || r.status == 404, "HEAD answering 200 or 404",
                   "HEAD %s: %ld", rel, r.status);
        http_response_free(&r);
    }
    snprintf(request, sizeof request, "PUT %s", rel);
    if (rx_put(ctx, p, "new", 3, NULL, &r)) {
        if (r.status == 204)
            expect_slash_file(ctx, file, "new", request, r.status);
        else if (expect_status(ctx, &r, 400, 409)) {
            expect_error_body(ctx, &r, r.status, r.status == 400 ? "INVALID_ARGUMENT" : "CONFLICT");
            expect_slash_file(ctx, file, content, request, r.status);
        } else
            case_note(ctx, "%s: 204 (the file replaced), or 400/409 (nothing written)", request);
        http_response_free(&r);
    }
    char *before = slash_file_state(ctx, file);
    snprintf(request, sizeof request, "DELETE %s", rel);
    if (before && rx_file(ctx, "DELETE", p, NULL, &r)) {
        if (r.status == 204)
            expect_slash_file(ctx, file, "(absent)", request, r.status);
        else if (expect_error_body(ctx, &r, 404, "NOT_FOUND"))
            expect_slash_file(ctx, file, before, request, r.status);
        else
            case_note(ctx, "%s: 204 (the file deleted) or 404 NOT_FOUND (kept)", request);
        http_response_free(&r);
    }
    free(before);
    free(p);
}

static void unresolvable_paths(struct case_ctx *ctx)
{
    char *p = rx_path(ctx, "a.txt");
    bool ok = p && expect_put_ok(ctx, p, "file", 4, NULL);
    free(p);
    if (!ok || !pu_sh_ok(ctx, "ln -s loop1 loop2 && ln -s loop2 loop1 && ln -s nowhere dangling",
                         "creating a symlink loop and a dangling link", NULL))
        return;
    check_unresolvable(ctx, "a.txt/x", "a regular file used as a directory");
    check_unresolvable(ctx, "a.txt/x/y", "a regular file used as a directory");
    check_unresolvable(ctx, "loop1/x", "a symlink loop as parent");
    check_unresolvable(ctx, "dangling/x", "a dangling symlink as parent");
    /* An absolute link that stays inside the root, as a parent. */
    if (pu_sh_ok(ctx,
                 "mkdir -p d && printf inner > d/a.txt && printf linked > d/s.txt && "
                 "printf plain > s.txt && ln -s \"$(pwd -P)/d\" abs",
                 "creating d/a.txt, d/s.txt, s.txt and an absolute in-root link abs -> d", NULL)) {
        check_unresolvable(ctx, "abs/a.txt/x",
                           "a file used as a directory through an "
                           "absolute in-root link");
        /* Nothing after the slash: either reading, each answer true to it. */
        check_file_slash(ctx, "s.txt", "plain");
        check_file_slash(ctx, "abs/s.txt", "linked");
    }
    /* A read through the loop itself is a read too. */
    p = rx_path(ctx, "loop1");
    struct http_response r;
    if (p && rx_file(ctx, "GET", p, NULL, &r)) {
        expect_error_body(ctx, &r, 404, "NOT_FOUND");
        http_response_free(&r);
    }
    free(p);
    char *out = fx_sh(ctx, "cat a.txt; test ! -e nowhere && echo ok; cat d/a.txt",
                      "checking the workspace");
    if (out)
        CASE_CHECK(ctx, strcmp(out, "fileok\ninner") == 0,
                   "a.txt and d/a.txt unchanged (not changed through a.txt/x) and no target "
                   "created for the dangling link",
                   "'%s'", out);
    free(out);
}
SBX_CASE(unresolvable_paths, .id = "F14-001",
         .title = "Unresolvable paths answer 404 for reads and deletes, 400/409 for writes, "
                  "never 500",
         .clauses = "F14,F13", .level = LEVEL_SHOULD, .tags = "files,errors", .timeout_s = 30,
         .catches = "500 (ENOTDIR, ELOOP surfacing as internal errors); a file or link target "
                    "created",
         .how = "uses a.txt/x, a.txt/x/y, a symlink loop, a dangling symlink and an absolute "
                "symlink that stays inside the root (abs/a.txt/x) as parents (links made with "
                "ln -s through Execute); GET/DELETE must be 404 NOT_FOUND, HEAD 404, PUT 400 or "
                "409 with matching Error bodies, and the files must still be there afterwards. "
                "s.txt/ and abs/s.txt/ (nothing after the slash; not fixed by the contract) may "
                "be served, replaced and deleted as the file or answered as a file used as a "
                "directory, request by request, but never 500, and what Execute then sees must "
                "match each answer");
