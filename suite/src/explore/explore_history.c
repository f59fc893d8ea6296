/* SPDX-License-Identifier: Apache-2.0 */
/* Writing and reading replay files. */
#include "explore_history.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *op_json(const struct xop *op)
{
    json_t *o = json_object();
    char seed[24];
    json_object_set_new(o, "kind", json_string(xop_kind_name(op->kind)));
    if (op->path[0]) json_object_set_new(o, "path", json_string(op->path));
    if (op->target[0] || op->kind == XOP_SYMLINK)
        json_object_set_new(o, "target", json_string(op->target));
    if (op->enc) json_object_set_new(o, "enc", json_integer(op->enc));
    if (op->trailing_slash) json_object_set_new(o, "trailing_slash", json_true());
    if (op->nul) json_object_set_new(o, "nul", json_true());
    if (op->multipart) json_object_set_new(o, "multipart", json_true());
    if (op->mp_nofile) json_object_set_new(o, "mp_nofile", json_true());
    if (op->has_mode) json_object_set_new(o, "mode", json_string(op->mode));
    if (op->kind == XOP_PUT) {
        json_object_set_new(o, "size", json_integer(op->size));
        snprintf(seed, sizeof seed, "%016" PRIx64, op->content_seed);
        json_object_set_new(o, "content_seed", json_string(seed));
    }
    if (op->ranged) {
        json_object_set_new(o, "range_a", json_integer(op->ra));
        json_object_set_new(o, "range_b", json_integer(op->rb));
    }
    if (op->recursive) json_object_set_new(o, "recursive", json_integer(op->recursive));
    if (op->in_parent) json_object_set_new(o, "in_parent", json_true());
    if (op->has_cwd) json_object_set_new(o, "has_cwd", json_true());
    if (op->kind >= XOP_START && op->kind <= XOP_RESIZE)
        json_object_set_new(o, "slot", json_integer(op->slot));
    if (op->pty) json_object_set_new(o, "pty", json_true());
    if (op->eof) json_object_set_new(o, "eof", json_true());
    if (op->kind == XOP_SIGNAL) json_object_set_new(o, "signal", json_integer(op->sig));
    if (op->kind == XOP_RESIZE) {
        json_object_set_new(o, "cols", json_integer(op->cols));
        json_object_set_new(o, "rows", json_integer(op->rows));
    }
    if (op->input[0]) json_object_set_new(o, "input", json_string(op->input));
    if (op->empty_argv) json_object_set_new(o, "empty_argv", json_true());
    return o;
}

char *xhist_dump(const struct xop *ops, size_t n, uint64_t seed, const char *clause)
{
    json_t *doc = json_object();
    json_t *arr = json_array();
    char s[24];
    snprintf(s, sizeof s, "%" PRIu64, seed);
    json_object_set_new(doc, "format", json_string(XHIST_FORMAT));
    json_object_set_new(doc, "seed", json_string(s));
    if (clause) json_object_set_new(doc, "clause", json_string(clause));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, op_json(&ops[i]));
    json_object_set_new(doc, "ops", arr);
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    return text;
}

/* ---- reading ------------------------------------------------------------ */

struct reader {
    json_t *o;
    char *err;
    size_t err_len;
    size_t index;
    int failed;
};

static void fail(struct reader *r, const char *field, const char *why)
{
    if (r->failed) return;
    r->failed = 1;
    snprintf(r->err, r->err_len, "operation %zu: \"%s\" %s", r->index, field, why);
}

static bool get_bool(struct reader *r, const char *k)
{
    json_t *v = json_object_get(r->o, k);
    if (!v) return false;
    if (!json_is_boolean(v)) fail(r, k, "must be true or false");
    return json_is_true(v);
}

static long long get_int(struct reader *r, const char *k, long long lo, long long hi,
                         long long dflt)
{
    json_t *v = json_object_get(r->o, k);
    if (!v) return dflt;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        fail(r, k, "must be an integer in range");
        return dflt;
    }
    return json_integer_value(v);
}

static void get_str(struct reader *r, const char *k, char *out, size_t len, bool *present)
{
    json_t *v = json_object_get(r->o, k);
    out[0] = '\0';
    if (present) *present = v != NULL;
    if (!v) return;
    const char *s = json_string_value(v);
    if (!s || json_string_length(v) >= len || strlen(s) != json_string_length(v)) {
        fail(r, k, "must be a string without NUL, short enough");
        return;
    }
    memcpy(out, s, strlen(s) + 1);
}

