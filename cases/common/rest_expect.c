/* SPDX-License-Identifier: Apache-2.0 */
/* REST expectations shared by the cases (see rest_expect.h). */
#include "rest_expect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "openapi_schema.h"

/* ---- Requests ------------------------------------------------------------ */

bool rx_send(struct case_ctx *ctx, const char *addr, const char *method, const char *target,
             const void *body, size_t len, const char *const *headers, struct http_response *resp)
{
    if (body)
        case_request(ctx, "%s %s (%zu-byte body)", method, target, len);
    else
        case_request(ctx, "%s %s", method, target);
    struct http_request req = {
        .method = method, .target = target, .body = body, .body_len = len, .headers = headers};
    int rc = addr ? rest_do_at(addr, &req, resp) : rest_do(ctx, &req, resp);
    if (rc != 0) {
        case_fail(ctx, "an HTTP response", "no response: %s", resp->error);
        return false;
    }
    return true;
}

bool rx_file(struct case_ctx *ctx, const char *method, const char *relpath, const char *query,
             struct http_response *resp)
{
    char *base = rest_files_target(relpath);
    char *target = NULL;
    if (!base || asprintf(&target, "%s%s%s", base, query ? "?" : "", query ? query : "") < 0) {
        free(base);
        memset(resp, 0, sizeof *resp);
        case_error(ctx, "out of memory");
        return false;
    }
    free(base);
    bool ok = rx_send(ctx, NULL, method, target, NULL, 0, NULL, resp);
    free(target);
    return ok;
}

bool rx_put(struct case_ctx *ctx, const char *relpath, const void *data, size_t len,
            const char *query, struct http_response *resp)
{
    static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
    char *base = rest_files_target(relpath);
    char *target = NULL;
    if (!base || asprintf(&target, "%s%s%s", base, query ? "?" : "", query ? query : "") < 0) {
        free(base);
        memset(resp, 0, sizeof *resp);
        case_error(ctx, "out of memory");
        return false;
    }
    free(base);
    bool ok = rx_send(ctx, NULL, "PUT", target, data ? data : "", len, octet, resp);
    free(target);
    return ok;
}

char *rx_path(struct case_ctx *ctx, const char *rel)
{
    char *p = NULL;
    if (asprintf(&p, "%s%s%s", case_dir(ctx), rel && *rel ? "/" : "", rel ? rel : "") < 0)
        return NULL;
    return p;
}

/* ---- Statuses and bodies ---------------------------------------------------- */

const char *rx_preview(const struct http_response *resp)
{
    static __thread char buf[240];
    char *p = http_body_preview(resp, 200);
    snprintf(buf, sizeof buf, "%s", p ? p : "?");
    free(p);
    return buf;
}

char *rx_header(const struct http_response *resp, const char *name)
{
    return http_header(resp, name);
}

bool expect_status_in(struct case_ctx *ctx, const struct http_response *resp, const long *statuses)
{
    char want[128] = "";
    size_t o = 0;
    for (const long *s = statuses; *s; s++) {
        if (resp->status == *s) return true;
        o += (size_t)snprintf(want + o, sizeof want - o, "%s%ld", s == statuses ? "" : " or ", *s);
        if (o >= sizeof want) break;
    }
    char expected[160];
    snprintf(expected, sizeof expected, "status %s", want);
    if (resp->status == 0) /* no response at all: say what happened instead */
        case_fail(ctx, expected, "no response: %s", resp->error[0] ? resp->error : "(no error)");
    else
        case_fail(ctx, expected, "status %ld, body %s", resp->status, rx_preview(resp));
    return false;
}

bool expect_no_body(struct case_ctx *ctx, const struct http_response *resp)
{
    return CASE_CHECK(ctx, resp->body_len == 0, "an empty body", "a %zu-byte body: %s",
                      resp->body_len, rx_preview(resp));
}

static const struct openapi_doc *document(struct case_ctx *ctx)
{
    char err[600];
    const struct openapi_doc *doc = openapi_shared(err, sizeof err);
    if (!doc) case_error(ctx, "%s", err);
    return doc;
}

