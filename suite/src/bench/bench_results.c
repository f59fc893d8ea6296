/* SPDX-License-Identifier: Apache-2.0 */
/* Figures of a bench run, their ratios to floors, and the reference daemon's
 * targets. */
#include "bench_text.h"
#include "bench_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_results_init(struct bench_results *r)
{
    memset(r, 0, sizeof *r);
}

void bench_results_free(struct bench_results *r)
{
    free(r->f);
    memset(r, 0, sizeof *r);
}

struct bench_figure *bench_add(struct bench_results *r, const char *id, const char *label,
                               const char *group, enum bench_kind kind)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 32;
        struct bench_figure *f = realloc(r->f, cap * sizeof *f);
        if (!f) return NULL;
        r->f = f;
        r->cap = cap;
    }
    struct bench_figure *f = &r->f[r->n++];
    memset(f, 0, sizeof *f);
    bench_fmt(f->id, sizeof f->id, "%s", id);
    bench_fmt(f->label, sizeof f->label, "%s", label);
    f->group = group;
    f->kind = kind;
    f->throughput = -1.0;
    f->ratio = NAN;
    f->alt_ratio = NAN;
    f->spread = NAN;
    return f;
}

bool bench_headline_per_second(const struct bench_figure *f)
{
    return f->kind == BENCH_LATENCY && f->basis == BENCH_RATIO_THROUGHPUT;
}

double bench_headline(const struct bench_figure *f, bool *higher_better)
{
    bool hb = false;
    double v = NAN;
    if (f->measured) switch (f->kind) {
        case BENCH_LATENCY:
            if (bench_headline_per_second(f)) {
                hb = true;
                v = f->lat.count && f->throughput >= 0.0 ? f->throughput : NAN;
            } else {
                v = f->lat.count ? f->lat.p50 : NAN;
            }
            break;
        case BENCH_TRANSFER:
            hb = true;
            v = f->throughput >= 0.0 ? f->throughput : NAN;
            break;
        case BENCH_STREAMS:
            hb = true;
            v = f->value;
            break;
        case BENCH_MEMORY:
            v = f->value;
            break;
        }
    if (higher_better) *higher_better = hb;
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench_merge_rounds(struct bench_results *out, const struct bench_results *rounds, size_t n)
{
    if (n > BENCH_MAX_ROUNDS) n = BENCH_MAX_ROUNDS;
    for (size_t i = 0; n && i < rounds[0].n; i++) {
        const struct bench_figure *first = &rounds[0].f[i];
        double vals[BENCH_MAX_ROUNDS], sorted[BENCH_MAX_ROUNDS];
        const struct bench_figure *of[BENCH_MAX_ROUNDS];
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            const struct bench_figure *f = bench_find(&rounds[k], first->id);
            if (!f) continue;
            double v = bench_headline(f, NULL);
            if (isnan(v)) continue;
            of[m] = f;
            vals[m] = v;
            sorted[m++] = v;
        }
        struct bench_figure *dst =
            bench_add(out, first->id, first->label, first->group, first->kind);
        if (!dst) return -1;
        if (m == 0) {
            *dst = *first;
            dst->spread = NAN;
            continue;
        }
        qsort(sorted, m, sizeof sorted[0], cmp_double);
        double median = sorted[(m - 1) / 2];
        size_t pick = 0;
        while (pick + 1 < m && vals[pick] != median)
            pick++;
        *dst = *of[pick];
        dst->n_rounds = (unsigned)m;
        memcpy(dst->round_value, vals, m * sizeof vals[0]);
        dst->spread = m >= 2 && median != 0.0 ? (sorted[m - 1] - sorted[0]) / fabs(median) : NAN;
    }
    return 0;
}

struct bench_figure *bench_find(const struct bench_results *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->f[i].id, id) == 0) return &r->f[i];
    return NULL;
}

