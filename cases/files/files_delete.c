/* SPDX-License-Identifier: Apache-2.0 */
/* F10, F11: DELETE of files, directories, trees and the root. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/proc_util.h"
#include "common/rest_expect.h"
#include "common/root_probe.h"
#include "files/files_util.h"

#define FILES_ROUTE "/v1/files/{path}"

static bool put_rel(struct case_ctx *ctx, const char *rel, const char *text)
{
    char *p = rx_path(ctx, rel);
    bool ok = p && expect_put_ok(ctx, p, text, strlen(text), NULL);
    free(p);
    return ok;
}

/* DELETE rel?query; returns the status (0 on transport failure). When
 * want_error is non-NULL the Error body must carry that code. */
static long del(struct case_ctx *ctx, const char *rel, const char *query, long want,
                const char *want_error)
{
    char *p = rx_path(ctx, rel);
    struct http_response r;
    long status = 0;
    if (p && rx_file(ctx, "DELETE", p, query, &r)) {
        status = r.status;
        if (want_error)
            expect_error_body(ctx, &r, want, want_error);
        else if (expect_status(ctx, &r, want)) {
            expect_no_body(ctx, &r);
            expect_schema(ctx, &r, FILES_ROUTE, "DELETE");
        }
        http_response_free(&r);
    }
    free(p);
    return status;
}

/* What `ls -A` prints in the case directory, one line. */
static char *listing_of(struct case_ctx *ctx, const char *rel)
{
    char *q = fx_quote(rel);
    char *script = NULL;
    if (!q || asprintf(&script, "ls -A %s | tr '\\n' ' '", q) < 0) script = NULL;
    free(q);
    char *out = script ? fx_sh(ctx, script, "ls -A through Execute") : NULL;
    free(script);
    return out;
}

static void delete_file_and_empty_dir(struct case_ctx *ctx)
{
    put_rel(ctx, "D/file.txt", "x");
    put_rel(ctx, "D/keep.txt", "k");
    put_rel(ctx, "D/emptydir/.tmpfile", "t");
    if (case_failed(ctx)) return;
    del(ctx, "D/emptydir/.tmpfile", NULL, 204, NULL);
    del(ctx, "D/file.txt", NULL, 204, NULL);
    del(ctx, "D/emptydir", NULL, 204, NULL);
    char *ls = listing_of(ctx, "D");
    if (ls)
        CASE_CHECK(ctx, strcmp(ls, "keep.txt ") == 0, "file.txt and emptydir gone, keep.txt left",
                   "ls -A D: %s", ls);
    free(ls);
    /* Absent paths: a removed file, a name never created, a missing parent. */
    del(ctx, "D/file.txt", NULL, 404, "NOT_FOUND");
    del(ctx, "D/never", NULL, 404, "NOT_FOUND");
    del(ctx, "D/no/such/parent", NULL, 404, "NOT_FOUND");
    del(ctx, "D/never", "recursive=true", 404, "NOT_FOUND");
}
SBX_CASE(delete_file_and_empty_dir, .id = "F10-001",
         .title = "DELETE removes a file or an empty directory (204); an absent path is 404",
         .clauses = "F10,F13", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "204 for absent paths; deletions not happening; a body on 204",
         .how = "deletes a file and an empty directory (204, gone per ls -A through Execute, "
                "siblings kept), then absent paths with and without recursive (404 NOT_FOUND "
                "Error bodies)");

