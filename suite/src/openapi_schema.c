/* The OpenAPI document and schema validation (see openapi_schema.h). */
#include "openapi_schema.h"

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

/* $ref chains and nesting deeper than this are reported, not followed. */
#define SCHEMA_MAX_DEPTH 48

struct openapi_doc {
    json_t *root;
    json_t *any_schema; /* {}: for a media type documented without a schema */
    /* Every path item under every server's base path: "/v1" + "/files/{path}"
     * gives "/v1/files/{path}" (the suite matches request paths as sent). */
    json_t *routes;
    json_t *bases; /* the distinct base paths, "" for a server at the root */
};

/* ---- Findings ---------------------------------------------------------- */

static void add(struct openapi_violations *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add(struct openapi_violations *out, const char *fmt, ...)
{
    if (out->count == OPENAPI_MAX_VIOLATIONS) {
        out->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    if (s)
        out->items[out->count++] = s;
    else
        out->dropped++;
}

static size_t total(const struct openapi_violations *v)
{
    return v->count + v->dropped;
}

void openapi_violations_free(struct openapi_violations *v)
{
    for (size_t i = 0; i < v->count; i++)
        free(v->items[i]);
    v->count = 0;
    v->dropped = 0;
}

char *openapi_violations_join(const struct openapi_violations *v)
{
    size_t len = 1;
    for (size_t i = 0; i < v->count; i++)
        len += strlen(v->items[i]) + 2;
    len += 40;
    char *s = malloc(len);
    if (!s) return NULL;
    s[0] = '\0';
    for (size_t i = 0; i < v->count; i++) {
        if (i) strcat(s, "; ");
        strcat(s, v->items[i]);
    }
    if (v->dropped) snprintf(s + strlen(s), 40, "; and %zu more", v->dropped);
    return s;
}

/* Moves the findings of src into dst. */
static void merge(struct openapi_violations *dst, struct openapi_violations *src)
{
    for (size_t i = 0; i < src->count; i++) {
        if (dst->count < OPENAPI_MAX_VIOLATIONS)
            dst->items[dst->count++] = src->items[i];
        else {
            free(src->items[i]);
            dst->dropped++;
        }
    }
    dst->dropped += src->dropped;
    src->count = 0;
    src->dropped = 0;
}

/* ---- Rendering ----------------------------------------------------------- */

/* A short rendering of a value for messages: strings in single quotes. */
static void render(const json_t *v, char *buf, size_t len)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        size_t o = 0;
        if (len < 8) {
            buf[0] = '\0';
            return;
        }
        buf[o++] = '\'';
        for (size_t i = 0; i < n && o + 6 < len; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c < 0x20 || c == 0x7f)
                o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
            else
                buf[o++] = (char)c;
            if (i + 1 < n && o + 6 >= len) {
                memcpy(buf + o, "...", 3);
                o += 3;
                break;
            }
        }
        buf[o++] = '\'';
        buf[o] = '\0';
        return;
    }
    char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!d) {
        snprintf(buf, len, "?");
        return;
    }
    if (strlen(d) >= len && len > 4)
        snprintf(buf, len, "%.*s...", (int)(len - 4), d);
    else
        snprintf(buf, len, "%s", d);
    free(d);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        return "null";
    }
    return "?";
}

/* Appends ".name" or "[\"name\"]" / "[i]" to a JSON path. */
static void path_key(char *dst, size_t len, const char *base, const char *key)
{
    bool ident = (isalpha((unsigned char)key[0]) || key[0] == '_');
    for (const char *p = key; *p && ident; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') ident = false;
    if (ident)
        snprintf(dst, len, "%s.%s", base, key);
    else
        snprintf(dst, len, "%s[\"%s\"]", base, key);
}

/* ---- Formats --------------------------------------------------------------- */

static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static int days_in_month(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return days[m - 1];
}

/* full-date = YYYY-MM-DD with a real calendar day. */
static bool rfc3339_date(const char *s)
{
    int y, mo, d;
    if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
        !digits(s + 8, 2, &d))
        return false;
    return mo >= 1 && mo <= 12 && d >= 1 && d <= days_in_month(y, mo);
}

