/* SPDX-License-Identifier: Apache-2.0 */
/* Routes and responses: matching request paths to the document's routes
 * and validating a response against what the document says of it. */
#include "openapi_internal.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether a concrete path matches a template. A {param} matches one segment,
 * or, when it ends the template, the whole rest (slashes included, also empty). */
static bool route_matches(const char *tmpl, const char *path)
{
    while (*tmpl) {
        if (*tmpl == '{') {
            const char *close = strchr(tmpl, '}');
            if (!close) return false;
            tmpl = close + 1;
            if (*tmpl == '\0') return true;
            size_t seg = strcspn(path, "/");
            if (seg == 0) return false;
            path += seg;
            continue;
        }
        if (*tmpl != *path) return false;
        tmpl++;
        path++;
    }
    return *path == '\0';
}

/* Whether two templates are the same route whatever their parameters are
 * called ("/v1/files/{path}" and "/v1/files/{filePath}"). */
static bool same_template(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a == '{' && *b == '{') {
            const char *ca = strchr(a, '}'), *cb = strchr(b, '}');
            if (!ca || !cb) return false;
            a = ca + 1;
            b = cb + 1;
            continue;
        }
        if (*a != *b) return false;
        a++;
        b++;
    }
    return *a == *b;
}

const char *openapi_find_route(const struct openapi_doc *doc, const char *tmpl)
{
    if (!tmpl) return NULL;
    void *exact = json_object_iter_at(doc->routes, tmpl);
    if (exact) return json_object_iter_key(exact);
    for (void *it = json_object_iter(doc->routes); it; it = json_object_iter_next(doc->routes, it))
        if (same_template(json_object_iter_key(it), tmpl)) return json_object_iter_key(it);
    return NULL;
}

bool openapi_describes_any(const struct openapi_doc *doc, const char *const *tmpls, char *err,
                           size_t errlen)
{
    for (size_t i = 0; tmpls[i]; i++)
        if (openapi_find_route(doc, tmpls[i])) return true;
    size_t o = (size_t)snprintf(err, errlen, "it describes none of the routes the suite checks (");
    for (size_t i = 0; tmpls[i] && o < errlen; i++)
        o += (size_t)snprintf(err + o, errlen - o, "%s%s", i ? ", " : "", tmpls[i]);
    if (o < errlen) o += (size_t)snprintf(err + o, errlen - o, "); under its server base path");
    for (size_t i = 0; i < json_array_size(doc->bases) && o < errlen; i++) {
        const char *b = json_string_value(json_array_get(doc->bases, i));
        o += (size_t)snprintf(err + o, errlen - o, "%s%s%s%s", i ? ", " : "s ", *b ? "" : "\"",
                              *b ? b : "", *b ? "" : "\"");
    }
    if (o < errlen) o += (size_t)snprintf(err + o, errlen - o, " its routes are: ");
    size_t n = 0;
    for (void *it = json_object_iter(doc->routes); it && o < errlen && n < 12;
         it = json_object_iter_next(doc->routes, it), n++)
        o += (size_t)snprintf(err + o, errlen - o, "%s%s", n ? ", " : "", json_object_iter_key(it));
    if (n == 0 && o < errlen) snprintf(err + o, errlen - o, "(none)");
    return false;
}

const json_t *openapi_schema_named(const struct openapi_doc *doc, const char *name)
{
    return json_object_get(json_object_get(json_object_get(doc->root, "components"), "schemas"),
                           name);
}

const char *openapi_match_route(const struct openapi_doc *doc, const char *request_path)
{
    size_t plen = strcspn(request_path, "?#");
    char *path = strndup(request_path, plen);
    if (!path) return NULL;
    const char *found = NULL;
    /* Literal routes win over templated ones. */
    json_t *paths = doc->routes;
    for (void *it = json_object_iter(paths); it; it = json_object_iter_next(paths, it)) {
        const char *tmpl = json_object_iter_key(it);
        if (route_matches(tmpl, path) && (!found || !strchr(tmpl, '{'))) found = tmpl;
    }
    free(path);
    return found;
}

static const json_t *lookup_status(const struct openapi_doc *doc, const json_t *responses,
                                   long status)
{
    char key[32];
    snprintf(key, sizeof key, "%ld", status);
    const json_t *r = json_object_get(responses, key);
    if (!r) {
        snprintf(key, sizeof key, "%ldXX", status / 100);
        r = json_object_get(responses, key);
    }
    if (!r) r = json_object_get(responses, "default");
    return r ? openapi_deref(doc, r, NULL, "") : NULL;
}

