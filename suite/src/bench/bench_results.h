/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_RESULTS_H
#define SBX_BENCH_RESULTS_H
/* The figures a bench run produces, in the order they were measured, each
 * optionally tied to a floor figure of the same run, and the reference
 * daemon's targets evaluated against them. Reporters only read this. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_stats.h"

enum bench_kind {
    BENCH_LATENCY,  /* per-operation times; throughput in operations/s */
    BENCH_TRANSFER, /* per-transfer times of `bytes` each; throughput in bytes/s */
    BENCH_STREAMS,  /* concurrent streams: value = completed; times = per-stream durations */
    BENCH_MEMORY,   /* value = bytes */
};

/* Which ratio a figure has against its floor. */
enum bench_ratio_basis {
    BENCH_RATIO_NONE,
    BENCH_RATIO_P50,        /* figure p50 / floor p50: lower is better */
    BENCH_RATIO_THROUGHPUT, /* figure throughput / floor throughput: higher is better */
};

#define BENCH_ID_MAX 48
#define BENCH_MAX_ROUNDS 9

struct bench_figure {
    char id[BENCH_ID_MAX];
    char label[96];
    const char *group; /* "floor", "execute", "start", "streams", "rest", "memory" */
    enum bench_kind kind;
    bool measured; /* false: not measured, the note says why */
    struct bench_summary lat;
    double throughput;        /* ops/s or bytes/s; negative = does not apply */
    uint64_t bytes;           /* BENCH_TRANSFER: bytes per transfer */
    double value;             /* BENCH_STREAMS: completed; BENCH_MEMORY: bytes */
    double value_of;          /* BENCH_STREAMS: streams opened */
    double elapsed;           /* wall time of the measured part, seconds */
    uint64_t errors;          /* failed operations (not in the samples) */
    char floor[BENCH_ID_MAX]; /* primary floor's id, "" = none */
    enum bench_ratio_basis basis;
    double ratio;                 /* NAN until computed or when not computable */
    char alt_floor[BENCH_ID_MAX]; /* secondary floor (same basis), "" = none */
    double alt_ratio;
    char note[200];
    /* --rounds: the figure is the round with the median headline value;
     * round_value holds every round's, spread is (max - min) / median
     * (NAN with fewer than two rounds). */
    unsigned n_rounds;
    double round_value[BENCH_MAX_ROUNDS];
    double spread;
};

struct bench_results {
    struct bench_figure *f;
    size_t n, cap;
};

void bench_results_init(struct bench_results *r);
void bench_results_free(struct bench_results *r);

/* Appends a figure (measured = false, throughput = -1, ratios NAN) and
 * returns it; NULL only when out of memory. The pointer is valid until the
 * next bench_add. */
struct bench_figure *bench_add(struct bench_results *r, const char *id, const char *label,
                               const char *group, enum bench_kind kind);

struct bench_figure *bench_find(const struct bench_results *r, const char *id);

/* Fills every figure's ratio and alt_ratio from its floors (NAN when either
 * side was not measured or is zero). */
void bench_compute_ratios(struct bench_results *r);

/* Whether a latency figure is compared by its calls per second: a crowd's
 * (its ratio's basis is throughput), whose p50 is mostly its own queueing
 * on the client. */
bool bench_headline_per_second(const struct bench_figure *f);

/* The value a figure is compared by: p50 for latencies (calls per second
 * for a crowd's), throughput for transfers, completed streams, bytes of
 * memory; NAN when not measured. higher_better says which way is better. */
double bench_headline(const struct bench_figure *f, bool *higher_better);

/* Merges rounds[0..n) of the same measurements into out: for each figure of
 * rounds[0], the round with the median headline value, with every round's
 * value and the spread. 0, or -1 when out of memory. */
int bench_merge_rounds(struct bench_results *out, const struct bench_results *rounds, size_t n);

/* ---- the reference daemon's targets ------------------------------------- */

enum bench_cmp { BENCH_AT_MOST, BENCH_AT_LEAST, BENCH_LESS_THAN };

enum bench_target_source {
    BENCH_SRC_RATIO,      /* the figure's ratio */
    BENCH_SRC_THROUGHPUT, /* the figure's throughput */
    BENCH_SRC_VALUE,      /* the figure's value */
    BENCH_SRC_ALL_DONE,   /* value / value_of (fraction of streams completed) */
};

struct bench_target {
    const char *id;
    const char *issue; /* "4" or "5" */
    const char *text;  /* the target as the issue states it */
    const char *figure;
    enum bench_target_source source;
    enum bench_cmp cmp;
    double limit;
    const char *unit; /* "x", "B/s", "req/s", "B", "fraction" */
};

struct bench_verdict {
    const struct bench_target *t;
    bool evaluated; /* false: the figure was not measured */
    double value;
    bool reached;
};

/* The reference daemon's performance targets, in the order the report prints them. */
const struct bench_target *bench_targets(size_t *n);

/* Evaluates one target against the results. */
struct bench_verdict bench_evaluate(const struct bench_results *r, const struct bench_target *t);

#endif
