/* M3, M4: what /v1/metadata serves.
 *
 * Attach mode cannot know the runtime's prefix, so there the cases check
 * what holds for any prefix: the body's shape, that every served pair is
 * really in the runtime's environment (read with Execute `env`), and that
 * no name with a credential marker is served. Launch mode knows the
 * environment it planted and the default prefix SANDBOX_, and checks the
 * exact set. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"
#include "common/rest_expect.h"

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
    struct proc_result r;
    if (!pu_sh_ok(ctx, "env", "Execute env", &r)) {
        proc_result_free(&r);
        return NULL;
    }
    char *out = malloc(r.out_len + 2);
    if (out) {
        out[0] = '\n';
        memcpy(out + 1, r.out, r.out_len);
        out[r.out_len + 1] = '\0';
    }
    proc_result_free(&r);
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
    for (void *it = json_object_iter(env); real && it; it = json_object_iter_next(env, it)) {
        const char *name = json_object_iter_key(it);
        const char *value = json_string_value(json_object_iter_value(it));
        /* Variables of the Execute call itself are not the daemon's. */
        CASE_CHECK(ctx, value && env_has(real, name, value),
                   "every served variable present with that value in the runtime's environment",
                   "%s=%s is not in the environment processes see", name, value ? value : "?");
        if (case_launch_mode(ctx))
            CASE_CHECK(ctx, strncmp(name, "SANDBOX_", 8) == 0,
                       "only names with the prefix SANDBOX_ (launched with the default)",
                       "%s served", name);
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
                    "without the SANDBOX_ prefix",
         .how = "GETs /v1/metadata, validates it against the document's MetadataResponse and "
                "compares every pair with the runtime's environment read by Execute env");

static void metadata_exact_set(struct case_ctx *ctx)
{
    const char *const *planted = case_planted_env(ctx);
    if (!planted) {
        case_skip(ctx, "needs launch mode");
        return;
    }
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
        bool prefixed = strncmp(name, "SANDBOX_", 8) == 0;
        if (!prefixed) {
            CASE_CHECK(ctx, v == NULL, "names without the prefix never served", "%s served", name);
        } else if (marker_in(name, MUST_MARKERS)) {
            CASE_CHECK(ctx, v == NULL, "names with a credential marker never served", "%s served",
                       name);
        } else if (!marker_in(name, SHOULD_MARKERS)) {
            const char *s = json_string_value(v);
            CASE_CHECK(ctx, s && strcmp(s, eq + 1) == 0,
                       "every planted SANDBOX_ variable without a marker served with its value",
                       "%s: %s (planted '%s')", name, s ? s : "absent", eq + 1);
        }
    }
    for (void *it = json_object_iter(env); it; it = json_object_iter_next(env, it)) {
        const char *name = json_object_iter_key(it);
        CASE_CHECK(ctx, strncmp(name, "SANDBOX_", 8) == 0, "only names with the prefix SANDBOX_",
                   "%s served", name);
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
                "it launched: SANDBOX_ names without markers present with exact values (empty "
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
    unsigned n = 0;
    for (const char *const *p = planted; p && *p; p++)
        if (strncmp(*p, "SANDBOX_", 8) == 0 && marker_in(*p, list)) n++;
    if (planted)
        case_note(ctx, "%u planted SANDBOX_ names carry these markers", n);
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
