/* SPDX-License-Identifier: Apache-2.0 */
/* F7, F8, F9: reading files, listing directories, HEAD. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_util.h"
#include "common/payload.h"
#include "common/proc_util.h"
#include "common/rest_expect.h"
#include "files/files_util.h"
#include "files/head_wire.h"

#define FILES_ROUTE "/v1/files/{path}"

static bool put_rel(struct case_ctx *ctx, const char *rel, const void *data, size_t len)
{
    char *p = rx_path(ctx, rel);
    bool ok = p && expect_put_ok(ctx, p, data, len, NULL);
    free(p);
    return ok;
}

static bool media_is(const struct http_response *r, const char *type)
{
    if (!r->content_type) return false;
    size_t n = strlen(type);
    return strncasecmp(r->content_type, type, n) == 0 &&
           (r->content_type[n] == '\0' || r->content_type[n] == ';' || r->content_type[n] == ' ');
}

/* Equal media types, parameters and letter case aside. */
static bool same_media_type(const char *a, const char *b)
{
    size_t la = strcspn(a, "; "), lb = strcspn(b, "; ");
    return la == lb && strncasecmp(a, b, la) == 0;
}

/* ---- F7 ---------------------------------------------------------------------- */

static void get_file_octet_stream(struct case_ctx *ctx)
{
    uint8_t *data = payload_make(case_rand(ctx), 70000);
    if (!data || !put_rel(ctx, "f.bin", data, 70000)) {
        free(data);
        return;
    }
    /* A name that looks like JSON must not change the type. */
    put_rel(ctx, "f.json", "{\"a\":1}", 7);
    const char *names[] = {"f.bin", "f.json"};
    for (int i = 0; i < 2; i++) {
        char *p = rx_path(ctx, names[i]);
        struct http_response r;
        if (p && rx_file(ctx, "GET", p, NULL, &r)) {
            if (expect_status(ctx, &r, 200)) {
                CASE_CHECK(ctx, media_is(&r, "application/octet-stream"),
                           "Content-Type application/octet-stream", "%s",
                           r.content_type ? r.content_type : "(none)");
                if (i == 0)
                    CASE_CHECK(ctx, r.body_len == 70000 && memcmp(r.body, data, 70000) == 0,
                               "the exact 70000 bytes", "%zu bytes, not equal", r.body_len);
                else
                    CASE_CHECK(ctx, r.body_len == 7 && memcmp(r.body, "{\"a\":1}", 7) == 0,
                               "the exact 7 bytes", "%s", rx_preview(&r));
                expect_schema(ctx, &r, FILES_ROUTE, "GET");
            }
            http_response_free(&r);
        }
        free(p);
    }
    free(data);
}
SBX_CASE(get_file_octet_stream, .id = "F7-001",
         .title = "GET of a file answers 200 application/octet-stream with the exact bytes",
         .clauses = "F7", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "a guessed Content-Type (text/plain, application/json by extension); "
                    "altered bytes",
         .how = "PUTs a 70000-byte binary payload and a .json-named file, GETs both and checks "
                "status, Content-Type and bytes");

static void get_content_length(struct case_ctx *ctx)
{
    static const size_t sizes[] = {0, 1, 12345};
    for (size_t i = 0; i < 3; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "len-%zu", sizes[i]);
        char *data = calloc(1, sizes[i] + 1);
        if (!data || !put_rel(ctx, rel, data, sizes[i])) {
            free(data);
            return;
        }
        free(data);
        char *p = rx_path(ctx, rel);
        const char *methods[] = {"GET", "HEAD"};
        for (int m = 0; m < 2 && p; m++) {
            struct http_response r;
            if (!rx_file(ctx, methods[m], p, NULL, &r)) continue;
            /* F7 asks GET for the length; HEAD mirrors GET's headers, and a
             * HEAD without Content-Length is noted, a wrong one fails. */
            bool head = m == 1;
            if (expect_status(ctx, &r, 200) && (!head || r.content_length >= 0))
                CASE_CHECK(ctx, r.content_length == (long long)sizes[i],
                           "Content-Length equal to the file size", "%s: %lld for %zu bytes",
                           methods[m], r.content_length, sizes[i]);
            else if (r.status == 200)
                case_note(ctx, "HEAD of a %zu-byte file carries no Content-Length", sizes[i]);
            http_response_free(&r);
        }
        free(p);
    }
}
SBX_CASE(get_content_length, .id = "F7-002",
         .title = "GET and HEAD of a file set Content-Length to its size", .clauses = "F7,F9",
         .level = LEVEL_SHOULD, .tags = "files", .timeout_s = 20,
         .catches = "chunked responses without Content-Length; a wrong length",
         .how = "files of 0, 1 and 12345 bytes; GET must carry Content-Length equal to the "
                "size, and HEAD, if it carries one, the same");

