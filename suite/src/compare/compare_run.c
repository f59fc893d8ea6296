/* SPDX-License-Identifier: Apache-2.0 */
/* Loading and checking a results document for `compare`. */
#include "compare_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const outcomes[] = {"pass", "fail", "timeout", "skip", "error", "not-run", NULL};
static const char *const statuses[] = {"pass",  "fail",    "timeout",       "skip",
                                       "error", "not-run", "expected-fail", "unexpected-pass",
                                       NULL};

static bool one_of(const char *s, const char *const *set)
{
    for (; s && *set; set++)
        if (strcmp(s, *set) == 0) return true;
    return false;
}

bool cmp_outcome_bad(const char *o)
{
    return o && (strcmp(o, "fail") == 0 || strcmp(o, "timeout") == 0 || strcmp(o, "error") == 0);
}

static const char *get_str(json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* ["P1","P18"] -> "P1,P18"; NULL when not an array of strings. */
static char *join_strings(json_t *arr)
{
    if (!json_is_array(arr)) return NULL;
    size_t len = 1, i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (!json_is_string(v)) return NULL;
        len += json_string_length(v) + 1;
    }
    char *out = calloc(1, len);
    if (!out) return NULL;
    json_array_foreach(arr, i, v)
    {
        if (i) strcat(out, ",");
        strcat(out, json_string_value(v));
    }
    return out;
}

static int fail_at(char *err, size_t err_len, const char *path, const char *what, size_t idx,
                   const char *field)
{
    snprintf(err, err_len, "%s: corrupt results document: %s[%zu] has no valid '%s'", path, what,
             idx, field);
    return -1;
}

static int load_cases(struct cmp_run *run, json_t *cases, char *err, size_t err_len)
{
    size_t n = json_array_size(cases);
    run->cases = calloc(n ? n : 1, sizeof *run->cases);
    if (!run->cases) {
        snprintf(err, err_len, "%s: out of memory", run->path);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(cases, i);
        struct cmp_case *cc = &run->cases[run->n_cases];
        if (!json_is_object(c)) return fail_at(err, err_len, run->path, "cases", i, "object");
        cc->id = get_str(c, "id");
        if (!cc->id || !*cc->id) return fail_at(err, err_len, run->path, "cases", i, "id");
        cc->title = get_str(c, "title");
        cc->level = get_str(c, "level");
        if (!cc->level || (strcmp(cc->level, "MUST") && strcmp(cc->level, "SHOULD")))
            return fail_at(err, err_len, run->path, "cases", i, "level");
        cc->outcome = get_str(c, "outcome");
        if (!one_of(cc->outcome, outcomes))
            return fail_at(err, err_len, run->path, "cases", i, "outcome");
        cc->status = get_str(c, "status");
        if (!one_of(cc->status, statuses))
            return fail_at(err, err_len, run->path, "cases", i, "status");
        cc->clauses = join_strings(json_object_get(c, "clauses"));
        run->n_cases++; /* owns clauses from here */
        if (!cc->clauses || !*cc->clauses)
            return fail_at(err, err_len, run->path, "cases", i, "clauses");
        json_t *first = json_array_get(json_object_get(c, "failures"), 0);
        cc->detail = first ? get_str(first, "observed") : NULL;
        cc->expected = first ? get_str(first, "expected") : NULL;
        if (!cc->detail) cc->detail = get_str(c, "reason");
        json_t *base = json_object_get(c, "baseline");
        cc->baseline_link = json_is_object(base) ? get_str(base, "link") : NULL;
        for (size_t k = 0; k + 1 < run->n_cases; k++)
            if (strcmp(run->cases[k].id, cc->id) == 0) {
                snprintf(err, err_len, "%s: corrupt results document: case %s appears twice",
                         run->path, cc->id);
                return -1;
            }
    }
    return 0;
}

static int load_clauses(struct cmp_run *run, json_t *clauses, char *err, size_t err_len)
{
    size_t n = json_array_size(clauses);
    run->clauses = calloc(n ? n : 1, sizeof *run->clauses);
    if (!run->clauses) {
        snprintf(err, err_len, "%s: out of memory", run->path);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(clauses, i);
        struct cmp_clause *cl = &run->clauses[run->n_clauses++];
        cl->id = get_str(c, "id");
        if (!cl->id || !*cl->id) return fail_at(err, err_len, run->path, "clauses", i, "id");
        cl->level = get_str(c, "level");
        if (!cl->level) return fail_at(err, err_len, run->path, "clauses", i, "level");
        cl->text = get_str(c, "text");
        cl->status = get_str(c, "status");
        static const char *const cs[] = {"pass", "fail", "incomplete", "untested", NULL};
        if (!one_of(cl->status, cs))
            return fail_at(err, err_len, run->path, "clauses", i, "status");
    }
    /* A clause has a SHOULD part in this run when a SHOULD case names it. */
    for (size_t k = 0; k < run->n_cases; k++) {
        if (strcmp(run->cases[k].level, "SHOULD") != 0) continue;
        for (size_t i = 0; i < run->n_clauses; i++) {
            const char *p = run->cases[k].clauses;
            size_t l = strlen(run->clauses[i].id);
            while ((p = strstr(p, run->clauses[i].id)) != NULL) {
                bool start = p == run->cases[k].clauses || p[-1] == ',';
                if (start && (p[l] == '\0' || p[l] == ',')) run->clauses[i].has_should = true;
                p += l;
            }
        }
    }
    return 0;
}

