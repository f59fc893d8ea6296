/* SPDX-License-Identifier: Apache-2.0 */
/* M3, M4: what /v1/metadata serves.
 *
 * Attach mode cannot know the runtime's prefix, so there the cases check
 * what holds for any prefix: the body's shape, that every served pair is
 * really in the runtime's environment (read with Execute `env`), and that
 * no name with a credential marker is served. Launch mode knows the
 * environment it planted and the prefix (the default SANDBOX_, or what the
 * launch command gives --metadata-env-prefix, see meta_prefix.h), and checks
 * the exact set. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_util.h"
#include "common/proc_util.h"
#include "common/rest_expect.h"
#include "metadata/meta_prefix.h"

static const char *const MUST_MARKERS[] = {"TOKEN",      "SECRET", "PASSWORD",
                                           "CREDENTIAL", "KEY",    NULL};
static const char *const SHOULD_MARKERS[] = {"PASSWD",  "CRED", "AUTH", "BEARER",
                                             "PRIVATE", "CERT", NULL};

/* The marker of the list contained in name (any letter case), or NULL. */
static const char *marker_in(const char *name, const char *const *list)
{
    char up[512];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof up; n++)
        up[n] = (char)toupper((unsigned char)name[n]);
    up[n] = '\0';
    for (const char *const *m = list; *m; m++)
        if (strstr(up, *m)) return *m;
    return NULL;
}

/* GET /v1/metadata validated against the document; returns the env object
 * (owned by *body). */
static json_t *get_env(struct case_ctx *ctx, json_t **body)
{
    struct http_response r;
    *body = NULL;
    if (!rx_send(ctx, NULL, "GET", "/v1/metadata", NULL, 0, NULL, &r)) return NULL;
    if (expect_status(ctx, &r, 200) && expect_schema(ctx, &r, "/v1/metadata", "GET"))
        *body = expect_json(ctx, &r);
    http_response_free(&r);
    json_t *env = json_object_get(*body, "env");
    return json_is_object(env) ? env : NULL;
}

/* The runtime's own environment as its processes see it ("NAME=value\n"...). */
static char *runtime_env(struct case_ctx *ctx)
{
    struct rpc_result r;
    if (!pu_sh_ok(ctx, "env", "Execute env", &r)) {
        rpc_result_free(&r);
        return NULL;
    }
    char *out = malloc(r.out_len + 2);
    if (out) {
        out[0] = '\n';
        memcpy(out + 1, r.out, r.out_len);
        out[r.out_len + 1] = '\0';
    }
    rpc_result_free(&r);
    return out;
}

static bool env_has(const char *env, const char *name, const char *value)
{
    char *line = NULL;
    if (asprintf(&line, "\n%s=%s\n", name, value) < 0) return false;
    bool found = strstr(env, line) != NULL;
    free(line);
    return found;
}

static void metadata_served_from_env(struct case_ctx *ctx)
{
    json_t *body;
    json_t *env = get_env(ctx, &body);
    if (!env) {
        if (!case_failed(ctx)) case_fail(ctx, "{\"env\": {...}}", "no env object");
        json_decref(body);
        return;
    }
    char *real = runtime_env(ctx);
    const char *prefix = meta_launch_prefix(ctx);
    for (void *it = json_object_iter(env); real && it; it = json_object_iter_next(env, it)) {
        const char *name = json_object_iter_key(it);
        const char *value = json_string_value(json_object_iter_value(it));
        /* Variables of the Execute call itself are not the daemon's. */
        CASE_CHECK(ctx, value && env_has(real, name, value),
                   "every served variable present with that value in the runtime's environment",
                   "%s=%s is not in the environment processes see", name, value ? value : "?");
        if (case_launch_mode(ctx))
            CASE_CHECK(ctx, strncmp(name, prefix, strlen(prefix)) == 0,
                       "only names with the runtime's prefix (launch mode)",
                       "%s served (prefix %s)", name, prefix);
    }
    if (!case_launch_mode(ctx))
        case_note(ctx, "attach mode: the runtime's prefix is unknown, so names are checked "
                       "against its environment, not against SANDBOX_");
    free(real);
    json_decref(body);
}
SBX_CASE(metadata_served_from_env, .id = "M3-001",
         .title = "/v1/metadata answers {\"env\": {...}} with variables of the runtime's "
                  "environment",
         .clauses = "M3", .level = LEVEL_MUST, .tags = "metadata", .timeout_s = 20,
         .catches = "env as null or another shape; invented values; in launch mode names "
                    "without the prefix",
         .how = "GETs /v1/metadata, validates it against the document's MetadataResponse and "
                "compares every pair with the runtime's environment read by Execute env");