/* Safety: a replayed path stays in the workspace. */
static bool path_safe(const char *p)
{
    if (!p[0]) return true;
    if (p[0] == '/') return false;
    const char *c = p;
    for (;;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        if (!slash) return true;
        c = slash + 1;
    }
}

static void read_op(struct reader *r, struct xop *op)
{
    memset(op, 0, sizeof *op);
    const char *kind = json_string_value(json_object_get(r->o, "kind"));
    int k = xop_kind_from_name(kind);
    if (k < 0) {
        fail(r, "kind", "is not an operation explore knows");
        return;
    }
    op->kind = (enum xop_kind)k;
    get_str(r, "path", op->path, sizeof op->path, NULL);
    get_str(r, "target", op->target, sizeof op->target, NULL);
    if (!r->failed && (!path_safe(op->path) || !path_safe(op->target)))
        fail(r, "path", "must stay in the workspace (no empty, \".\" or \"..\" component)");
    op->enc = (uint8_t)get_int(r, "enc", 0, 2, 0);
    op->trailing_slash = get_bool(r, "trailing_slash");
    op->nul = get_bool(r, "nul");
    op->multipart = get_bool(r, "multipart");
    op->mp_nofile = get_bool(r, "mp_nofile");
    get_str(r, "mode", op->mode, sizeof op->mode, &op->has_mode);
    op->size = (uint32_t)get_int(r, "size", 0, XHIST_MAX_SIZE, 0);
    char seed[24];
    bool has_seed = false;
    get_str(r, "content_seed", seed, sizeof seed, &has_seed);
    if (has_seed && !r->failed) {
        char *end = NULL;
        op->content_seed = strtoull(seed, &end, 16);
        if (!seed[0] || *end) fail(r, "content_seed", "must be hexadecimal");
    }
    op->ranged = json_object_get(r->o, "range_a") != NULL;
    op->ra = get_int(r, "range_a", -1, INT32_MAX, 0);
    op->rb = get_int(r, "range_b", -1, INT32_MAX, -1);
    op->recursive = (uint8_t)get_int(r, "recursive", 0, 3, 0);
    op->in_parent = get_bool(r, "in_parent");
    op->has_cwd = get_bool(r, "has_cwd");
    op->slot = (int)get_int(r, "slot", -1, XHIST_MAX_OPS, -1);
    op->pty = get_bool(r, "pty");
    op->eof = get_bool(r, "eof");
    op->sig = (int)get_int(r, "signal", 0, 64, 15);
    op->cols = (uint32_t)get_int(r, "cols", 1, 1000, 80);
    op->rows = (uint32_t)get_int(r, "rows", 1, 1000, 24);
    get_str(r, "input", op->input, sizeof op->input, NULL);
    op->empty_argv = get_bool(r, "empty_argv");
    if (op->kind == XOP_DELETE && !op->path[0])
        fail(r, "path", "of a DELETE must name something inside the workspace");
}

/* The seed and "ops" of one sequence object (a replay file, or one job of a
 * concurrent one). */
static int parse_sequence(json_t *doc, struct xop **ops, size_t *n, uint64_t *seed, char *err,
                          size_t err_len)
{
    *ops = NULL;
    *n = 0;
    *seed = 0;
    json_t *arr = json_object_get(doc, "ops");
    if (!json_is_array(arr) || json_array_size(arr) > XHIST_MAX_OPS) {
        snprintf(err, err_len, "no \"ops\" array of at most %d operations", XHIST_MAX_OPS);
        return -1;
    }
    const char *s = json_string_value(json_object_get(doc, "seed"));
    if (s) *seed = strtoull(s, NULL, 10);
    size_t count = json_array_size(arr);
    struct xop *out = calloc(count ? count : 1, sizeof *out);
    if (!out) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    struct reader r = {.err = err, .err_len = err_len};
    for (size_t i = 0; i < count && !r.failed; i++) {
        r.o = json_array_get(arr, i);
        r.index = i;
        if (!json_is_object(r.o)) {
            fail(&r, "op", "must be an object");
            break;
        }
        read_op(&r, &out[i]);
    }
    if (r.failed) {
        free(out);
        return -1;
    }
    *ops = out;
    *n = count;
    return 0;
}

static json_t *load(const char *text, size_t len, char *err, size_t err_len)
{
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    if (!doc) snprintf(err, err_len, "not JSON: %s (line %d)", jerr.text, jerr.line);
    return doc;
}