static double ratio_of(const struct bench_results *r, const struct bench_figure *f,
                       const char *floor_id)
{
    if (!floor_id[0] || !f->measured) return NAN;
    const struct bench_figure *fl = bench_find(r, floor_id);
    if (!fl || !fl->measured) return NAN;
    switch (f->basis) {
    case BENCH_RATIO_P50:
        if (f->lat.count == 0 || fl->lat.count == 0 || fl->lat.p50 <= 0.0) return NAN;
        return f->lat.p50 / fl->lat.p50;
    case BENCH_RATIO_THROUGHPUT:
        if (f->throughput < 0.0 || fl->throughput <= 0.0) return NAN;
        return f->throughput / fl->throughput;
    case BENCH_RATIO_NONE:
        break;
    }
    return NAN;
}

void bench_compute_ratios(struct bench_results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        struct bench_figure *f = &r->f[i];
        f->ratio = ratio_of(r, f, f->floor);
        f->alt_ratio = ratio_of(r, f, f->alt_floor);
    }
}

#define MiB (1024.0 * 1024.0)

static const struct bench_target targets[] = {
    {"execute_vs_spawn", "4", "sequential Execute of `true` <= 2x posix_spawn+waitpid (p50)",
     "execute.sequential", BENCH_SRC_RATIO, BENCH_AT_MOST, 2.0, "x"},
    {"start_stream_rate", "4", "Start streams `head -c N /dev/zero` at >= 1 GB/s", "start.stream",
     BENCH_SRC_THROUGHPUT, BENCH_AT_LEAST, 1e9, "B/s"},
    {"start_concurrent", "4", "1,000 concurrent Start streams on one connection all complete",
     "streams.concurrent", BENCH_SRC_ALL_DONE, BENCH_AT_LEAST, 1.0, "fraction"},
    {"idle_rss", "4", "idle RSS <= 4 MiB", "memory.rss_idle", BENCH_SRC_VALUE, BENCH_AT_MOST,
     4.0 * MiB, "B"},
    {"rest_get_big", "5", "GET of the big file >= 0.5x a local copy", "rest.get_big",
     BENCH_SRC_RATIO, BENCH_AT_LEAST, 0.5, "x"},
    {"rest_put_big", "5", "PUT of the big file (fsync included) >= 0.5x a local copy",
     "rest.put_big", BENCH_SRC_RATIO, BENCH_AT_LEAST, 0.5, "x"},
    {"rest_big_rss_growth", "5", "RSS grows by < 16 MiB during the big GET and PUT",
     "memory.rss_growth_rest_big", BENCH_SRC_VALUE, BENCH_LESS_THAN, 16.0 * MiB, "B"},
    {"rest_small_get_64", "5", "64 concurrent small GETs >= 10,000 req/s", "rest.get_small_c64",
     BENCH_SRC_THROUGHPUT, BENCH_AT_LEAST, 10000.0, "req/s"},
};

const struct bench_target *bench_targets(size_t *n)
{
    *n = sizeof targets / sizeof targets[0];
    return targets;
}

struct bench_verdict bench_evaluate(const struct bench_results *r, const struct bench_target *t)
{
    struct bench_verdict v = {.t = t};
    const struct bench_figure *f = bench_find(r, t->figure);
    if (!f || !f->measured) return v;
    switch (t->source) {
    case BENCH_SRC_RATIO:
        v.value = f->ratio;
        break;
    case BENCH_SRC_THROUGHPUT:
        v.value = f->throughput;
        break;
    case BENCH_SRC_VALUE:
        v.value = f->value;
        break;
    case BENCH_SRC_ALL_DONE:
        v.value = f->value_of > 0.0 ? f->value / f->value_of : NAN;
        break;
    }
    if (isnan(v.value) || (t->source == BENCH_SRC_THROUGHPUT && v.value < 0.0)) return v;
    v.evaluated = true;
    switch (t->cmp) {
    case BENCH_AT_MOST:
        v.reached = v.value <= t->limit;
        break;
    case BENCH_AT_LEAST:
        v.reached = v.value >= t->limit;
        break;
    case BENCH_LESS_THAN:
        v.reached = v.value < t->limit;
        break;
    }
    return v;
}
