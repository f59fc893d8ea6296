/* SPDX-License-Identifier: Apache-2.0 */
/* Figures of two runtimes or two runs side by side. */
#include "bench_text.h"
#include "bench_compare.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "bench_report.h"

enum bench_move bench_pair_move(const struct bench_pair *p, double *ratio, bool *assumed)
{
    *ratio = NAN;
    *assumed = false;
    if (isnan(p->a) || isnan(p->b) || p->a == 0.0) return BENCH_UNKNOWN;
    *ratio = p->b / p->a;
    bool up = *ratio > 1.0;
    if (!isnan(p->a_lo) && !isnan(p->b_lo)) {
        if (p->b_lo <= p->a_hi && p->a_lo <= p->b_hi) return BENCH_SAME;
        return up == p->higher_better ? BENCH_BETTER : BENCH_WORSE;
    }
    double spread = NAN;
    if (!isnan(p->a_spread)) spread = p->a_spread;
    if (!isnan(p->b_spread) && (isnan(spread) || p->b_spread > spread)) spread = p->b_spread;
    if (isnan(spread) || spread < BENCH_DEFAULT_SPREAD) {
        spread = BENCH_DEFAULT_SPREAD;
        *assumed = true;
    }
    if (fabs(*ratio - 1.0) <= spread) return BENCH_SAME;
    return up == p->higher_better ? BENCH_BETTER : BENCH_WORSE;
}

static void fill_side(struct bench_pair *p, const struct bench_figure *f, bool is_b)
{
    bool hb;
    double v = bench_headline(f, &hb);
    p->higher_better = hb;
    double lo = NAN, hi = NAN;
    for (unsigned k = 0; f->n_rounds >= 2 && k < f->n_rounds; k++) {
        double x = f->round_value[k];
        if (isnan(lo) || x < lo) lo = x;
        if (isnan(hi) || x > hi) hi = x;
    }
    if (is_b) {
        p->b = v;
        p->b_ratio = f->ratio;
        p->b_spread = f->spread;
        p->b_lo = lo;
        p->b_hi = hi;
    } else {
        p->a = v;
        p->a_ratio = f->ratio;
        p->a_spread = f->spread;
        p->a_lo = lo;
        p->a_hi = hi;
    }
    if (!p->floor[0] && f->floor[0]) bench_fmt(p->floor, sizeof p->floor, "%s", f->floor);
}

static struct bench_pair *find_pair(struct bench_pair *out, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(out[i].id, id) == 0) return &out[i];
    return NULL;
}

static struct bench_pair *new_pair(struct bench_pair *out, size_t *n, size_t max,
                                   const struct bench_figure *f)
{
    if (*n >= max) return NULL;
    struct bench_pair *p = &out[(*n)++];
    memset(p, 0, sizeof *p);
    bench_fmt(p->id, sizeof p->id, "%s", f->id);
    bench_fmt(p->label, sizeof p->label, "%s", f->label);
    bench_fmt(p->group, sizeof p->group, "%s", f->group);
    p->kind = f->kind;
    p->per_second = bench_headline_per_second(f);
    p->a = p->b = p->a_ratio = p->b_ratio = p->a_spread = p->b_spread = NAN;
    p->a_lo = p->a_hi = p->b_lo = p->b_hi = NAN;
    return p;
}

size_t bench_pairs_from_results(const struct bench_results *a, const struct bench_results *b,
                                struct bench_pair *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++) {
        struct bench_pair *p = new_pair(out, &n, max, &a->f[i]);
        if (p) fill_side(p, &a->f[i], false);
    }
    for (size_t i = 0; i < b->n; i++) {
        struct bench_pair *p = find_pair(out, n, b->f[i].id);
        if (!p) p = new_pair(out, &n, max, &b->f[i]);
        if (p) fill_side(p, &b->f[i], true);
    }
    return n;
}