/* The contract's own document, where the suite validates against another
 * one (--openapi); NULL when they are the same or it cannot be loaded (then
 * nothing falls back and the document's silence stays a failure). */
static const struct openapi_doc *contract(void)
{
    if (openapi_shared_is_contract()) return NULL;
    char err[600];
    return openapi_contract(err, sizeof err);
}

static const char *route_name(const char *tmpl)
{
    return tmpl ? tmpl : "a path that matches no route";
}

static bool report(struct case_ctx *ctx, struct openapi_violations *v, const char *what)
{
    if (v->count == 0 && v->dropped == 0) return true;
    char *joined = openapi_violations_join(v);
    char expected[512];
    snprintf(expected, sizeof expected, "%s as the OpenAPI document describes it", what);
    case_fail(ctx, expected, "%s", joined ? joined : "violations");
    free(joined);
    openapi_violations_free(v);
    return false;
}

bool expect_schema(struct case_ctx *ctx, const struct http_response *resp, const char *route,
                   const char *method)
{
    const struct openapi_doc *doc = document(ctx);
    if (!doc) return false;
    const char *tmpl = strchr(route, '{') ? route : openapi_match_route(doc, route);
    const struct openapi_doc *judge = doc;
    if (!openapi_response(doc, tmpl, method, resp->status)) {
        /* The document is silent here; where the contract describes the
         * response, the runtime is judged by the contract and the silence is
         * the document's finding, not the runtime's failure. */
        const struct openapi_doc *c = contract();
        const char *ctmpl = !c ? NULL : strchr(route, '{') ? route : openapi_match_route(c, route);
        if (c && openapi_response(c, ctmpl, method, resp->status)) {
            case_doc_finding(ctx, "%s %s: status %ld is not described", method,
                             route_name(tmpl ? tmpl : ctmpl), resp->status);
            judge = c;
            tmpl = ctmpl;
        }
    }
    struct openapi_violations v = {0};
    openapi_validate_response(judge, tmpl, method, resp->status, resp->content_type, resp->body,
                              resp->body_len, &v);
    char what[200];
    snprintf(what, sizeof what, "a %ld response to %s %s", resp->status, method, route);
    return report(ctx, &v, what);
}

json_t *expect_json(struct case_ctx *ctx, const struct http_response *resp)
{
    char base[64] = "";
    if (resp->content_type) sscanf(resp->content_type, " %63[^; ]", base);
    if (strcasecmp(base, "application/json") != 0) {
        case_fail(ctx, "Content-Type application/json", "Content-Type %s, body %s",
                  resp->content_type ? resp->content_type : "(none)", rx_preview(resp));
        return NULL;
    }
    json_error_t err;
    json_t *v = json_loadb(resp->body ? resp->body : "", resp->body_len,
                           JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!v) case_fail(ctx, "a JSON body", "invalid JSON (%s): %s", err.text, rx_preview(resp));
    return v;
}

bool expect_valid(struct case_ctx *ctx, const char *schema_name, const json_t *value,
                  const char *what)
{
    const struct openapi_doc *doc = document(ctx);
    if (!doc) return false;
    const struct openapi_doc *c = contract();
    if (!openapi_schema_named(doc, schema_name) && c && openapi_schema_named(c, schema_name)) {
        case_doc_finding(ctx, "no schema %s is described", schema_name);
        doc = c;
    }
    struct openapi_violations v = {0};
    openapi_validate_schema(doc, schema_name, value, &v);
    char label[200];
    snprintf(label, sizeof label, "%s (schema %s)", what, schema_name);
    return report(ctx, &v, label);
}