static void describe_runtime(struct cmp_run *run)
{
    json_t *rt = json_object_get(run->doc, "runtime");
    const char *mode = get_str(rt, "mode");
    const char *version = get_str(rt, "version");
    const char *cmd = get_str(rt, "command");
    const char *grpc = get_str(rt, "grpc");
    snprintf(run->runtime, sizeof run->runtime, "%s%s%s%s%s", mode ? mode : "?", version ? " " : "",
             version ? version : "",
             cmd    ? ": "
             : grpc ? ": grpc "
                    : "",
             cmd    ? cmd
             : grpc ? grpc
                    : "");
    char *nl = strchr(run->runtime, '\n');
    if (nl) *nl = '\0';
}

int cmp_run_load(const char *path, struct cmp_run *run, char *err, size_t err_len)
{
    memset(run, 0, sizeof *run);
    run->path = strdup(path);
    if (!run->path) {
        snprintf(err, err_len, "%s: out of memory", path);
        return -1;
    }
    json_error_t je;
    run->doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!run->doc) {
        if (je.line <= 0)
            snprintf(err, err_len, "%s: %s", path, je.text);
        else
            snprintf(err, err_len, "%s:%d:%d: not valid JSON: %s", path, je.line, je.column,
                     je.text);
        return -1;
    }
    json_t *d = run->doc;
    json_t *sv = json_object_get(d, "schema_version");
    const char *bench = get_str(d, "schema");
    if (bench && strncmp(bench, "sandboxd-conformance-bench/", 27) == 0) {
        snprintf(err, err_len, "%s is a bench result (%s): compare it with `bench --compare`", path,
                 bench);
        return -1;
    }
    const char *suite = get_str(json_object_get(d, "suite"), "name");
    if (!json_is_object(d) || !sv || !suite || strcmp(suite, "sandboxd-conformance") != 0) {
        snprintf(err, err_len,
                 "%s is not a sandboxd-conformance results document (no schema_version and "
                 "suite.name; write one with --json)",
                 path);
        return -1;
    }
    if (!json_is_integer(sv) || json_integer_value(sv) != 1) {
        char v[32] = "?";
        if (json_is_integer(sv)) snprintf(v, sizeof v, "%lld", (long long)json_integer_value(sv));
        snprintf(err, err_len,
                 "%s has results schema version %s; this sandboxd-conformance reads version 1 "
                 "(compare it with a matching version of the suite)",
                 path, v);
        return -1;
    }
    json_t *params = json_object_get(d, "parameters");
    run->level = get_str(params, "level");
    if (!run->level || (strcmp(run->level, "core") && strcmp(run->level, "full"))) {
        snprintf(err, err_len, "%s: corrupt results document: no valid parameters.level", path);
        return -1;
    }
    char *prof = join_strings(json_object_get(params, "profiles"));
    snprintf(run->profiles, sizeof run->profiles, "%s", prof ? prof : "");
    free(prof);
    json_t *verdict = json_object_get(d, "verdict");
    run->verdict_slug = get_str(verdict, "result");
    run->verdict_text = get_str(verdict, "text");
    if (!run->verdict_slug || !run->verdict_text) {
        snprintf(err, err_len, "%s: corrupt results document: no valid verdict", path);
        return -1;
    }
    run->started_at = get_str(d, "started_at");
    json_t *cases = json_object_get(d, "cases"), *clauses = json_object_get(d, "clauses");
    if (!json_is_array(cases) || !json_is_array(clauses)) {
        snprintf(err, err_len, "%s: corrupt results document: no cases[] or clauses[]", path);
        return -1;
    }
    if (load_cases(run, cases, err, err_len) != 0) return -1;
    if (load_clauses(run, clauses, err, err_len) != 0) return -1;
    describe_runtime(run);
    return 0;
}

void cmp_run_free(struct cmp_run *run)
{
    for (size_t i = 0; run->cases && i < run->n_cases; i++) {
        free(run->cases[i].clauses);
    }
    free(run->cases);
    free(run->clauses);
    json_decref(run->doc);
    free(run->path);
    memset(run, 0, sizeof *run);
}

const struct cmp_case *cmp_run_case(const struct cmp_run *run, const char *id)
{
    for (size_t i = 0; i < run->n_cases; i++)
        if (strcmp(run->cases[i].id, id) == 0) return &run->cases[i];
    return NULL;
}

const struct cmp_clause *cmp_run_clause(const struct cmp_run *run, const char *id)
{
    for (size_t i = 0; i < run->n_clauses; i++)
        if (strcmp(run->clauses[i].id, id) == 0) return &run->clauses[i];
    return NULL;
}