int xhist_parse(const char *text, size_t len, struct xop **ops, size_t *n, uint64_t *seed,
                char *err, size_t err_len)
{
    *ops = NULL;
    *n = 0;
    *seed = 0;
    json_t *doc = load(text, len, err, err_len);
    if (!doc) return -1;
    const char *format = json_string_value(json_object_get(doc, "format"));
    int rc = -1;
    if (!format || strcmp(format, XHIST_FORMAT) != 0)
        snprintf(err, err_len,
                 "not a replay file (format " XHIST_FORMAT ", an \"ops\" array of "
                 "at most %d operations)",
                 XHIST_MAX_OPS);
    else
        rc = parse_sequence(doc, ops, n, seed, err, err_len);
    json_decref(doc);
    return rc;
}

/* ---- concurrent rounds -------------------------------------------------- */

char *xhist_dump_jobs(const struct xhist_job *jobs, size_t n, uint64_t seed, const char *clause)
{
    json_t *doc = json_object();
    json_t *arr = json_array();
    char s[24];
    snprintf(s, sizeof s, "%" PRIu64, seed);
    json_object_set_new(doc, "format", json_string(XHIST_JOBS_FORMAT));
    json_object_set_new(doc, "seed", json_string(s));
    if (clause) json_object_set_new(doc, "clause", json_string(clause));
    for (size_t j = 0; j < n; j++) {
        json_t *job = json_object();
        json_t *ops = json_array();
        snprintf(s, sizeof s, "%" PRIu64, jobs[j].seed);
        json_object_set_new(job, "seed", json_string(s));
        for (size_t i = 0; i < jobs[j].n; i++)
            json_array_append_new(ops, op_json(&jobs[j].ops[i]));
        json_object_set_new(job, "ops", ops);
        json_array_append_new(arr, job);
    }
    json_object_set_new(doc, "jobs", arr);
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    return text;
}

void xhist_jobs_free(struct xhist_job *jobs, size_t n)
{
    for (size_t j = 0; jobs && j < n; j++)
        free(jobs[j].ops);
    free(jobs);
}

int xhist_parse_jobs(const char *text, size_t len, struct xhist_job **jobs, size_t *n,
                     uint64_t *seed, bool *concurrent, char *err, size_t err_len)
{
    *jobs = NULL;
    *n = 0;
    *seed = 0;
    *concurrent = false;
    json_t *doc = load(text, len, err, err_len);
    if (!doc) return -1;
    const char *format = json_string_value(json_object_get(doc, "format"));
    json_t *arr = json_object_get(doc, "jobs");
    bool single = format && strcmp(format, XHIST_FORMAT) == 0;
    size_t count = single ? 1 : json_array_size(arr);
    if (!single && (!format || strcmp(format, XHIST_JOBS_FORMAT) != 0 || !json_is_array(arr) ||
                    count == 0 || count > XHIST_MAX_JOBS)) {
        snprintf(err, err_len,
                 "not a replay file (format " XHIST_FORMAT ", or " XHIST_JOBS_FORMAT
                 " with a \"jobs\" array of 1 to %d sequences)",
                 XHIST_MAX_JOBS);
        json_decref(doc);
        return -1;
    }
    struct xhist_job *out = calloc(count, sizeof *out);
    if (!out) {
        snprintf(err, err_len, "out of memory");
        json_decref(doc);
        return -1;
    }
    size_t total = 0;
    int rc = 0;
    for (size_t j = 0; j < count && rc == 0; j++) {
        json_t *o = single ? doc : json_array_get(arr, j);
        char why[400];
        if (!json_is_object(o)) {
            snprintf(err, err_len, "job %zu: must be an object", j);
            rc = -1;
        } else if (parse_sequence(o, &out[j].ops, &out[j].n, &out[j].seed, why, sizeof why)) {
            snprintf(err, err_len, "job %zu: %s", j, why);
            rc = -1;
        } else if ((total += out[j].n) > XHIST_MAX_OPS) {
            snprintf(err, err_len, "more than %d operations in all", XHIST_MAX_OPS);
            rc = -1;
        }
    }
    const char *s = json_string_value(json_object_get(doc, "seed"));
    if (s) *seed = strtoull(s, NULL, 10);
    json_decref(doc);
    if (rc != 0) {
        *seed = 0;
        xhist_jobs_free(out, count);
        return -1;
    }
    *jobs = out;
    *n = count;
    *concurrent = !single;
    return 0;
}
