/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_SCHEDULER_H
#define SBX_SCHEDULER_H
/* The parent side of a run: forks one worker per selected case, at most
 * `jobs` at a time (cases marked NEEDS_ALONE run with nothing else), reads
 * their events, enforces the per-case timeout with SIGKILL, turns exits into
 * outcomes and schedules each case's cleanup. */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"
#include "run_target.h"

struct sched_opts {
    const struct run_target *target;
    uint64_t seed;
    unsigned jobs;
    double timeout_scale; /* multiplies every case timeout */
    int log_fd;           /* the full log (O_APPEND); -1 = none */
    void (*on_done)(void *ud, const struct case_result *r, size_t done, size_t total);
    void *ud;
    volatile sig_atomic_t *interrupted; /* set by a signal handler to stop early */
    /* Circuit breaker: after this many consecutive cases timed out or could
     * not reach the runtime, and a liveness probe failed too, every case
     * not finished is reported "error: runtime unresponsive" at once. 0 = off. */
    unsigned unresponsive_after;
};

/* Runs every case with selected && outcome == OUT_NOT_RUN; fills outcomes. */
void scheduler_run(struct run_results *res, const struct sched_opts *o);

/* Bytes of case output kept per case (the rest is counted). */
#define SCHED_MAX_OUTPUT (16 * 1024)

#endif