/* RFC 3339 section 5.6 date-time: full-date "T" partial-time time-offset,
 * with "T" and "Z" in either case (5.6 note), seconds 00-60. */
bool openapi_is_rfc3339_datetime(const char *s)
{
    if (strlen(s) < 20 || !rfc3339_date(s) || (s[10] != 'T' && s[10] != 't')) return false;
    const char *t = s + 11;
    int h, mi, sec;
    if (!digits(t, 2, &h) || t[2] != ':' || !digits(t + 3, 2, &mi) || t[5] != ':' ||
        !digits(t + 6, 2, &sec))
        return false;
    if (h > 23 || mi > 59 || sec > 60) return false;
    const char *p = t + 8;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if ((*p == 'Z' || *p == 'z') && p[1] == '\0') return true;
    if (*p != '+' && *p != '-') return false;
    int oh, om;
    if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || p[6] != '\0')
        return false;
    return oh <= 23 && om <= 59;
}

/* ---- The document ---------------------------------------------------------- */

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

static const json_t *deref(const struct openapi_doc *doc, const json_t *node,
                           struct openapi_violations *out, const char *where);

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
        const json_t *resolved = deref(doc, item, NULL, "");
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
static const json_t *deref(const struct openapi_doc *doc, const json_t *node,
                           struct openapi_violations *out, const char *where)
{
    for (int i = 0; i < SCHEMA_MAX_DEPTH && json_is_object(node); i++) {
        const char *ref = json_string_value(json_object_get(node, "$ref"));
        if (!ref) return node;
        const json_t *target = pointer(doc->root, ref);
        if (!target) {
            if (out) add(out, "%s: the document's $ref %s does not resolve", where, ref);
            return NULL;
        }
        node = target;
    }
    if (json_is_object(node) && json_object_get(node, "$ref")) {
        if (out) add(out, "%s: $ref chain too long in the document", where);
        return NULL;
    }
    return node;
}

/* ---- Validation ------------------------------------------------------------ */

static void validate(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                     const char *path, struct openapi_violations *out, int depth);

static bool is_integral(const json_t *v)
{
    if (json_is_integer(v)) return true;
    if (!json_is_real(v)) return false;
    double d = json_real_value(v);
    return isfinite(d) && floor(d) == d && fabs(d) < 9.2e18;
}

static bool type_ok(const char *type, const json_t *v)
{
    if (strcmp(type, "string") == 0) return json_is_string(v);
    if (strcmp(type, "integer") == 0) return is_integral(v);
    if (strcmp(type, "number") == 0) return json_is_number(v);
    if (strcmp(type, "boolean") == 0) return json_is_boolean(v);
    if (strcmp(type, "array") == 0) return json_is_array(v);
    if (strcmp(type, "object") == 0) return json_is_object(v);
    return true; /* unknown type names constrain nothing */
}

static double number_of(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

static size_t utf8_length(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) count++;
    return count;
}

static void check_format(const char *format, const json_t *v, const char *path,
                         struct openapi_violations *out)
{
    char shown[96];
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        bool has_nul = strlen(s) != json_string_length(v);
        if (strcmp(format, "date-time") == 0 && (has_nul || !openapi_is_rfc3339_datetime(s))) {
            render(v, shown, sizeof shown);
            add(out, "%s: %s is not an RFC 3339 date-time", path, shown);
        } else if (strcmp(format, "date") == 0 &&
                   (has_nul || strlen(s) != 10 || !rfc3339_date(s))) {
            render(v, shown, sizeof shown);
            add(out, "%s: %s is not an RFC 3339 full-date", path, shown);
        }
        return;
    }
    if (!is_integral(v)) return;
    if (strcmp(format, "int32") == 0) {
        double d = number_of(v);
        if (d < (double)INT32_MIN || d > (double)INT32_MAX) {
            render(v, shown, sizeof shown);
            add(out, "%s: %s is outside int32", path, shown);
        }
    }
    /* int64: jansson holds integers as long long, so every integer fits. */
}