static void delete_nonempty_dir(struct case_ctx *ctx)
{
    put_rel(ctx, "T/a/b/c.txt", "c");
    put_rel(ctx, "T/a/d.txt", "d");
    put_rel(ctx, "T/other.txt", "o");
    if (case_failed(ctx)) return;
    del(ctx, "T/a", NULL, 409, "CONFLICT");
    del(ctx, "T/a", "recursive=false", 409, "CONFLICT");
    char *ls = fx_sh(ctx, "cat T/a/b/c.txt T/a/d.txt", "the tree is intact after 409");
    if (ls) CASE_CHECK(ctx, strcmp(ls, "cd") == 0, "the tree intact after 409", "'%s'", ls);
    free(ls);
    del(ctx, "T/a", "recursive=true", 204, NULL);
    ls = listing_of(ctx, "T");
    if (ls)
        CASE_CHECK(ctx, strcmp(ls, "other.txt ") == 0, "the whole tree gone, siblings kept",
                   "ls -A T: %s", ls);
    free(ls);
    /* recursive=true also removes a single file. */
    del(ctx, "T/other.txt", "recursive=true", 204, NULL);
}
SBX_CASE(delete_nonempty_dir, .id = "F10-002",
         .title = "A non-empty directory is 409 CONFLICT without recursive=true and removed "
                  "with it",
         .clauses = "F10,F13", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "non-empty directories removed without recursive=true; recursive=false "
                    "taken as true; trees left half-removed",
         .how = "DELETEs a tree without recursive and with recursive=false (409 CONFLICT, tree "
                "intact), then with recursive=true (204, gone per ls -A)");

static void delete_bad_recursive(struct case_ctx *ctx)
{
    put_rel(ctx, "B/dir/x", "x");
    put_rel(ctx, "B/file", "f");
    if (case_failed(ctx)) return;
    static const char *const bad[] = {"recursive=banana", "recursive=yes%21", "recursive=tru"};
    for (int i = 0; i < 3; i++) {
        /* B/dir is also not empty without recursive=true: which of the two
         * errors wins is not fixed, so its 409 is as good as the 400. */
        char *p = rx_path(ctx, "B/dir");
        struct http_response r;
        if (p && rx_file(ctx, "DELETE", p, bad[i], &r)) {
            if (expect_status(ctx, &r, 400, 409))
                expect_error_body(ctx, &r, r.status,
                                  r.status == 400 ? "INVALID_ARGUMENT" : "CONFLICT");
            http_response_free(&r);
        }
        free(p);
        del(ctx, "B/file", bad[i], 400, "INVALID_ARGUMENT");
    }
    char *out = fx_sh(ctx, "cat B/dir/x B/file", "both paths are still there");
    if (out) CASE_CHECK(ctx, strcmp(out, "xf") == 0, "nothing removed", "'%s'", out);
    free(out);
}
SBX_CASE(delete_bad_recursive, .id = "F10-003",
         .title = "An unparseable recursive value fails with 400 INVALID_ARGUMENT",
         .clauses = "F10,F13", .level = LEVEL_MUST, .tags = "files,errors", .timeout_s = 20,
         .catches = "recursive=banana taken as true (tree removed) or ignored",
         .how = "DELETEs an existing file and a non-empty directory with recursive=banana, "
                "yes! and tru; the file must be 400 INVALID_ARGUMENT, the directory 400 or 409 "
                "CONFLICT (it also is not empty: which error wins is not fixed), and both must "
                "survive");

static void delete_empty_recursive(struct case_ctx *ctx)
{
    put_rel(ctx, "R/dir/x", "x");
    put_rel(ctx, "R/file", "f");
    if (case_failed(ctx)) return;
    del(ctx, "R/dir", "recursive=", 409, "CONFLICT");
    del(ctx, "R/file", "recursive=", 204, NULL);
    char *out =
        fx_sh(ctx, "cat R/dir/x; test ! -e R/file && echo gone", "checking R through Execute");
    if (out) CASE_CHECK(ctx, strcmp(out, "xgone") == 0, "dir kept, file removed", "'%s'", out);
    free(out);
}
SBX_CASE(delete_empty_recursive, .id = "F13-004",
         .title = "An empty recursive= means the default (false)", .clauses = "F13,F10",
         .level = LEVEL_SHOULD, .tags = "files", .timeout_s = 20,
         .catches = "recursive= refused with 400, or taken as true",
         .how = "DELETE with recursive= of a non-empty directory must be 409 CONFLICT, of a "
                "file 204");

/* ---- F11: the root (private runtime only) ------------------------------------------ */

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

