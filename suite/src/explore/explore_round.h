/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_ROUND_H
#define SBX_EXPLORE_ROUND_H
/* One concurrent round (--jobs) against one runtime: every job's sequence
 * on its own connection, the register check of their contended operations,
 * and the shrinking of a round the check fails (fewer jobs, then fewer
 * operations per job), each candidate retried a few times because a race
 * shows only in some interleavings. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explore_history.h"
#include "explore_jobs.h"
#include "explore_shrink.h"

/* Where rounds run: one runtime, and fresh directories below run_dir. */
struct xround_target {
    const char *grpc, *rest;
    const char *run_dir;
    unsigned *counter; /* numbers the rounds' directories */
};

/* What a round showed on one runtime. */
struct xround_side {
    struct xjob *jobs;
    size_t n;
    bool setup_failed;
    char why[600];
    size_t found_in; /* the first job whose model refused an answer, or n */
    bool reg_found;  /* the register history is not linearizable */
    char reg_clause[24];
    char *reg_expected, *reg_observed;
    size_t contended;
};

/* The jobs of a round: job 0 runs seed's sequence, the others derived
 * seeds' (NULL when out of memory). */
struct xhist_job *xround_make(uint64_t seed, unsigned jobs, unsigned ops);
struct xhist_job *xround_copy(const struct xhist_job *spec, size_t n);

/* Runs spec's jobs at once against t, then removes the round's directory. */
void xround_run(const struct xround_target *t, const struct xhist_job *spec, size_t n,
                struct xround_side *out);
void xround_side_free(struct xround_side *s);

/* True when the round fails the register check with clause in one of
 * attempts runs. */
bool xround_fails(const struct xround_target *t, const struct xhist_job *spec, size_t n,
                  const char *clause, unsigned attempts);

/* Shrinks spec[0..*n) in place while it still fails with clause: drops
 * jobs, then shrinks each job's operations (explore_shrink). Bounded by
 * max_runs rounds and max_seconds. */
void xround_shrink(const struct xround_target *t, struct xhist_job *spec, size_t *n,
                   const char *clause, unsigned attempts, unsigned max_runs, double max_seconds,
                   struct xshrink_stats *st);

#endif
