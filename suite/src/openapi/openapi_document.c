/* SPDX-License-Identifier: Apache-2.0 */
/* The OpenAPI document: loading it (file or string), its routes under
 * every server's base path, the shared and contract documents, and $ref
 * resolution. */
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

#include "data_dir.h"
#include "openapi_yaml.h"

/* The path part of a server URL, its {variables} replaced by their
 * defaults, without a trailing slash: "http://localhost:8080/v1" -> "/v1",
 * "/api/{version}" with default "v2" -> "/api/v2", "http://h:1" -> "". */
static void server_base(const json_t *server, char *out, size_t len)
{
    const char *url = json_string_value(json_object_get(server, "url"));
    const json_t *vars = json_object_get(server, "variables");
    char full[1024];
    size_t o = 0;
    for (const char *p = url ? url : ""; *p && o + 1 < sizeof full;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (close) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(close - p - 1), p + 1);
            const char *def =
                json_string_value(json_object_get(json_object_get(vars, name), "default"));
            o += (size_t)snprintf(full + o, sizeof full - o, "%s", def ? def : "");
            if (o >= sizeof full) o = sizeof full - 1;
            p = close + 1;
        } else {
            full[o++] = *p++;
        }
    }
    full[o] = '\0';
    const char *path = full;
    const char *scheme = strstr(full, "://");
    if (scheme) {
        path = strchr(scheme + 3, '/');
        if (!path) path = "";
    }
    size_t n = strcspn(path, "?#");
    while (n > 0 && path[n - 1] == '/')
        n--;
    snprintf(out, len, "%s%.*s", n && path[0] != '/' ? "/" : "", (int)n, path);
}

static void add_bases(json_t *bases, const json_t *servers)
{
    for (size_t i = 0; i < json_array_size(servers); i++) {
        char base[1024];
        server_base(json_array_get(servers, i), base, sizeof base);
        bool seen = false;
        for (size_t k = 0; k < json_array_size(bases); k++)
            if (strcmp(json_string_value(json_array_get(bases, k)), base) == 0) seen = true;
        if (!seen) json_array_append_new(bases, json_string(base));
    }
    if (json_array_size(bases) == 0) json_array_append_new(bases, json_string(""));
}

/* OpenAPI 3.0 section 4.7.9: each path is appended to a server URL; a path
 * item may carry its own servers, and may be a $ref to another. */
static void build_routes(struct openapi_doc *doc)
{
    add_bases(doc->bases, json_object_get(doc->root, "servers"));
    json_t *paths = json_object_get(doc->root, "paths");
    const char *key;
    json_t *item;
    json_object_foreach(paths, key, item)
    {
        const json_t *resolved = openapi_deref(doc, item, NULL, "");
        if (!json_is_object(resolved) || key[0] != '/') continue;
        const json_t *own = json_object_get(resolved, "servers");
        json_t *bases = doc->bases;
        json_t *item_bases = NULL;
        if (json_array_size(own) > 0) {
            item_bases = json_array();
            add_bases(item_bases, own);
            bases = item_bases;
        }
        for (size_t i = 0; i < json_array_size(bases); i++) {
            char *route = NULL;
            if (asprintf(&route, "%s%s", json_string_value(json_array_get(bases, i)), key) < 0)
                continue;
            if (!json_object_get(doc->routes, route))
                json_object_set(doc->routes, route, (json_t *)resolved);
            free(route);
        }
        json_decref(item_bases);
    }
}

static struct openapi_doc *from_root(json_t *root, char *err, size_t errlen)
{
    if (!root) return NULL;
    const char *ver = json_string_value(json_object_get(root, "openapi"));
    if (!json_is_object(root) || !ver || strncmp(ver, "3.0.", 4) != 0) {
        snprintf(err, errlen, "not an OpenAPI 3.0 document (openapi: %s)", ver ? ver : "missing");
        json_decref(root);
        return NULL;
    }
    if (!json_is_object(json_object_get(root, "paths"))) {
        snprintf(err, errlen, "OpenAPI document has no paths");
        json_decref(root);
        return NULL;
    }
    struct openapi_doc *doc = calloc(1, sizeof *doc);
    if (!doc) {
        snprintf(err, errlen, "out of memory");
        json_decref(root);
        return NULL;
    }
    doc->root = root;
    doc->any_schema = json_object();
    doc->routes = json_object();
    doc->bases = json_array();
    build_routes(doc);
    return doc;
}

struct openapi_doc *openapi_load(const char *path, char *err, size_t errlen)
{
    return from_root(yaml_load_file(path, err, errlen), err, errlen);
}

struct openapi_doc *openapi_load_string(const char *yaml, size_t len, char *err, size_t errlen)
{
    return from_root(yaml_load_string(yaml, len, err, errlen), err, errlen);
}