static void get_range(struct case_ctx *ctx)
{
    const size_t n = 10000;
    uint8_t *data = payload_make(case_rand(ctx), n);
    if (!data || !put_rel(ctx, "r.bin", data, n)) {
        free(data);
        return;
    }
    static const struct {
        const char *range;
        size_t from, to; /* inclusive */
    } ranges[] = {{"bytes=0-0", 0, 0},
                  {"bytes=100-199", 100, 199},
                  {"bytes=9990-", 9990, 9999},
                  {"bytes=-25", 9975, 9999},
                  {"bytes=5000-20000", 5000, 9999}};
    char *p = rx_path(ctx, "r.bin");
    char *target = p ? rest_files_target(p) : NULL;
    for (size_t i = 0; target && i < sizeof ranges / sizeof *ranges; i++) {
        char hdr[64];
        snprintf(hdr, sizeof hdr, "Range: %s", ranges[i].range);
        const char *const hdrs[] = {hdr, NULL};
        struct http_response r;
        if (!rx_send(ctx, NULL, "GET", target, NULL, 0, hdrs, &r)) continue;
        size_t want = ranges[i].to - ranges[i].from + 1;
        if (expect_status(ctx, &r, 206)) {
            CASE_CHECK(ctx, r.body_len == want && memcmp(r.body, data + ranges[i].from, want) == 0,
                       "exactly the requested slice", "%s: %zu bytes (want %zu)", ranges[i].range,
                       r.body_len, want);
            char *cr = rx_header(&r, "Content-Range");
            char expect_cr[64];
            snprintf(expect_cr, sizeof expect_cr, "bytes %zu-%zu/%zu", ranges[i].from, ranges[i].to,
                     n);
            CASE_CHECK(ctx, cr && strcmp(cr, expect_cr) == 0, expect_cr, "Content-Range %s",
                       cr ? cr : "(none)");
            free(cr);
            expect_schema(ctx, &r, FILES_ROUTE, "GET");
        }
        http_response_free(&r);
    }
    free(target);
    free(p);
    free(data);
}
SBX_CASE(get_range, .id = "F7-003",
         .title = "A single byte range answers 206 with exactly that slice", .clauses = "F7",
         .level = LEVEL_SHOULD, .tags = "files", .timeout_s = 20,
         .catches = "Range ignored (200 with the whole file); off-by-one slices; a wrong "
                    "Content-Range",
         .how = "GETs a 10000-byte file with bytes=0-0, 100-199, 9990-, -25 and 5000-20000; "
                "each must be 206 with the exact slice and Content-Range");

/* ---- F8 ---------------------------------------------------------------------- */

static bool two_digits(const char *s, int *out)
{
    if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9') return false;
    *out = (s[0] - '0') * 10 + (s[1] - '0');
    return true;
}

/* Seconds since the epoch of an RFC 3339 date-time (any offset, optional
 * fraction, which is dropped); false when t is not one. */
static bool rfc3339_seconds(const char *t, long long *out)
{
    int c, y2, mo, d, h, mi, se, oh = 0, om = 0;
    if (!t || strlen(t) < 20 || !two_digits(t, &c) || !two_digits(t + 2, &y2) || t[4] != '-' ||
        !two_digits(t + 5, &mo) || t[7] != '-' || !two_digits(t + 8, &d) || !strchr("Tt ", t[10]) ||
        !two_digits(t + 11, &h) || t[13] != ':' || !two_digits(t + 14, &mi) || t[16] != ':' ||
        !two_digits(t + 17, &se))
        return false;
    const char *p = t + 19;
    if (*p == '.') {
        if (p[1] < '0' || p[1] > '9') return false;
        for (p++; *p >= '0' && *p <= '9'; p++) {
        }
    }
    int sign = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p == '+' ? 1 : -1;
        if (!two_digits(p + 1, &oh) || p[3] != ':' || !two_digits(p + 4, &om)) return false;
        p += 6;
    } else {
        return false;
    }
    if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
    /* Days from the civil date (proleptic Gregorian). */
    long long y = c * 100 + y2 - (mo <= 2);
    long long era = y / 400, yoe = y - era * 400;
    long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    *out = days * 86400 + h * 3600 + mi * 60 + se - sign * (oh * 3600 + om * 60);
    return true;
}