static void metadata_exact_set(struct case_ctx *ctx)
{
    const char *const *planted = case_planted_env(ctx);
    if (!planted) {
        case_skip(ctx, "needs launch mode");
        return;
    }
    const char *prefix = meta_launch_prefix(ctx);
    size_t plen = strlen(prefix);
    json_t *body;
    json_t *env = get_env(ctx, &body);
    if (!env) {
        if (!case_failed(ctx)) case_fail(ctx, "{\"env\": {...}}", "no env object");
        json_decref(body);
        return;
    }
    for (const char *const *p = planted; *p; p++) {
        const char *eq = strchr(*p, '=');
        if (!eq) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - *p), *p);
        const json_t *v = json_object_get(env, name);
        bool prefixed = strncmp(name, prefix, plen) == 0;
        if (!prefixed) {
            CASE_CHECK(ctx, v == NULL, "names without the prefix never served", "%s served", name);
        } else if (marker_in(name, MUST_MARKERS)) {
            CASE_CHECK(ctx, v == NULL, "names with a credential marker never served", "%s served",
                       name);
        } else if (!marker_in(name, SHOULD_MARKERS)) {
            const char *s = json_string_value(v);
            CASE_CHECK(ctx, s && strcmp(s, eq + 1) == 0,
                       "every planted variable with the prefix and without a marker served with "
                       "its value",
                       "%s: %s (planted '%s')", name, s ? s : "absent", eq + 1);
        }
    }
    for (void *it = json_object_iter(env); it; it = json_object_iter_next(env, it)) {
        const char *name = json_object_iter_key(it);
        CASE_CHECK(ctx, strncmp(name, prefix, plen) == 0, "only names with the prefix",
                   "%s served (prefix %s)", name, prefix);
    }
    json_decref(body);
}
SBX_CASE(metadata_exact_set, .id = "M3-002",
         .title = "/v1/metadata serves exactly the prefixed, non-secret planted variables",
         .clauses = "M3,M4", .level = LEVEL_MUST, .tags = "metadata", .needs = NEEDS_LAUNCH,
         .timeout_s = 20,
         .catches = "the whole environment served; prefixed variables missing or with other "
                    "values",
         .how = "compares the served env with the variables the suite planted for the runtime "
                "it launched: names with the prefix (SANDBOX_, or the launch command's "
                "--metadata-env-prefix) and without markers present with exact values (empty "
                "values too), others absent");

static void metadata_empty_object(struct case_ctx *ctx)
{
    /* An instance whose environment holds no variable with the prefix. */
    struct private_runtime_opts o = {.no_planted_env = true};
    struct private_runtime *rt = case_runtime_start(ctx, &o);
    if (!rt) return;
    struct http_response r;
    if (rx_send(ctx, private_runtime_rest_addr(rt), "GET", "/v1/metadata", NULL, 0, NULL, &r)) {
        if (expect_status(ctx, &r, 200) && expect_schema(ctx, &r, "/v1/metadata", "GET")) {
            json_t *v = expect_json(ctx, &r);
            json_t *env = json_object_get(v, "env");
            CASE_CHECK(ctx, json_is_object(env) && json_object_size(env) == 0,
                       "\"env\": {} when nothing matches the prefix", "%s", rx_preview(&r));
            json_decref(v);
        }
        http_response_free(&r);
    }
    private_runtime_stop(rt);
}
SBX_CASE(metadata_empty_object, .id = "M3-003",
         .title = "With nothing to serve, env is {} (not null)", .clauses = "M3",
         .level = LEVEL_MUST, .tags = "metadata", .needs = NEEDS_LAUNCH, .timeout_s = 30,
         .catches = "\"env\": null or a missing env for an empty set",
         .how = "starts a private instance whose environment holds no data variables (only "
                "PATH, HOME and tooling settings), so nothing carries the prefix, and "
                "requires {\"env\": {}}");