static void fmt_value(char *buf, size_t len, const struct bench_pair *p, double v)
{
    enum bench_kind kind = p->kind;
    if (isnan(v))
        bench_fmt(buf, len, "-");
    else if (p->per_second)
        bench_fmt(buf, len, "%.0f/s", v);
    else if (kind == BENCH_LATENCY)
        bench_fmt_time(buf, len, v);
    else if (kind == BENCH_TRANSFER)
        bench_fmt_rate(buf, len, v);
    else if (kind == BENCH_MEMORY)
        bench_fmt_bytes(buf, len, v);
    else
        bench_fmt(buf, len, "%.0f done", v);
}

/* "-" for NAN, else "1.23" (plain), "1.23x" (times) or "12%" (percent). */
enum num_style { NUM_PLAIN, NUM_TIMES, NUM_PERCENT };
static void fmt_num(char *buf, size_t len, enum num_style style, double v)
{
    if (isnan(v))
        bench_fmt(buf, len, "-");
    else if (style == NUM_PERCENT)
        bench_fmt(buf, len, "%.0f%%", v * 100.0);
    else
        bench_fmt(buf, len, "%.2f%s", v, style == NUM_TIMES ? "x" : "");
}

void bench_print_pairs(FILE *f, const struct bench_pair *p, size_t n, const char *a_name,
                       const char *b_name)
{
    fprintf(f, "\nA = %s\nB = %s\n\n", a_name, b_name);
    fprintf(f, "%-44s %11s %11s %7s %8s %8s %-10s %7s %7s  %s\n", "figure (p50 or throughput)", "A",
            "B", "B/A", "spreadA", "spreadB", "floor", "A/floor", "B/floor", "moved");
    size_t moved = 0, assumed_any = 0;
    const char *group = "";
    for (size_t i = 0; i < n; i++) {
        if (strcmp(group, p[i].group) != 0) {
            group = p[i].group;
            fprintf(f, "-- %s\n", group);
        }
        char a[24], b[24], r[16], sa[16], sb[16], ra[16], rb[16];
        fmt_value(a, sizeof a, &p[i], p[i].a);
        fmt_value(b, sizeof b, &p[i], p[i].b);
        double ratio;
        bool assumed;
        enum bench_move mv = bench_pair_move(&p[i], &ratio, &assumed);
        fmt_num(r, sizeof r, NUM_PLAIN, ratio);
        fmt_num(sa, sizeof sa, NUM_PERCENT, p[i].a_spread);
        fmt_num(sb, sizeof sb, NUM_PERCENT, p[i].b_spread);
        fmt_num(ra, sizeof ra, NUM_TIMES, p[i].a_ratio);
        fmt_num(rb, sizeof rb, NUM_TIMES, p[i].b_ratio);
        const char *m = mv == BENCH_BETTER  ? "B better"
                        : mv == BENCH_WORSE ? "B WORSE"
                        : mv == BENCH_SAME  ? ""
                                            : "n/a";
        if (mv == BENCH_BETTER || mv == BENCH_WORSE) moved++;
        if (assumed && mv != BENCH_UNKNOWN) assumed_any++;
        fprintf(f, "%-44.44s %11s %11s %7s %8s %8s %-10.10s %7s %7s  %s%s\n", p[i].label, a, b, r,
                sa, sb, strncmp(p[i].floor, "floor.", 6) == 0 ? p[i].floor + 6 : p[i].floor, ra, rb,
                m, assumed && *m && mv != BENCH_UNKNOWN ? " (spread assumed)" : "");
    }
    fprintf(f,
            "\nB/A: B's value over A's (for latencies and memory lower is better, for rates\n"
            "higher). spread: (max - min) / median over the rounds of that figure. A figure\n"
            "moved when the ranges of its rounds on A and on B do not overlap; where a side\n"
            "has one round, when B/A - 1 exceeds its spread or %.0f%% (%zu figure%s).\n"
            "%zu figure%s moved.\n",
            BENCH_DEFAULT_SPREAD * 100.0, assumed_any, assumed_any == 1 ? "" : "s", moved,
            moved == 1 ? "" : "s");
}

/* ---- saved results ------------------------------------------------------- */