static void list_contents(struct case_ctx *ctx)
{
    put_rel(ctx, "L/b.txt", "bb", 2);
    put_rel(ctx, "L/a.bin", "a", 1);
    put_rel(ctx, "L/sub/x", "xyz", 3);
    put_rel(ctx, "L/empty-file", "", 0);
    put_rel(ctx, "L/.hidden", "hid", 3);
    if (case_failed(ctx)) return;
    /* A known modification time: 2011-05-06T07:08:09Z. */
    char why[200];
    int touch_rc = conf_sh(ctx, "TZ=UTC0 touch -t 201105060708.09 L/b.txt", NULL, why, sizeof why);
    bool touched = touch_rc == 0;
    /* The mtime is the only way to know what modified_at must say: without
     * Execute (P1) that check cannot be made, which is the runtime's fault. */
    if (touch_rc < 0)
        case_fail(ctx, "Execute (P1) runs touch -t to set a known modification time", "%s", why);
    char *p = rx_path(ctx, "L");
    json_t *listing = p ? rx_list(ctx, p) : NULL;
    if (listing) {
        CASE_CHECK(ctx, listing_size(listing) == 5,
                   "exactly 5 entries (.hidden a.bin b.txt empty-file sub)", "%zu entries",
                   listing_size(listing));
        static const struct {
            const char *name, *type;
            long long size;
        } want[] = {{"a.bin", "file", 1},
                    {"b.txt", "file", 2},
                    {"empty-file", "file", 0},
                    {".hidden", "file", 3},
                    {"sub", "directory", -1}};
        for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
            const json_t *e = listing_entry(listing, want[i].name);
            if (!CASE_CHECK(ctx, e != NULL, "an entry per child", "no entry %s", want[i].name))
                continue;
            const char *t = entry_type(e);
            CASE_CHECK(ctx, t && strcmp(t, want[i].type) == 0, "the entry's type",
                       "%s has type %s, expected %s", want[i].name, t ? t : "(none)", want[i].type);
            if (want[i].size >= 0) {
                json_int_t sz = json_integer_value(json_object_get(e, "size"));
                CASE_CHECK(ctx, sz == want[i].size, "the file's size", "%s has size %lld",
                           want[i].name, (long long)sz);
            }
        }
        const char *mt =
            json_string_value(json_object_get(listing_entry(listing, "b.txt"), "modified_at"));
        long long secs = 0;
        if (touched)
            CASE_CHECK(ctx, rfc3339_seconds(mt, &secs) && secs == 1304665689,
                       "modified_at of b.txt equal to its mtime, 2011-05-06T07:08:09Z (any offset)",
                       "%s", mt ? mt : "(none)");
    }
    json_decref(listing);
    free(p);
    /* The root itself is a directory too; it holds the case directory. */
    char top[256];
    snprintf(top, sizeof top, "%.*s", (int)strcspn(case_dir(ctx), "/"), case_dir(ctx));
    listing = rx_list(ctx, "");
    if (listing) {
        const json_t *e = listing_entry(listing, top);
        const char *t = e ? entry_type(e) : NULL;
        CASE_CHECK(ctx, t && strcmp(t, "directory") == 0,
                   "the root's listing names the case directory's top component as a directory",
                   "%s", e ? "another type" : "no such entry");
    }
    json_decref(listing);
    if (touch_rc > 0 && !case_failed(ctx))
        case_skip(ctx, "touch -t failed in the runtime (%s): modified_at cannot be compared", why);
}
SBX_CASE(list_contents, .id = "F8-001",
         .title = "A directory listing names every child with its type and size, valid per the "
                  "schema",
         .clauses = "F8", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "listing fields missing or mistyped (times not RFC 3339, mode not octal, "
                    "sizes as strings); children missing (dot files) or invented; modified_at "
                    "not the modification time; the root itself not listable",
         .how = "creates four files (one a dot file) and a subdirectory, sets one file's mtime "
                "with TZ=UTC0 touch -t through Execute, GETs the directory and validates the "
                "body against the document's DirectoryListing (date-time, mode pattern, int64), "
                "the exact entries, types, sizes and that file's modified_at (any offset); then "
                "lists the root (/v1/files/) and finds the case directory's top component");