static void check_markers(struct case_ctx *ctx, const char *const *list, const char *what)
{
    json_t *body;
    json_t *env = get_env(ctx, &body);
    for (void *it = json_object_iter(env); it; it = json_object_iter_next(env, it)) {
        const char *name = json_object_iter_key(it);
        const char *m = marker_in(name, list);
        CASE_CHECK(ctx, m == NULL, what, "%s served (contains %s)", name, m);
    }
    if (!env && !case_failed(ctx)) case_fail(ctx, "{\"env\": {...}}", "no env object");
    const char *const *planted = case_planted_env(ctx);
    const char *prefix = meta_launch_prefix(ctx);
    unsigned n = 0;
    for (const char *const *p = planted; p && *p; p++)
        if (strncmp(*p, prefix, strlen(prefix)) == 0 && marker_in(*p, list)) n++;
    if (planted)
        case_note(ctx, "%u planted names with the prefix %s carry these markers", n, prefix);
    else
        case_note(ctx, "attach mode: only the names the runtime happens to have are checked");
    json_decref(body);
}

static void metadata_no_credentials(struct case_ctx *ctx)
{
    check_markers(ctx, MUST_MARKERS,
                  "no name containing TOKEN, SECRET, PASSWORD, CREDENTIAL or KEY in any case");
}
SBX_CASE(metadata_no_credentials, .id = "M4-001",
         .title = "Names with TOKEN, SECRET, PASSWORD, CREDENTIAL or KEY (any case) are never "
                  "served",
         .clauses = "M4", .level = LEVEL_MUST, .tags = "metadata", .timeout_s = 20,
         .catches = "credential variables leaked; markers matched case-sensitively "
                    "(SANDBOX_db_Password served)",
         .how = "GETs /v1/metadata and checks every served name case-insensitively for the "
                "markers; in launch mode the runtime holds planted names with each marker in "
                "mixed case");

static void metadata_no_extended_markers(struct case_ctx *ctx)
{
    check_markers(ctx, SHOULD_MARKERS,
                  "no name containing PASSWD, CRED, AUTH, BEARER, PRIVATE or CERT in any case");
}
SBX_CASE(metadata_no_extended_markers, .id = "M4-002",
         .title = "Names with PASSWD, CRED, AUTH, BEARER, PRIVATE or CERT are not served",
         .clauses = "M4", .level = LEVEL_SHOULD, .tags = "metadata", .timeout_s = 20,
         .catches = "only the five core markers filtered (SANDBOX_AUTH_HEADER served)",
         .how = "as M4-001 with the reference's extended marker list");

/* ---- M3-004: the exact set with awkward names and values ----------------- */

#define TRICKY_NUMBERED 30
#define TRICKY_LONG_LEN 8192

struct tricky_var {
    char *name;  /* malloc'd */
    char *value; /* malloc'd */
    bool served;
};

static void tricky_add(struct tricky_var *v, size_t *n, char *name, const char *value, bool served)
{
    v[*n] = (struct tricky_var){.name = name, .value = conf_xstrdup(value), .served = served};
    (*n)++;
}

/* The variables M3-004 plants, for the prefix p: values that need JSON
 * escaping, contain '=' or are long, many names, and names that only look
 * prefixed (another letter case, the prefix inside the name, the prefix
 * without its last character). Returns the count. */
static size_t tricky_vars(const char *p, struct tricky_var *v)
{
    size_t n = 0;
    tricky_add(v, &n, conf_xasprintf("%sEQ", p), "a=b==c=", true);
    tricky_add(v, &n, conf_xasprintf("%sQUOTES", p), "say \"hi\" \\ back\\\\slash / {}[],:", true);
    tricky_add(v, &n, conf_xasprintf("%sCONTROL", p), "line1\nline2\ttab\rend\x01", true);
    tricky_add(v, &n, conf_xasprintf("%sUTF8", p),
               "gr\xc3\xbc\xc3\x9f"
               "e \xe2\x9c\x93 \xf0\x9f\x8c\x8d",
               true);
    tricky_add(v, &n, conf_xasprintf("%sSPACES", p), "  padded  ", true);
    tricky_add(v, &n, conf_xasprintf("%sMixed_Case_name", p), "kept", true);
    char *long_value = conf_xmalloc(TRICKY_LONG_LEN + 1);
    for (size_t i = 0; i < TRICKY_LONG_LEN; i++)
        long_value[i] = (char)('a' + (i * 7) % 26);
    long_value[TRICKY_LONG_LEN] = '\0';
    tricky_add(v, &n, conf_xasprintf("%sLONG", p), long_value, true);
    free(long_value);
    for (int i = 0; i < TRICKY_NUMBERED; i++) {
        char value[16];
        snprintf(value, sizeof value, "n%02d", i);
        tricky_add(v, &n, conf_xasprintf("%sN%02d", p, i), value, true);
    }
    /* M4 with this prefix: markers in mixed case are withheld. */
    tricky_add(v, &n, conf_xasprintf("%sdb_Password", p), "planted-secret", false);
    tricky_add(v, &n, conf_xasprintf("%sKeyring", p), "planted-secret", false);
    /* Not prefixed, though they look it. */
    char *lower = conf_xstrdup(p);
    bool differs = false;
    for (char *c = lower; *c; c++)
        if (*c != (char)tolower((unsigned char)*c)) {
            *c = (char)tolower((unsigned char)*c);
            differs = true;
        }
    if (differs) tricky_add(v, &n, conf_xasprintf("%sLOWER", lower), "unprefixed", false);
    free(lower);
    tricky_add(v, &n, conf_xasprintf("X_%sMID", p), "unprefixed", false);
    size_t plen = strlen(p);
    if (plen > 1)
        tricky_add(v, &n, conf_xasprintf("%.*sED", (int)(plen - 1), p), "unprefixed", false);
    return n;
}