void openapi_free(struct openapi_doc *doc)
{
    if (!doc) return;
    json_decref(doc->routes);
    json_decref(doc->bases);
    json_decref(doc->root);
    json_decref(doc->any_schema);
    free(doc);
}

const json_t *openapi_root(const struct openapi_doc *doc)
{
    return doc->root;
}

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static char *explicit_path;
static struct openapi_doc *shared_doc;
static char shared_err[2048];
static bool shared_tried;

void openapi_set_path(const char *path)
{
    pthread_mutex_lock(&shared_lock);
    free(explicit_path);
    explicit_path = path ? strdup(path) : NULL;
    openapi_free(shared_doc);
    shared_doc = NULL;
    shared_tried = false;
    pthread_mutex_unlock(&shared_lock);
}

const char *openapi_path(void)
{
    if (explicit_path) return explicit_path;
    const char *env = getenv("SBX_OPENAPI");
    if (env && *env) return env;
    return openapi_contract_path();
}

const char *openapi_contract_path(void)
{
    static _Thread_local char in_data_dir[4096];
    return data_dir_file("openapi/sandboxd.yaml", in_data_dir, sizeof in_data_dir);
}

/* The routes the cases check; a document describing none of them cannot be
 * what the user meant to validate against. */
static const char *const suite_routes[] = {"/v1/files/{path}", "/v1/health", "/v1/metadata", NULL};

static struct openapi_doc *contract_doc;
static char contract_err[512];
static bool contract_tried;

const struct openapi_doc *openapi_contract(char *err, size_t errlen)
{
    pthread_mutex_lock(&shared_lock);
    if (!contract_tried) {
        contract_tried = true;
        contract_doc = openapi_load(openapi_contract_path(), contract_err, sizeof contract_err);
    }
    const struct openapi_doc *doc = contract_doc;
    if (!doc) snprintf(err, errlen, "the contract's OpenAPI document: %s", contract_err);
    pthread_mutex_unlock(&shared_lock);
    return doc;
}

bool openapi_shared_is_contract(void)
{
    char a[PATH_MAX], b[PATH_MAX];
    const char *p = openapi_path();
    if (strcmp(p, openapi_contract_path()) == 0) return true;
    return realpath(p, a) && realpath(openapi_contract_path(), b) && strcmp(a, b) == 0;
}

const struct openapi_doc *openapi_shared(char *err, size_t errlen)
{
    pthread_mutex_lock(&shared_lock);
    if (!shared_tried) {
        shared_tried = true;
        shared_doc = openapi_load(openapi_path(), shared_err, sizeof shared_err);
        char why[1500];
        if (shared_doc && !openapi_describes_any(shared_doc, suite_routes, why, sizeof why)) {
            snprintf(shared_err, sizeof shared_err, "%s: %s", openapi_path(), why);
            openapi_free(shared_doc);
            shared_doc = NULL;
        }
    }
    const struct openapi_doc *doc = shared_doc;
    if (!doc) snprintf(err, errlen, "OpenAPI document: %s", shared_err);
    pthread_mutex_unlock(&shared_lock);
    return doc;
}

/* Follows a local JSON pointer ("#/components/schemas/Error"). */
static const json_t *pointer(const json_t *root, const char *ref)
{
    if (strncmp(ref, "#/", 2) != 0) return NULL;
    const json_t *node = root;
    const char *p = ref + 2;
    char part[256];
    while (node && *p) {
        size_t n = strcspn(p, "/");
        if (n >= sizeof part) return NULL;
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1')) {
                part[o++] = p[i + 1] == '0' ? '~' : '/';
                i++;
            } else {
                part[o++] = p[i];
            }
        }
        part[o] = '\0';
        if (json_is_object(node))
            node = json_object_get(node, part);
        else if (json_is_array(node)) {
            char *end;
            unsigned long idx = strtoul(part, &end, 10);
            node = *end ? NULL : json_array_get(node, idx);
        } else
            node = NULL;
        p += n;
        if (*p == '/') p++;
    }
    return node;
}

/* Resolves $ref chains; NULL (and a finding when out is given) if broken. */
const json_t *openapi_deref(const struct openapi_doc *doc, const json_t *node,
                            struct openapi_violations *out, const char *where)
{
    for (int i = 0; i < SCHEMA_MAX_DEPTH && json_is_object(node); i++) {
        const char *ref = json_string_value(json_object_get(node, "$ref"));
        if (!ref) return node;
        const json_t *target = pointer(doc->root, ref);
        if (!target) {
            if (out)
                openapi_finding_add(out, "%s: the document's $ref %s does not resolve", where, ref);
            return NULL;
        }
        node = target;
    }
    if (json_is_object(node) && json_object_get(node, "$ref")) {
        if (out) openapi_finding_add(out, "%s: $ref chain too long in the document", where);
        return NULL;
    }
    return node;
}
