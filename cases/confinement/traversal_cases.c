/* SPDX-License-Identifier: Apache-2.0 */
/* Traversal cases over the corpus in traversal.yaml: each takes the vector
 * classes its clause speaks about and judges responses by that clause only
 * (the driver adds the checks every class shares: nothing outside the root
 * read, revealed, created, changed or removed). */
#include "case_api.h"
#include "common/conf_util.h"
#include "confinement/traversal.h"
#include "rest_client.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_head(const struct trav_obs *o)
{
    return strcmp(o->method, "HEAD") == 0;
}
static bool is_2xx(long s)
{
    return s >= 200 && s < 300;
}
static bool is_3xx(long s)
{
    return s >= 300 && s < 400;
}

static void add(struct sbuf *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct sbuf *pr, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (pr->len) sbuf_puts(pr, "; ");
    sbuf_puts(pr, buf);
}

/* status must be `want` with an Error body of `code` (HEAD: status only). */
static bool expect_error(const struct trav_obs *o, long want, const char *code, char *why,
                         size_t whylen)
{
    if (o->rc != 0) {
        snprintf(why, whylen, "no response (%s)", o->resp->error);
        return false;
    }
    if (o->resp->status != want) {
        snprintf(why, whylen, "status %ld, expected %ld %s", o->resp->status, want, code);
        return false;
    }
    if (is_head(o)) return true;
    char detail[200];
    if (!conf_error_body_ok(o->resp, code, detail, sizeof detail)) {
        snprintf(why, whylen, "%ld without a proper Error body: %s", want, detail);
        return false;
    }
    return true;
}

/* ---- S1: percent-encoded dot segments ------------------------------------ */

static void judge_s1_encoded(struct case_ctx *ctx, struct trav_run *run, const struct trav_obs *o,
                             struct sbuf *pr)
{
    (void)ctx;
    (void)run;
    char why[300];
    if (!expect_error(o, 403, "PERMISSION_DENIED", why, sizeof why)) add(pr, "%s", why);
}

static void s1_encoded(struct case_ctx *ctx)
{
    struct trav_opts o = {.classes = TC_BIT(TC_ESCAPE_ENCODED), .judge = judge_s1_encoded};
    trav_run_cases(ctx, &o);
}
SBX_CASE(s1_encoded, .id = "S1-001",
         .title = "Percent-encoded ../ out of the root answers 403 for every method",
         .clauses = "S1", .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 90,
         .catches = "percent-encoded dot segments (%2e%2e, %2E%2e, ..%2f, %2e%2e%2f, .%2e, mixed "
                    "case, long chains, dir/../..) resolved naively or by a prefix check, so a "
                    "request reads, lists, creates, overwrites or deletes outside the root, or "
                    "answers something other than 403 PERMISSION_DENIED",
         .how = "tries every escape-encoded vector of traversal.yaml with GET, HEAD, PUT and "
                "DELETE aimed at canaries planted through Execute in the root's parent and in "
                "/tmp (and at a sibling directory whose name extends the root's); each must answer "
                "403 with an Error body of code PERMISSION_DENIED, no body may carry canary "
                "content, and after each request Execute confirms every canary's content, mode "
                "and mtime and that no new name appeared outside");

/* ---- S1: raw ../ in the request line ------------------------------------- */

static void s1_raw_must(struct case_ctx *ctx)
{
    struct trav_opts o = {.classes = TC_BIT(TC_ESCAPE_RAW)};
    trav_run_cases(ctx, &o);
}
SBX_CASE(s1_raw_must, .id = "S1-002",
         .title = "Raw ../ in the request line never reaches outside the root", .clauses = "S1",
         .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 90,
         .catches = "raw dot segments joined onto the root without confinement: outside files "
                    "read, listed, created, overwritten or deleted",
         .how = "tries every escape-raw vector with GET, HEAD, PUT and DELETE aimed at canaries "
                "outside the root; any status is accepted (403, a redirect, 404), but no body may "
                "carry canary content or names, no 2xx may report a canary's size, and Execute "
                "must find every canary unchanged and no new name outside");

