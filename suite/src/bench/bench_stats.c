/* SPDX-License-Identifier: Apache-2.0 */
/* Order statistics of latency samples (nearest-rank percentiles). */
#include "bench_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int bench_samples_init(struct bench_samples *s, size_t cap)
{
    memset(s, 0, sizeof *s);
    if (cap == 0) cap = 1;
    s->v = calloc(cap, sizeof *s->v);
    if (!s->v) return -1;
    s->cap = cap;
    return 0;
}

void bench_samples_free(struct bench_samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

void bench_samples_add(struct bench_samples *s, double seconds)
{
    if (s->n < s->cap)
        s->v[s->n++] = seconds;
    else
        s->dropped++;
}

void bench_samples_merge(struct bench_samples *dst, const struct bench_samples *src)
{
    for (size_t i = 0; i < src->n; i++)
        bench_samples_add(dst, src->v[i]);
    dst->dropped += src->dropped;
}

double bench_percentile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0) return 0.0;
    if (p <= 0.0) return sorted[0];
    double rank = ceil(p / 100.0 * (double)n);
    size_t idx = rank < 1.0 ? 0 : (size_t)rank - 1;
    if (idx >= n) idx = n - 1;
    return sorted[idx];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct bench_summary bench_summarise(struct bench_samples *s)
{
    struct bench_summary r = {0};
    if (s->n == 0) return r;
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    double sum = 0.0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->v[i];
    r.count = s->n;
    r.min = s->v[0];
    r.max = s->v[s->n - 1];
    r.mean = sum / (double)s->n;
    r.p50 = bench_percentile_sorted(s->v, s->n, 50.0);
    r.p90 = bench_percentile_sorted(s->v, s->n, 90.0);
    r.p99 = bench_percentile_sorted(s->v, s->n, 99.0);
    return r;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