static void check_string(const json_t *schema, const json_t *v, const char *path,
                         struct openapi_violations *out)
{
    char shown[96];
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    const json_t *min = json_object_get(schema, "minLength");
    const json_t *max = json_object_get(schema, "maxLength");
    size_t chars = utf8_length(s, n);
    if (json_is_integer(min) && (json_int_t)chars < json_integer_value(min)) {
        render(v, shown, sizeof shown);
        add(out, "%s: %s is shorter than %lld characters", path, shown,
            (long long)json_integer_value(min));
    }
    if (json_is_integer(max) && (json_int_t)chars > json_integer_value(max)) {
        render(v, shown, sizeof shown);
        add(out, "%s: %s is longer than %lld characters", path, shown,
            (long long)json_integer_value(max));
    }
    const char *pattern = json_string_value(json_object_get(schema, "pattern"));
    if (pattern) {
        regex_t re;
        if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
            add(out, "%s: the document's pattern %s is not a valid POSIX ERE", path, pattern);
            return;
        }
        /* An embedded NUL never matches: the pattern describes text. */
        bool ok = strlen(s) == n && regexec(&re, s, 0, NULL, 0) == 0;
        regfree(&re);
        if (!ok) {
            render(v, shown, sizeof shown);
            add(out, "%s: %s does not match the pattern %s", path, shown, pattern);
        }
    }
}

static void check_number(const json_t *schema, const json_t *v, const char *path,
                         struct openapi_violations *out)
{
    char shown[96];
    double d = number_of(v);
    const json_t *min = json_object_get(schema, "minimum");
    const json_t *max = json_object_get(schema, "maximum");
    bool xmin = json_is_true(json_object_get(schema, "exclusiveMinimum"));
    bool xmax = json_is_true(json_object_get(schema, "exclusiveMaximum"));
    if (json_is_number(min) && (xmin ? d <= number_of(min) : d < number_of(min))) {
        render(v, shown, sizeof shown);
        add(out, "%s: %s is below the %sminimum %g", path, shown, xmin ? "exclusive " : "",
            number_of(min));
    }
    if (json_is_number(max) && (xmax ? d >= number_of(max) : d > number_of(max))) {
        render(v, shown, sizeof shown);
        add(out, "%s: %s is above the %smaximum %g", path, shown, xmax ? "exclusive " : "",
            number_of(max));
    }
}

static void check_object(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                         const char *path, struct openapi_violations *out, int depth)
{
    char sub[512];
    const json_t *required = json_object_get(schema, "required");
    size_t i;
    const json_t *name;
    for (i = 0; i < json_array_size(required) && (name = json_array_get(required, i)); i++) {
        const char *key = json_string_value(name);
        if (key && !json_object_get(v, key))
            add(out, "%s: required field \"%s\" is missing", path, key);
    }
    const json_t *props = json_object_get(schema, "properties");
    const json_t *extra = json_object_get(schema, "additionalProperties");
    const char *key;
    const json_t *val;
    for (void *it = json_object_iter((json_t *)v);
         it && (key = json_object_iter_key(it)) && (val = json_object_iter_value(it));
         it = json_object_iter_next((json_t *)v, it)) {
        path_key(sub, sizeof sub, path, key);
        const json_t *ps = json_object_get(props, key);
        if (ps)
            validate(doc, ps, val, sub, out, depth + 1);
        else if (json_is_false(extra))
            add(out, "%s: field \"%s\" is not allowed (additionalProperties: false)", path, key);
        else if (json_is_object(extra))
            validate(doc, extra, val, sub, out, depth + 1);
    }
    const json_t *minp = json_object_get(schema, "minProperties");
    const json_t *maxp = json_object_get(schema, "maxProperties");
    if (json_is_integer(minp) && (json_int_t)json_object_size(v) < json_integer_value(minp))
        add(out, "%s: fewer than %lld fields", path, (long long)json_integer_value(minp));
    if (json_is_integer(maxp) && (json_int_t)json_object_size(v) > json_integer_value(maxp))
        add(out, "%s: more than %lld fields", path, (long long)json_integer_value(maxp));
}