static int kind_of(const char *s, enum bench_kind *k)
{
    static const char *const names[] = {"latency", "transfer", "streams", "memory"};
    for (int i = 0; i < 4; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *k = (enum bench_kind)i;
            return 0;
        }
    return -1;
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A saved figure as a bench_figure carrying what bench_headline and the
 * pairing read. */
static int figure_from_json(json_t *j, struct bench_figure *f)
{
    memset(f, 0, sizeof *f);
    const char *id = json_string_value(json_object_get(j, "id"));
    const char *label = json_string_value(json_object_get(j, "label"));
    const char *group = json_string_value(json_object_get(j, "group"));
    if (!id || !label || !group ||
        kind_of(json_string_value(json_object_get(j, "kind")), &f->kind) != 0)
        return -1;
    bench_fmt(f->id, sizeof f->id, "%s", id);
    bench_fmt(f->label, sizeof f->label, "%s", label);
    f->group = group; /* lives as long as the document */
    f->measured = json_is_true(json_object_get(j, "measured"));
    f->lat.p50 = num(j, "p50_s");
    f->lat.count = (size_t)json_integer_value(json_object_get(j, "count"));
    f->throughput = num(j, "throughput");
    if (isnan(f->throughput)) f->throughput = -1.0;
    f->value = f->kind == BENCH_STREAMS  ? num(j, "completed")
               : f->kind == BENCH_MEMORY ? num(j, "bytes")
                                         : 0.0;
    f->ratio = num(j, "ratio");
    f->spread = num(j, "spread");
    json_t *rounds = json_object_get(j, "rounds");
    for (size_t k = 0; k < json_array_size(rounds) && k < BENCH_MAX_ROUNDS; k++) {
        json_t *x = json_array_get(rounds, k);
        if (json_is_number(x)) f->round_value[f->n_rounds++] = json_number_value(x);
    }
    const char *fl = json_string_value(json_object_get(j, "floor"));
    if (fl) bench_fmt(f->floor, sizeof f->floor, "%s", fl);
    const char *basis = json_string_value(json_object_get(j, "ratio_of"));
    f->basis = !basis                             ? BENCH_RATIO_NONE
               : strcmp(basis, "throughput") == 0 ? BENCH_RATIO_THROUGHPUT
               : strcmp(basis, "p50") == 0        ? BENCH_RATIO_P50
                                                  : BENCH_RATIO_NONE;
    return 0;
}

static json_t *load(const char *path, struct bench_results *r)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) {
        fprintf(stderr, "sandboxd-conformance bench: %s: not valid JSON (%s, line %d)\n", path,
                je.text, je.line);
        return NULL;
    }
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema || strcmp(schema, "sandboxd-conformance-bench/1") != 0) {
        fprintf(stderr,
                "sandboxd-conformance bench: %s is not a bench result of schema "
                "sandboxd-conformance-bench/1 (%s)\n",
                path, schema ? schema : "no schema field");
        json_decref(doc);
        return NULL;
    }
    json_t *figs = json_object_get(doc, "figures");
    size_t i;
    json_t *fj;
    json_array_foreach(figs, i, fj)
    {
        struct bench_figure tmp;
        struct bench_figure *f;
        if (figure_from_json(fj, &tmp) != 0 ||
            !(f = bench_add(r, tmp.id, tmp.label, tmp.group, tmp.kind))) {
            fprintf(stderr, "sandboxd-conformance bench: %s: corrupt figure %zu\n", path, i);
            json_decref(doc);
            return NULL;
        }
        *f = tmp;
    }
    if (!json_is_array(figs) || r->n == 0) {
        fprintf(stderr, "sandboxd-conformance bench: %s: no figures\n", path);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int bench_compare_files(const char *old_path, const char *new_path)
{
    struct bench_results a, b;
    bench_results_init(&a);
    bench_results_init(&b);
    json_t *da = load(old_path, &a), *db = da ? load(new_path, &b) : NULL;
    int rc = 2;
    if (da && db) {
        struct bench_pair pairs[128];
        size_t n = bench_pairs_from_results(&a, &b, pairs, sizeof pairs / sizeof pairs[0]);
        bench_print_pairs(stdout, pairs, n, old_path, new_path);
        rc = 0;
    }
    json_decref(da);
    json_decref(db);
    bench_results_free(&a);
    bench_results_free(&b);
    return rc;
}