static void judge_s1_raw_should(struct case_ctx *ctx, struct trav_run *run,
                                const struct trav_obs *o, struct sbuf *pr)
{
    (void)run;
    char why[300];
    if (o->rc == 0 && is_3xx(o->resp->status)) {
        /* Where it leads is followed and checked by the driver; a
         * normalising redirect names a URL on the same server. */
        char *next = trav_redirect_target(case_rest_addr(ctx), o->target, o->resp, why, sizeof why);
        if (!next) add(pr, "%s", why);
        free(next);
        return;
    }
    if (!expect_error(o, 403, "PERMISSION_DENIED", why, sizeof why))
        add(pr, "%s (a redirect to the normalised URL would also do)", why);
}

static void s1_raw_should(struct case_ctx *ctx)
{
    struct trav_opts o = {.classes = TC_BIT(TC_ESCAPE_RAW), .judge = judge_s1_raw_should};
    trav_run_cases(ctx, &o);
}
SBX_CASE(s1_raw_should, .id = "S1-003",
         .title = "Raw ../ out of the root answers 403 (or a normalising redirect)",
         .clauses = "S1", .level = LEVEL_SHOULD, .tags = "files,traversal", .timeout_s = 90,
         .catches = "raw dot segments answered with 200, 404 or 500 instead of 403 "
                    "PERMISSION_DENIED or an RFC 3986 normalising redirect",
         .how = "tries every escape-raw vector with GET, HEAD, PUT and DELETE; each must answer "
                "403 with an Error body of code PERMISSION_DENIED, or any 3xx redirect (its "
                "Location is noted), besides leaving every canary outside intact");

/* ---- S1/F12/S8: look-alike names and in-root dot segments ----------------- */

static void judge_literal(struct case_ctx *ctx, struct trav_run *run, const struct trav_obs *o,
                          struct sbuf *pr)
{
    if (o->rc != 0 || !is_2xx(o->resp->status)) return;
    if ((strcmp(o->method, "GET") == 0 || is_head(o)) && trav_body_has_fixture(run, o->resp)) {
        add(pr, "%s",
            "the name was not taken literally: the body is another file of the case "
            "directory");
        return;
    }
    if (strcmp(o->method, "PUT") == 0) {
        char why[400];
        if (!trav_put_landed_literally(ctx, o, why, sizeof why))
            add(pr, "PUT answered 2xx but %s", why);
    }
}

static void judge_lookalike(struct case_ctx *ctx, struct trav_run *run, const struct trav_obs *o,
                            struct sbuf *pr)
{
    if (o->v->cls == TC_LITERAL) judge_literal(ctx, run, o, pr);
}

static void s1_lookalike(struct case_ctx *ctx)
{
    struct trav_opts o = {.classes = TC_BIT(TC_LITERAL) | TC_BIT(TC_INSIDE),
                          .judge = judge_lookalike};
    trav_run_cases(ctx, &o);
}
SBX_CASE(s1_lookalike, .id = "S1-004",
         .title = "Look-alike names (%252e%252e, ..., ..;) stay names inside the root",
         .clauses = "S1,F12", .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 90,
         .catches = "a path decoded twice (%252e%252e becoming ..), or look-alikes such as "
                    "\"...\", \".. \" or \"..;\" treated as dot segments, reaching canaries "
                    "outside the root; in-root dot segments that escape",
         .how = "tries every literal and inside vector with GET, HEAD, PUT and DELETE; nothing "
                "outside may change or leak; for literal vectors a 2xx GET must not return "
                "another file of the case directory and a 2xx PUT must have stored its body "
                "under the name decoded exactly once (checked through Execute)");

/* ---- S3: absolute-looking paths ------------------------------------------- */

static bool location_under_files(struct case_ctx *ctx, const struct trav_obs *o, char *why,
                                 size_t whylen)
{
    char *next = trav_redirect_target(case_rest_addr(ctx), o->target, o->resp, why, whylen);
    if (!next) return false;
    bool ok = strncmp(next, "/v1/files/", 10) == 0;
    if (!ok)
        snprintf(why, whylen, "redirect %ld to %s, not under /v1/files/", o->resp->status, next);
    free(next);
    return ok;
}