static void metadata_tricky_set(struct case_ctx *ctx)
{
    if (!case_launch_mode(ctx)) {
        case_skip(ctx, "needs launch mode");
        return;
    }
    const char *prefix = meta_launch_prefix(ctx);
    struct tricky_var vars[TRICKY_NUMBERED + 16];
    size_t n = tricky_vars(prefix, vars);
    const char *env_list[TRICKY_NUMBERED + 17];
    for (size_t i = 0; i < n; i++)
        env_list[i] = conf_xasprintf("%s=%s", vars[i].name, vars[i].value);
    env_list[n] = NULL;
    struct private_runtime_opts o = {.no_planted_env = true, .extra_env = env_list};
    struct private_runtime *rt = case_runtime_start(ctx, &o);
    struct http_response r;
    if (rt &&
        rx_send(ctx, private_runtime_rest_addr(rt), "GET", "/v1/metadata", NULL, 0, NULL, &r)) {
        json_t *body = NULL;
        if (expect_status(ctx, &r, 200) && expect_schema(ctx, &r, "/v1/metadata", "GET"))
            body = expect_json(ctx, &r);
        json_t *env = json_object_get(body, "env");
        if (!json_is_object(env) && !case_failed(ctx))
            case_fail(ctx, "{\"env\": {...}}", "%s", rx_preview(&r));
        for (size_t i = 0; json_is_object(env) && i < n; i++) {
            const json_t *got = json_object_get(env, vars[i].name);
            if (!vars[i].served) {
                CASE_CHECK(ctx, got == NULL,
                           marker_in(vars[i].name, MUST_MARKERS)
                               ? "names with a credential marker never served"
                               : "only names that start with the prefix exactly (case-sensitive)",
                           "%s served (prefix %s)", vars[i].name, prefix);
                continue;
            }
            const char *s = json_string_value(got);
            size_t len = json_is_string(got) ? json_string_length(got) : 0;
            CASE_CHECK(ctx, s && len == strlen(vars[i].value) && memcmp(s, vars[i].value, len) == 0,
                       "every prefixed variable served under its full name with its exact value "
                       "(quotes, backslashes, control characters, UTF-8, '=', 8 KiB)",
                       "%s: %.60s%s", vars[i].name, s ? s : "(absent)",
                       s && strlen(s) > 60 ? "..." : "");
        }
        json_decref(body);
        http_response_free(&r);
    }
    private_runtime_stop(rt);
    for (size_t i = 0; i < n; i++) {
        free((char *)env_list[i]);
        free(vars[i].name);
        free(vars[i].value);
    }
}
SBX_CASE(metadata_tricky_set, .id = "M3-004",
         .title = "/v1/metadata serves awkward values exactly and only exactly-prefixed names",
         .clauses = "M3,M4", .level = LEVEL_MUST, .tags = "metadata", .needs = NEEDS_LAUNCH,
         .timeout_s = 30,
         .catches = "values cut at an '=' or not JSON-escaped (quotes, backslashes, control "
                    "characters), long values or many variables truncated; the prefix matched "
                    "case-insensitively or anywhere in the name, or without its last character",
         .how = "starts a private instance whose environment holds, besides PATH and HOME, "
                "prefixed names with such values (and 30 numbered ones), two with credential "
                "markers, and names that only look prefixed (lower case, X_<prefix>MID, the "
                "prefix minus its last character + ED); exactly the first kind must be served, "
                "each with its exact value");