static void list_empty(struct case_ctx *ctx)
{
    char *p = rx_path(ctx, "E/");
    char *probe = rx_path(ctx, "E/.keep");
    /* Create the directory and empty it again. */
    if (probe && expect_put_ok(ctx, probe, "", 0, NULL)) {
        struct http_response r;
        if (rx_file(ctx, "DELETE", probe, NULL, &r)) {
            expect_status(ctx, &r, 204);
            http_response_free(&r);
        }
    }
    if (!case_failed(ctx) && p) {
        p[strlen(p) - 1] = '\0';
        struct http_response r;
        if (rx_file(ctx, "GET", p, NULL, &r)) {
            if (expect_status(ctx, &r, 200)) {
                expect_schema(ctx, &r, FILES_ROUTE, "GET");
                json_t *v = expect_json(ctx, &r);
                json_t *entries = json_object_get(v, "entries");
                CASE_CHECK(ctx, json_is_array(entries) && json_array_size(entries) == 0,
                           "\"entries\": [] for an empty directory", "%s", rx_preview(&r));
                json_decref(v);
            }
            http_response_free(&r);
        }
    }
    free(p);
    free(probe);
}
SBX_CASE(list_empty, .id = "F8-002", .title = "An empty directory lists as \"entries\": []",
         .clauses = "F8", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "\"entries\": null or a missing entries field for an empty directory",
         .how = "creates a directory, empties it, GETs it and requires entries to be an empty "
                "array");

static void list_symlinks_by_target(struct case_ctx *ctx)
{
    put_rel(ctx, "S/target.txt", "12345", 5);
    put_rel(ctx, "S/tdir/inner", "i", 1);
    if (case_failed(ctx)) return;
    if (!pu_sh_ok(ctx,
                  "cd S && ln -s target.txt link-file && ln -s tdir link-dir && "
                  "ln -s \"$PWD/target.txt\" link-abs",
                  "creating symlinks with ln -s", NULL))
        return;
    char *p = rx_path(ctx, "S");
    json_t *listing = p ? rx_list(ctx, p) : NULL;
    static const struct {
        const char *name, *type;
    } want[] = {{"link-file", "file"}, {"link-dir", "directory"}, {"link-abs", "file"}};
    for (size_t i = 0; listing && i < 3; i++) {
        const json_t *e = listing_entry(listing, want[i].name);
        if (!e) {
            case_fail(ctx, "symlinks inside the root listed", "no entry %s", want[i].name);
            continue;
        }
        const char *t = entry_type(e);
        CASE_CHECK(ctx, t && strcmp(t, want[i].type) == 0,
                   "a symlink reported by its target's type", "%s has type %s, expected %s",
                   want[i].name, t ? t : "(none)", want[i].type);
    }
    json_decref(listing);
    free(p);
}
SBX_CASE(list_symlinks_by_target, .id = "F8-003",
         .title = "Symlinks in a listing are reported by their target's type", .clauses = "F8",
         .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "type \"symlink\" (or \"file\" for a link to a directory)",
         .how = "creates relative links to a file and a directory and an absolute link to a "
                "file inside the root with ln -s through Execute; the listing must type them "
                "file, directory, file");

