/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_STATS_H
#define SBX_BENCH_STATS_H
/* Latency samples and their order statistics. A sample set has a fixed
 * capacity chosen up front (the measurement's count bound), so recording never
 * allocates and memory never grows with the run's length. */
#include <stddef.h>
#include <stdint.h>

struct bench_samples {
    double *v;        /* seconds */
    size_t n;         /* recorded */
    size_t cap;       /* capacity */
    uint64_t dropped; /* samples offered beyond the capacity (counted, not kept) */
};

/* Summary of a sample set; all times in seconds, zero when count is 0. */
struct bench_summary {
    size_t count;
    double p50, p90, p99, max, min, mean;
};

int bench_samples_init(struct bench_samples *s, size_t cap);
void bench_samples_free(struct bench_samples *s);
void bench_samples_add(struct bench_samples *s, double seconds);
/* Appends every sample of src to dst (up to dst's capacity). */
void bench_samples_merge(struct bench_samples *dst, const struct bench_samples *src);

/* Nearest-rank percentile (p in 0..100) of an ascending array of n values:
 * the smallest value with at least p% of the values at or below it. */
double bench_percentile_sorted(const double *sorted, size_t n, double p);

/* Sorts the samples in place and summarises them. */
struct bench_summary bench_summarise(struct bench_samples *s);

/* Monotonic clock in seconds. */
double bench_now(void);

#endif