static bool root_is_dir(const char *root)
{
    struct stat st;
    return stat(root, &st) == 0 && S_ISDIR(st.st_mode);
}

/* What the F11 cases plant in a private root: a/b.txt, c.txt and a marker
 * whose name is unique to the run, so a probe listing of a root spelling
 * tells the sandbox root from any other directory. */
struct root_seed {
    char marker[48];
    const char *names[4]; /* the root's entries, NULL-terminated */
};

static bool seed_private(struct case_ctx *ctx, const char *addr, struct root_seed *seed)
{
    if (!seed->marker[0]) {
        snprintf(seed->marker, sizeof seed->marker, "sbxc-root-marker-%016llx",
                 (unsigned long long)case_rand(ctx));
        seed->names[0] = "a";
        seed->names[1] = "c.txt";
        seed->names[2] = seed->marker;
        seed->names[3] = NULL;
    }
    static const char *const hdrs[] = {"Content-Type: application/octet-stream", NULL};
    char marker_target[96];
    snprintf(marker_target, sizeof marker_target, "/v1/files/%s", seed->marker);
    const char *targets[] = {"/v1/files/a/b.txt", "/v1/files/c.txt", marker_target};
    for (int i = 0; i < 3; i++) {
        struct http_response r;
        if (!rx_send(ctx, addr, "PUT", targets[i], "data", 4, hdrs, &r)) return false;
        bool ok = expect_status(ctx, &r, 204);
        http_response_free(&r);
        if (!ok) return false;
    }
    return true;
}

/* DELETE of a root spelling, sent only when a GET of the same spelling
 * listed the planted root (root_probe.h). The status, or -1 when the
 * request was not sent. */
static long root_delete_probed(struct case_ctx *ctx, const char *addr, const char *spelling,
                               const char *query, const struct root_seed *seed)
{
    char destructive[160];
    snprintf(destructive, sizeof destructive, "DELETE %s%s%s", spelling, query ? "?" : "",
             query ? query : "");
    if (root_probe(ctx, addr, spelling, seed->names, destructive) != ROOT_PROBE_ROOT) return -1;
    struct http_response r;
    char target[160];
    snprintf(target, sizeof target, "%s%s%s", spelling, query ? "?" : "", query ? query : "");
    if (!rx_send(ctx, addr, "DELETE", target, NULL, 0, NULL, &r)) return 0;
    long s = r.status;
    if (s >= 400) expect_error_body(ctx, &r, s, NULL);
    http_response_free(&r);
    return s;
}

static void root_never_removed(struct case_ctx *ctx)
{
    struct private_runtime *rt = case_runtime_start(ctx, NULL);
    if (!rt) return;
    const char *addr = private_runtime_rest_addr(rt);
    const char *root = private_runtime_root(rt);
    struct root_seed seed = {0};
    if (seed_private(ctx, addr, &seed)) {
        root_delete_probed(ctx, addr, "/v1/files/", NULL, &seed);
        CASE_CHECK(ctx, root_is_dir(root), "the root still exists", "%s is gone", root);
        if (!case_failed(ctx)) {
            root_delete_probed(ctx, addr, "/v1/files/", "recursive=true", &seed);
            CASE_CHECK(ctx, root_is_dir(root), "the root still exists after DELETE with recursive",
                       "%s is gone", root);
        }
        /* Other spellings of the root: any answer, but the root stays. */
        static const char *const aliases[] = {"/v1/files/%2e", "/v1/files/a/%2e%2e",
                                              "/v1/files/%2F", "/v1/files/a%2F%2e%2e%2F"};
        for (size_t i = 0; i < sizeof aliases / sizeof *aliases && !case_failed(ctx); i++) {
            if (!seed_private(ctx, addr, &seed)) break;
            if (root_delete_probed(ctx, addr, aliases[i], "recursive=true", &seed) < 0) continue;
            CASE_CHECK(ctx, root_is_dir(root), "the root still exists", "%s is gone after %s", root,
                       aliases[i]);
        }
        /* And the runtime still serves the root. */
        struct http_response r;
        static const char *const hdrs[] = {"Content-Type: application/octet-stream", NULL};
        if (rx_send(ctx, addr, "PUT", "/v1/files/after.txt", "z", 1, hdrs, &r)) {
            expect_status(ctx, &r, 204);
            http_response_free(&r);
        }
    }
    private_runtime_stop(rt);
}
SBX_CASE(root_never_removed, .id = "F11-001",
         .title = "DELETE never removes the sandbox root itself", .clauses = "F11",
         .level = LEVEL_MUST, .tags = "files,lifecycle", .needs = NEEDS_LAUNCH | NEEDS_ALONE,
         .timeout_s = 40,
         .catches = "DELETE /v1/files/?recursive=true, or of another spelling of the root "
                    "(%2e, a/.., %2F), removing the root directory (later writes fail, the "
                    "volume mount point disappears)",
         .how = "on a private runtime instance (so no user workspace is touched) plants files "
                "and a unique marker, DELETEs the root without and with recursive=true, then "
                "recursively its aliases %2e, a/%2e%2e, %2F and a%2F%2e%2e%2F (any status), "
                "checks on the host after each that the root directory still exists, and that a "
                "PUT still works; each DELETE is sent only after a GET of the same spelling "
                "listed exactly the planted names (a spelling that lists anything else, e.g. the "
                "host's /, fails the case and its DELETE is not sent)");