static void list_sorted_and_path(struct case_ctx *ctx)
{
    static const char *const names[] = {"zeta", "Alpha", "beta", "_u", "0num", "m-2", "m-10"};
    for (size_t i = 0; i < 7; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "O/%s", names[i]);
        put_rel(ctx, rel, "x", 1);
    }
    if (case_failed(ctx)) return;
    char *p = rx_path(ctx, "O");
    json_t *listing = p ? rx_list(ctx, p) : NULL;
    if (listing) {
        /* Sorted by name: byte order (the reference) or with letter case
         * folded; the contract does not fix the collation. */
        const json_t *entries = json_object_get(listing, "entries");
        const char *bytewise = NULL, *folded = NULL;
        for (size_t i = 1; i < json_array_size(entries); i++) {
            const char *a =
                json_string_value(json_object_get(json_array_get(entries, i - 1), "name"));
            const char *b = json_string_value(json_object_get(json_array_get(entries, i), "name"));
            if (!a || !b) continue;
            if (!bytewise && strcmp(a, b) > 0) bytewise = a;
            if (!folded && strcasecmp(a, b) > 0) folded = a;
        }
        if (bytewise && folded)
            case_fail(ctx, "entries sorted by name (byte order, or with letter case folded)",
                      "out of order in both: %s too early (byte order), %s too early (case "
                      "folded)",
                      bytewise, folded);
        const char *path = json_string_value(json_object_get(listing, "path"));
        char want[700];
        snprintf(want, sizeof want, "/%s", p);
        CASE_CHECK(ctx, path && strcmp(path, want) == 0,
                   "path: the requested path with a leading /", "path %s, expected %s",
                   path ? path : "(none)", want);
    }
    json_decref(listing);
    free(p);
}
SBX_CASE(list_sorted_and_path, .id = "F8-004",
         .title = "Listing entries are sorted by name and path has a leading slash",
         .clauses = "F8", .level = LEVEL_SHOULD, .tags = "files", .timeout_s = 20,
         .catches = "directory order (readdir) instead of sorted entries; path without the "
                    "leading slash",
         .how = "creates seven names in scrambled order, lists the directory and checks that "
                "the names are in byte order or in case-folded order, and path = \"/<case "
                "dir>/O\"");

/* ---- F9 ---------------------------------------------------------------------- */

static void head_probe(struct case_ctx *ctx)
{
    if (!put_rel(ctx, "H/file.txt", "hello", 5)) return;
    static const struct {
        const char *rel;
        long status;
    } probes[] = {{"H/file.txt", 200}, {"H", 200}, {"H/absent.txt", 404}, {"H/no/such/dir", 404}};
    for (size_t i = 0; i < 4; i++) {
        char *p = rx_path(ctx, probes[i].rel);
        struct http_response r;
        if (p && rx_file(ctx, "HEAD", p, NULL, &r)) {
            if (expect_status(ctx, &r, probes[i].status)) {
                expect_no_body(ctx, &r);
                expect_schema(ctx, &r, FILES_ROUTE, "HEAD");
            }
            http_response_free(&r);
        }
        free(p);
    }
    /* The root is a directory that always exists. */
    struct http_response rr;
    if (rx_send(ctx, NULL, "HEAD", "/v1/files/", NULL, 0, NULL, &rr)) {
        if (expect_status(ctx, &rr, 200)) expect_no_body(ctx, &rr);
        http_response_free(&rr);
    }
    /* HEAD of a file carries GET's Content-Type. */
    char *p = rx_path(ctx, "H/file.txt");
    /* Bodies on HEAD, seen on the wire (libcurl drops them unseen). */
    if (p) {
        char *target = rest_files_target(p);
        head_wire_check(ctx, target);
        free(target);
    }
    struct http_response g, h;
    if (p && rx_file(ctx, "GET", p, NULL, &g)) {
        if (rx_file(ctx, "HEAD", p, NULL, &h)) {
            CASE_CHECK(ctx,
                       g.content_type && h.content_type &&
                           same_media_type(g.content_type, h.content_type),
                       "HEAD with the Content-Type of GET", "GET %s, HEAD %s",
                       g.content_type ? g.content_type : "(none)",
                       h.content_type ? h.content_type : "(none)");
            http_response_free(&h);
        }
        http_response_free(&g);
    }
    free(p);
}
SBX_CASE(head_probe, .id = "F9-001",
         .title = "HEAD answers 200 for a file or directory and 404 for an absent path, "
                  "without a body",
         .clauses = "F9", .level = LEVEL_MUST, .tags = "files", .timeout_s = 20,
         .catches = "HEAD answering 200 for absent paths; bodies on HEAD (also ones sent after "
                    "the header block, which an HTTP client library discards); headers unlike "
                    "GET's",
         .how = "HEADs a file, a directory, the root, an absent file and an absent nested path; "
                "checks status, that no body arrives and that the file's Content-Type equals "
                "GET's; then HEADs the file on a bare keep-alive connection: no byte may follow "
                "the header block within 300 ms, and if the connection stays open a second "
                "request on it must be answered with a clean status line");