static void check_array(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                        const char *path, struct openapi_violations *out, int depth)
{
    char sub[512];
    const json_t *items = json_object_get(schema, "items");
    size_t n = json_array_size(v);
    if (json_is_object(items))
        for (size_t i = 0; i < n; i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            validate(doc, items, json_array_get(v, i), sub, out, depth + 1);
        }
    const json_t *mini = json_object_get(schema, "minItems");
    const json_t *maxi = json_object_get(schema, "maxItems");
    if (json_is_integer(mini) && (json_int_t)n < json_integer_value(mini))
        add(out, "%s: fewer than %lld items", path, (long long)json_integer_value(mini));
    if (json_is_integer(maxi) && (json_int_t)n > json_integer_value(maxi))
        add(out, "%s: more than %lld items", path, (long long)json_integer_value(maxi));
    if (json_is_true(json_object_get(schema, "uniqueItems")))
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (json_equal(json_array_get(v, i), json_array_get(v, j))) {
                    add(out, "%s: items %zu and %zu are equal (uniqueItems)", path, i, j);
                    return;
                }
}

/* allOf: every part; anyOf: at least one; oneOf: exactly one; not: none. */
static void check_combinators(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                              const char *path, struct openapi_violations *out, int depth)
{
    size_t i;
    const json_t *part;
    const json_t *all = json_object_get(schema, "allOf");
    for (i = 0; i < json_array_size(all) && (part = json_array_get(all, i)); i++)
        validate(doc, part, v, path, out, depth + 1);

    const char *names[] = {"anyOf", "oneOf"};
    for (int k = 0; k < 2; k++) {
        const json_t *list = json_object_get(schema, names[k]);
        if (!json_is_array(list) || json_array_size(list) == 0) continue;
        size_t passed = 0;
        struct openapi_violations first = {0};
        for (i = 0; i < json_array_size(list) && (part = json_array_get(list, i)); i++) {
            struct openapi_violations tmp = {0};
            validate(doc, part, v, path, &tmp, depth + 1);
            if (total(&tmp) == 0)
                passed++;
            else if (total(&first) == 0)
                merge(&first, &tmp);
            openapi_violations_free(&tmp);
        }
        if (passed == 0) {
            add(out, "%s: matches none of the %s alternatives", path, names[k]);
            merge(out, &first);
        } else if (k == 1 && passed > 1) {
            add(out, "%s: matches %zu oneOf alternatives, not exactly one", path, passed);
        }
        openapi_violations_free(&first);
    }
    const json_t *not = json_object_get(schema, "not");
    if (json_is_object(not )) {
        struct openapi_violations tmp = {0};
        validate(doc, not, v, path, &tmp, depth + 1);
        if (total(&tmp) == 0) add(out, "%s: matches a schema it must not match", path);
        openapi_violations_free(&tmp);
    }
}

static void validate(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                     const char *path, struct openapi_violations *out, int depth)
{
    char shown[96];
    if (depth > SCHEMA_MAX_DEPTH) {
        add(out, "%s: nested too deeply to validate", path);
        return;
    }
    schema = deref(doc, schema, out, path);
    if (!json_is_object(schema)) return;

    const char *type = json_string_value(json_object_get(schema, "type"));
    if (json_is_null(v)) {
        if (json_is_true(json_object_get(schema, "nullable"))) return;
        if (type) {
            add(out, "%s: null where %s %s is required", path,
                strchr("aeiou", type[0]) ? "an" : "a", type);
            return;
        }
    }
    if (type && !type_ok(type, v)) {
        render(v, shown, sizeof shown);
        add(out, "%s: %s is %s %s, not %s %s", path, shown,
            strchr("aeiou", type_name(v)[0]) ? "an" : "a", type_name(v),
            strchr("aeiou", type[0]) ? "an" : "a", type);
        return;
    }

    const json_t *en = json_object_get(schema, "enum");
    if (json_is_array(en)) {
        bool found = false;
        size_t i;
        const json_t *opt;
        for (i = 0; i < json_array_size(en) && (opt = json_array_get(en, i)); i++) {
            /* Integral reals compare equal to integers. */
            if (json_equal(opt, v) ||
                (json_is_number(opt) && json_is_number(v) && number_of(opt) == number_of(v)))
                found = true;
        }
        if (!found) {
            render(v, shown, sizeof shown);
            char *allowed = json_dumps(en, JSON_COMPACT);
            add(out, "%s: %s is not one of %s", path, shown, allowed ? allowed : "the enum");
            free(allowed);
        }
    }

    const char *format = json_string_value(json_object_get(schema, "format"));
    if (format) check_format(format, v, path, out);
    if (json_is_string(v))
        check_string(schema, v, path, out);
    else if (json_is_number(v))
        check_number(schema, v, path, out);
    else if (json_is_object(v))
        check_object(doc, schema, v, path, out, depth);
    else if (json_is_array(v))
        check_array(doc, schema, v, path, out, depth);
    check_combinators(doc, schema, v, path, out, depth);
}