static void root_delete_semantics(struct case_ctx *ctx)
{
    struct private_runtime *rt = case_runtime_start(ctx, NULL);
    if (!rt) return;
    const char *addr = private_runtime_rest_addr(rt);
    const char *root = private_runtime_root(rt);
    struct root_seed seed = {0};
    if (seed_private(ctx, addr, &seed)) {
        long s = root_delete_probed(ctx, addr, "/v1/files/", NULL, &seed);
        if (s < 0) goto stop;
        CASE_CHECK(ctx, s == 409, "409 for DELETE of the root without recursive=true", "status %ld",
                   s);
        CASE_CHECK(ctx, count_entries(root) == 3, "the root's content intact after the 409",
                   "%d entries left", count_entries(root));
        s = root_delete_probed(ctx, addr, "/v1/files/", "recursive=true", &seed);
        if (s < 0) goto stop;
        CASE_CHECK(ctx, s == 204, "204 for DELETE of the root with recursive=true", "status %ld",
                   s);
        CASE_CHECK(ctx, root_is_dir(root) && count_entries(root) == 0,
                   "the root emptied and still present", "%s: %d entries (-1: missing)", root,
                   count_entries(root));
        json_t *listing = NULL;
        struct http_response r;
        if (rx_send(ctx, addr, "GET", "/v1/files/", NULL, 0, NULL, &r)) {
            if (expect_status(ctx, &r, 200) && expect_schema(ctx, &r, FILES_ROUTE, "GET"))
                listing = expect_json(ctx, &r);
            http_response_free(&r);
        }
        if (listing)
            CASE_CHECK(ctx, listing_size(listing) == 0, "an empty listing of the root",
                       "%zu entries", listing_size(listing));
        json_decref(listing);
    }
stop:
    private_runtime_stop(rt);
}
SBX_CASE(root_delete_semantics, .id = "F11-002",
         .title = "DELETE of the root: 409 without recursive=true; with it the root is emptied "
                  "(204)",
         .clauses = "F11", .level = LEVEL_SHOULD, .tags = "files,lifecycle",
         .needs = NEEDS_LAUNCH | NEEDS_ALONE, .timeout_s = 40,
         .catches = "the root's content removed without recursive; recursive refused; the root "
                    "left non-empty or removed",
         .how = "on a private runtime instance: DELETE /v1/files/ must be 409 with the content "
                "intact, with recursive=true 204 with the root present and empty on the host "
                "and listed as []; each DELETE is sent only after GET /v1/files/ listed exactly "
                "the planted names");