const json_t *openapi_response(const struct openapi_doc *doc, const char *route, const char *method,
                               long status)
{
    const char *key = route ? openapi_find_route(doc, route) : NULL;
    const json_t *item = key ? json_object_get(doc->routes, key) : NULL;
    if (!item)
        return status == 404
                   ? openapi_deref(doc, json_object_get(doc->root, "x-unknown-route"), NULL, "")
                   : NULL;
    char m[16];
    size_t i = 0;
    for (; method[i] && i + 1 < sizeof m; i++)
        m[i] = (char)tolower((unsigned char)method[i]);
    m[i] = '\0';
    const json_t *op = json_object_get(item, m);
    if (!op) {
        if (status == 405)
            return openapi_deref(doc, json_object_get(item, "x-other-methods"), NULL, "");
        return NULL;
    }
    return lookup_status(doc, json_object_get(op, "responses"), status);
}

const json_t *openapi_error_response(const struct openapi_doc *doc, long status)
{
    if (status < 400) return NULL;
    json_t *paths = doc->routes;
    for (void *it = json_object_iter(paths); it; it = json_object_iter_next(paths, it)) {
        json_t *item = json_object_iter_value(it);
        for (void *m = json_object_iter(item); m; m = json_object_iter_next(item, m)) {
            const json_t *responses = json_object_get(json_object_iter_value(m), "responses");
            char key[32];
            snprintf(key, sizeof key, "%ld", status);
            const json_t *r = openapi_deref(doc, json_object_get(responses, key), NULL, "");
            if (openapi_response_has_content(r)) return r;
        }
        const json_t *other =
            openapi_deref(doc, json_object_get(item, "x-other-methods"), NULL, "");
        if (status == 405 && other) return other;
    }
    if (status == 404)
        return openapi_deref(doc, json_object_get(doc->root, "x-unknown-route"), NULL, "");
    return NULL;
}

static void media_base(const char *content_type, char *buf, size_t len)
{
    size_t n = 0;
    const char *p = content_type;
    while (*p == ' ')
        p++;
    while (*p && *p != ';' && *p != ' ' && n + 1 < len)
        buf[n++] = (char)tolower((unsigned char)*p++);
    buf[n] = '\0';
}

const json_t *openapi_response_schema(const struct openapi_doc *doc, const json_t *response,
                                      const char *content_type)
{
    const json_t *content = json_object_get(response, "content");
    if (!content_type) return NULL;
    char want[128];
    media_base(content_type, want, sizeof want);
    const char *key;
    const json_t *media;
    for (void *it = json_object_iter((json_t *)content);
         it && (key = json_object_iter_key(it)) && (media = json_object_iter_value(it));
         it = json_object_iter_next((json_t *)content, it)) {
        if (strcasecmp(key, want) == 0) {
            const json_t *s = json_object_get(media, "schema");
            /* A documented media type without a schema accepts anything. */
            return s ? openapi_deref(doc, s, NULL, "") : doc->any_schema;
        }
    }
    return NULL;
}

bool openapi_response_has_content(const json_t *response)
{
    return json_object_size(json_object_get(response, "content")) > 0;
}

static bool is_json_media(const char *base)
{
    size_t n = strlen(base);
    return strcmp(base, "application/json") == 0 || (n > 5 && strcmp(base + n - 5, "+json") == 0);
}

size_t openapi_validate_response(const struct openapi_doc *doc, const char *route,
                                 const char *method, long status, const char *content_type,
                                 const char *body, size_t body_len, struct openapi_violations *out)
{
    size_t before = openapi_findings_total(out);
    const json_t *resp = openapi_response(doc, route, method, status);
    if (!resp) {
        openapi_finding_add(out, "status %ld is not documented for %s %s", status, method,
                            route ? route : "(unknown route)");
        return openapi_findings_total(out) - before;
    }
    if (!openapi_response_has_content(resp)) {
        if (body_len > 0)
            openapi_finding_add(
                out, "%ld response to %s %s carries a %zu-byte body where none is documented",
                status, method, route ? route : "(unknown route)", body_len);
        return openapi_findings_total(out) - before;
    }
    if (!content_type) {
        openapi_finding_add(out, "%ld response to %s has no Content-Type", status, method);
        return openapi_findings_total(out) - before;
    }
    const json_t *schema = openapi_response_schema(doc, resp, content_type);
    if (!schema) {
        openapi_finding_add(out, "Content-Type %s is not documented for a %ld response to %s %s",
                            content_type, status, method, route ? route : "(unknown route)");
        return openapi_findings_total(out) - before;
    }
    char base[128];
    media_base(content_type, base, sizeof base);
    if (!is_json_media(base)) return openapi_findings_total(out) - before;
    json_error_t jerr;
    json_t *v = json_loadb(body ? body : "", body_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!v) {
        openapi_finding_add(out, "%ld response body is not valid JSON: %s (at byte %d)", status,
                            jerr.text, jerr.position);
        return openapi_findings_total(out) - before;
    }
    openapi_validate_at(doc, schema, v, "$", out, 0);
    json_decref(v);
    return openapi_findings_total(out) - before;
}