static void judge_absolute_inside(struct case_ctx *ctx, struct trav_run *run,
                                  const struct trav_obs *o, struct sbuf *pr)
{
    char why[400];
    const struct http_response *r = o->resp;
    if (o->rc != 0) {
        snprintf(why, sizeof why, "no response (%s)", r->error);
        add(pr, "%s", why);
        return;
    }
    if (is_3xx(r->status)) {
        if (!location_under_files(ctx, o, why, sizeof why)) add(pr, "%s", why);
        return;
    }
    const char *m = o->method;
    if (strcmp(m, "GET") == 0) {
        if (r->status != 200 || r->body_len != strlen(run->known) ||
            memcmp(r->body, run->known, r->body_len) != 0)
            add(pr, "%s",
                "the absolute-looking path of a file inside the root did not answer 200 with "
                "that file (nor redirect under /v1/files/): it was not resolved beneath the root");
    } else if (strcmp(m, "HEAD") == 0) {
        if (r->status != 200)
            add(pr, "%s",
                "HEAD of the absolute-looking path of a file inside the root did not answer 200 "
                "(nor redirect under /v1/files/)");
    } else if (strcmp(m, "PUT") == 0) {
        if (!is_2xx(r->status)) {
            add(pr, "%s",
                "PUT to an absolute-looking path inside the root did not succeed (nor redirect "
                "under /v1/files/)");
            return;
        }
        char *q = conf_sh_quote(o->in_name);
        char *script = conf_xasprintf("cat -- %s", q);
        char *out = NULL;
        char err[200];
        int rc = conf_sh(ctx, script, &out, err, sizeof err);
        if (rc != 0 || !out || strcmp(out, o->marker) != 0)
            add(pr, "PUT answered 2xx but the body is not at %s in the case directory", o->in_name);
        free(out);
        free(script);
        free(q);
    } else {
        if (!is_2xx(r->status)) {
            add(pr, "%s",
                "DELETE of an absolute-looking path inside the root did not succeed (nor "
                "redirect under /v1/files/)");
            return;
        }
        char *out = NULL;
        char err[200];
        int rc = conf_sh(ctx, "if [ -e known.txt ]; then echo present; fi", &out, err, sizeof err);
        if (rc != 0 || !out || strstr(out, "present"))
            add(pr, "%s", "DELETE answered 2xx but known.txt in the case directory is still there");
        free(out);
    }
}

static void judge_s3(struct case_ctx *ctx, struct trav_run *run, const struct trav_obs *o,
                     struct sbuf *pr)
{
    if (o->v->cls == TC_ABSOLUTE_INSIDE) {
        judge_absolute_inside(ctx, run, o, pr);
        return;
    }
    char why[300];
    if (o->rc == 0 && is_3xx(o->resp->status) && !location_under_files(ctx, o, why, sizeof why))
        add(pr, "%s", why);
}

static void s3_absolute(struct case_ctx *ctx)
{
    struct trav_opts o = {.classes = TC_BIT(TC_ABSOLUTE) | TC_BIT(TC_ABSOLUTE_INSIDE),
                          .judge = judge_s3};
    trav_run_cases(ctx, &o);
}
SBX_CASE(s3_absolute, .id = "S3-001",
         .title = "Absolute-looking paths (//x, %2Fx) resolve beneath the root, never on the host",
         .clauses = "S3", .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 90,
         .catches = "a leading / or %2F taken as a host path: the host's /etc/passwd or canaries "
                    "at their absolute paths read, written or deleted; a redirect that leaves "
                    "/v1/files/",
         .how = "absolute vectors name the host's /etc/passwd and the canaries' absolute paths "
                "(GET, HEAD; PUT and DELETE only at canaries): no body may carry their content, "
                "the canaries must stay intact and a redirect must stay under /v1/files/; "
                "absolute-inside vectors name a file of the case directory by its "
                "absolute-looking path and must reach it (GET 200 with its bytes, HEAD 200, PUT "
                "stores there, DELETE removes it) or redirect under /v1/files/");

/* ---- S8: odd and malformed paths -------------------------------------------- */

static void judge_s8_must(struct case_ctx *ctx, struct trav_run *run, const struct trav_obs *o,
                          struct sbuf *pr)
{
    if (o->rc != 0) {
        add(pr, "no response (%s): the request was not answered", o->resp->error);
        return;
    }
    if (o->v->cls == TC_BACKSLASH || o->v->cls == TC_OVERLONG_UTF8) judge_literal(ctx, run, o, pr);
}

