/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_COMPARE_H
#define SBX_BENCH_COMPARE_H
/* Two runtimes' figures side by side: each figure for A and B, the ratio
 * B/A, each one's ratio to its floor, and whether B/A moved beyond the
 * run-to-run spread of the figure (its --rounds). From a live side-by-side
 * run, or from two saved --json files (`bench --compare OLD NEW`). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench_results.h"

/* The spread assumed for a figure measured in one round only. */
#define BENCH_DEFAULT_SPREAD 0.10

struct bench_pair {
    char id[BENCH_ID_MAX];
    char label[96];
    char group[16];
    enum bench_kind kind;
    bool per_second; /* a crowd's latency figure: its headline is calls/s */
    bool higher_better;
    double a, b;             /* headline values, NAN when not measured */
    double a_ratio, b_ratio; /* to the floor, NAN when none */
    char floor[BENCH_ID_MAX];
    double a_spread, b_spread;     /* NAN when unknown */
    double a_lo, a_hi, b_lo, b_hi; /* range over the rounds; NAN with one round */
};

enum bench_move { BENCH_SAME, BENCH_BETTER, BENCH_WORSE, BENCH_UNKNOWN };

/* Moved: with two or more rounds on both sides, when the ranges of their
 * rounds do not overlap; otherwise when B/A - 1 exceeds the known spread or
 * BENCH_DEFAULT_SPREAD, whichever is larger (*assumed says so). */
enum bench_move bench_pair_move(const struct bench_pair *p, double *ratio, bool *assumed);

/* Pairs the figures of a with those of b (by id, in a's order, then b's
 * own). Returns the count written to out (at most max). */
size_t bench_pairs_from_results(const struct bench_results *a, const struct bench_results *b,
                                struct bench_pair *out, size_t max);

void bench_print_pairs(FILE *f, const struct bench_pair *p, size_t n, const char *a_name,
                       const char *b_name);

/* `bench --compare OLD.json NEW.json`: 0 printed, 2 bad input. */
int bench_compare_files(const char *old_path, const char *new_path);

#endif