size_t openapi_validate_node(const struct openapi_doc *doc, const json_t *schema,
                             const json_t *instance, struct openapi_violations *out)
{
    size_t before = total(out);
    validate(doc, schema, instance, "$", out, 0);
    return total(out) - before;
}

size_t openapi_validate_schema(const struct openapi_doc *doc, const char *schema_name,
                               const json_t *instance, struct openapi_violations *out)
{
    const json_t *schema = openapi_schema_named(doc, schema_name);
    if (!schema) {
        add(out, "the OpenAPI document has no schema %s", schema_name);
        return 1;
    }
    return openapi_validate_node(doc, schema, instance, out);
}

/* ---- Routes and responses ----------------------------------------------------- */

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
    return r ? deref(doc, r, NULL, "") : NULL;
}

const json_t *openapi_response(const struct openapi_doc *doc, const char *route, const char *method,
                               long status)
{
    const char *key = route ? openapi_find_route(doc, route) : NULL;
    const json_t *item = key ? json_object_get(doc->routes, key) : NULL;
    if (!item)
        return status == 404 ? deref(doc, json_object_get(doc->root, "x-unknown-route"), NULL, "")
                             : NULL;
    char m[16];
    size_t i = 0;
    for (; method[i] && i + 1 < sizeof m; i++)
        m[i] = (char)tolower((unsigned char)method[i]);
    m[i] = '\0';
    const json_t *op = json_object_get(item, m);
    if (!op) {
        if (status == 405) return deref(doc, json_object_get(item, "x-other-methods"), NULL, "");
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
            const json_t *r = deref(doc, json_object_get(responses, key), NULL, "");
            if (openapi_response_has_content(r)) return r;
        }
        const json_t *other = deref(doc, json_object_get(item, "x-other-methods"), NULL, "");
        if (status == 405 && other) return other;
    }
    if (status == 404) return deref(doc, json_object_get(doc->root, "x-unknown-route"), NULL, "");
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
            return s ? deref(doc, s, NULL, "") : doc->any_schema;
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
    size_t before = total(out);
    const json_t *resp = openapi_response(doc, route, method, status);
    if (!resp) {
        add(out, "status %ld is not documented for %s %s", status, method,
            route ? route : "(unknown route)");
        return total(out) - before;
    }
    if (!openapi_response_has_content(resp)) {
        if (body_len > 0)
            add(out, "%ld response to %s %s carries a %zu-byte body where none is documented",
                status, method, route ? route : "(unknown route)", body_len);
        return total(out) - before;
    }
    if (!content_type) {
        add(out, "%ld response to %s has no Content-Type", status, method);
        return total(out) - before;
    }
    const json_t *schema = openapi_response_schema(doc, resp, content_type);
    if (!schema) {
        add(out, "Content-Type %s is not documented for a %ld response to %s %s", content_type,
            status, method, route ? route : "(unknown route)");
        return total(out) - before;
    }
    char base[128];
    media_base(content_type, base, sizeof base);
    if (!is_json_media(base)) return total(out) - before;
    json_error_t jerr;
    json_t *v = json_loadb(body ? body : "", body_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!v) {
        add(out, "%ld response body is not valid JSON: %s (at byte %d)", status, jerr.text,
            jerr.position);
        return total(out) - before;
    }
    validate(doc, schema, v, "$", out, 0);
    json_decref(v);
    return total(out) - before;
}