static void s8_odd_must(struct case_ctx *ctx)
{
    struct trav_opts o = {.classes = TC_BIT(TC_BACKSLASH) | TC_BIT(TC_OVERLONG_UTF8) |
                                     TC_BIT(TC_NUL) | TC_BIT(TC_BAD_ENCODING) |
                                     TC_BIT(TC_OVERLONG_NAME) | TC_BIT(TC_OVERLONG_PATH),
                          .judge = judge_s8_must,
                          .health_after = true};
    trav_run_cases(ctx, &o);
}
SBX_CASE(s8_odd_must, .id = "S8-001",
         .title = "NUL, bad escapes, backslashes, overlong UTF-8 and overlong paths stay inside",
         .clauses = "S8", .level = LEVEL_MUST, .tags = "files,traversal,errors", .timeout_s = 90,
         .catches = "a backslash taken as a separator or an overlong UTF-8 sequence (%c0%ae, "
                    "%c0%af, %e0%80%ae) decoded to a dot or slash so a path escapes; a NUL that "
                    "truncates a path into an escape; malformed paths that crash or wedge the "
                    "daemon",
         .how = "tries every backslash, overlong-utf8, nul, bad-encoding, overlong-name and "
                "overlong-path vector with GET, HEAD, PUT and DELETE: each must be answered, "
                "/v1/health must answer 200 within 10 s afterwards, canaries outside must stay "
                "intact; for backslash and overlong UTF-8 a 2xx GET must not return another "
                "file of the case directory and a 2xx PUT must have stored its body under the "
                "literal name");

static void judge_s8_should(struct case_ctx *ctx, struct trav_run *run, const struct trav_obs *o,
                            struct sbuf *pr)
{
    (void)ctx;
    (void)run;
    char why[300];
    if (o->rc != 0) {
        add(pr, "no response (%s)", o->resp->error);
        return;
    }
    long s = o->resp->status;
    switch (o->v->cls) {
    case TC_NUL:
    case TC_BAD_ENCODING:
        if (o->v->raw && is_3xx(s)) return;
        if (o->v->escapes && s == 403) {
            if (!expect_error(o, 403, "PERMISSION_DENIED", why, sizeof why)) add(pr, "%s", why);
            return;
        }
        if (!expect_error(o, 400, "INVALID_ARGUMENT", why, sizeof why)) add(pr, "%s", why);
        return;
    case TC_OVERLONG_NAME:
    case TC_OVERLONG_PATH:
    case TC_BACKSLASH:
    case TC_OVERLONG_UTF8: {
        bool literal_ok = o->v->cls == TC_BACKSLASH || o->v->cls == TC_OVERLONG_UTF8;
        if (literal_ok && (is_2xx(s) || s == 404)) return;
        if (s < 400 || s >= 500) {
            snprintf(why, sizeof why, "status %ld, expected a 4xx Error%s", s,
                     literal_ok ? " (or the name taken literally)" : "");
            add(pr, "%s", why);
            return;
        }
        if (!is_head(o) &&
            !conf_error_body_ok(o->resp, conf_error_code_for_status(s), why, sizeof why))
            add(pr, "4xx without a proper Error body: %s", why);
        return;
    }
    default:
        return;
    }
}

static void s8_odd_should(struct case_ctx *ctx)
{
    struct trav_opts o = {.classes = TC_BIT(TC_BACKSLASH) | TC_BIT(TC_OVERLONG_UTF8) |
                                     TC_BIT(TC_NUL) | TC_BIT(TC_BAD_ENCODING) |
                                     TC_BIT(TC_OVERLONG_NAME) | TC_BIT(TC_OVERLONG_PATH),
                          .judge = judge_s8_should};
    trav_run_cases(ctx, &o);
}
SBX_CASE(s8_odd_should, .id = "S8-002",
         .title = "NUL and bad escapes answer 400; overlong names and paths a 4xx Error",
         .clauses = "S8", .level = LEVEL_SHOULD, .tags = "files,traversal,errors", .timeout_s = 90,
         .catches = "a NUL byte that truncates the path (known.txt%00.png served as known.txt), "
                    "invalid percent-encoding passed through, overlong names or paths answered "
                    "with 500 or success, backslash or overlong UTF-8 answered with 500",
         .how = "tries the same vectors as S8-001: NUL and invalid encoding must answer 400 "
                "INVALID_ARGUMENT (403 PERMISSION_DENIED also accepted where the vector escapes "
                "too; a redirect where it has raw dot segments); overlong names and paths a 4xx "
                "with an Error body; backslash and overlong UTF-8 either a literal name (2xx, "
                "404) or a 4xx Error, never 5xx");