bool expect_error_body(struct case_ctx *ctx, const struct http_response *resp, long http_status,
                       const char *code_or_null)
{
    char expected[160];
    snprintf(expected, sizeof expected, "status %ld with a JSON Error body%s%s", http_status,
             code_or_null ? " code " : "", code_or_null ? code_or_null : "");
    if (resp->status == 0) {
        case_fail(ctx, expected, "no response: %s", resp->error[0] ? resp->error : "(no error)");
        return false;
    }
    if (resp->status != http_status) {
        case_fail(ctx, expected, "status %ld, body %s", resp->status, rx_preview(resp));
        return false;
    }
    const struct openapi_doc *doc = document(ctx);
    if (!doc) return false;
    const json_t *documented = openapi_error_response(doc, http_status);
    const struct openapi_doc *c = documented ? NULL : contract();
    if (!documented && c && (documented = openapi_error_response(c, http_status))) {
        case_doc_finding(ctx, "no route describes an error response with status %ld", http_status);
        doc = c;
    }
    if (!documented) {
        case_error(ctx, "the OpenAPI document lists no error response for status %ld", http_status);
        return false;
    }
    json_t *body = expect_json(ctx, resp);
    if (!body) return false;
    bool ok = true;
    const json_t *schema = openapi_response_schema(doc, documented, "application/json");
    if (schema) {
        struct openapi_violations v = {0};
        openapi_validate_node(doc, schema, body, &v);
        char what[80];
        snprintf(what, sizeof what, "the Error body of a %ld response", http_status);
        ok = report(ctx, &v, what);
    }
    const char *code = json_string_value(json_object_get(body, "code"));
    if (code_or_null && (!code || strcmp(code, code_or_null) != 0)) {
        case_fail(ctx, expected, "code %s", code ? code : "(missing)");
        ok = false;
    }
    json_decref(body);
    return ok;
}

bool expect_error_body_any(struct case_ctx *ctx, const struct http_response *resp)
{
    if (resp->status < 400) return true;
    return expect_error_body(ctx, resp, resp->status, NULL);
}

/* ---- Files and listings ------------------------------------------------------ */

bool expect_put_ok(struct case_ctx *ctx, const char *relpath, const void *data, size_t len,
                   const char *query)
{
    struct http_response r;
    if (!rx_put(ctx, relpath, data, len, query, &r)) return false;
    bool ok = expect_status(ctx, &r, 204) && expect_no_body(ctx, &r);
    http_response_free(&r);
    return ok;
}

bool expect_file_content(struct case_ctx *ctx, const char *relpath, const void *data, size_t len)
{
    struct http_response r;
    if (!rx_file(ctx, "GET", relpath, NULL, &r)) return false;
    bool ok = expect_status(ctx, &r, 200);
    if (ok && (r.body_len != len || (len && memcmp(r.body, data, len) != 0))) {
        size_t i = 0;
        while (i < len && i < r.body_len && ((const char *)data)[i] == r.body[i])
            i++;
        case_fail(ctx, "the bytes written", "%zu bytes (expected %zu), first difference at %zu",
                  r.body_len, len, i);
        ok = false;
    }
    http_response_free(&r);
    return ok;
}

json_t *rx_list(struct case_ctx *ctx, const char *relpath)
{
    struct http_response r;
    if (!rx_file(ctx, "GET", relpath, NULL, &r)) return NULL;
    json_t *listing = NULL;
    if (expect_status(ctx, &r, 200) && expect_schema(ctx, &r, "/v1/files/{path}", "GET"))
        listing = expect_json(ctx, &r);
    if (listing && !json_is_array(json_object_get(listing, "entries"))) {
        /* The schema check fails such a listing; this guards callers. */
        json_decref(listing);
        listing = NULL;
        case_fail(ctx, "a DirectoryListing", "%s", rx_preview(&r));
    }
    http_response_free(&r);
    return listing;
}

const json_t *listing_entry(const json_t *listing, const char *name)
{
    const json_t *entries = json_object_get(listing, "entries");
    for (size_t i = 0; i < json_array_size(entries); i++) {
        const json_t *e = json_array_get(entries, i);
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && strcmp(n, name) == 0) return e;
    }
    return NULL;
}

size_t listing_size(const json_t *listing)
{
    return json_array_size(json_object_get(listing, "entries"));
}

const char *entry_type(const json_t *entry)
{
    return json_string_value(json_object_get(entry, "type"));
}
