/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_JOBS_H
#define SBX_EXPLORE_JOBS_H
/* Concurrent jobs (--jobs N): one thread and one connection per job, each
 * running its own sequence in its own directory (judged by its own model),
 * and between its operations contended PUTs and GETs of shared files,
 * recorded with their times in a register history. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explore_model.h"
#include "explore_op.h"
#include "explore_registers.h"
#include "explore_report.h"

struct xjob {
    /* in */
    int index;
    uint64_t seed;
    const struct xop *ops;
    size_t n;
    const char *grpc, *rest;
    char ws[200];     /* the job's own directory */
    char shared[200]; /* the directory of the shared files */
    struct xreg_history *history;
    /* out */
    bool found;
    size_t at;
    struct xfinding f;
    struct xans last; /* the deviating answer (xans_free it) */
    size_t ops_run, contended;
    bool setup_failed;
    char why[600];
    struct xcoverage cov;
};

/* Runs every job in its own thread and waits for all. */
void xjobs_run(struct xjob *jobs, size_t n);

/* After the jobs: reads every shared file once (final[], final_known[]). */
void xjobs_read_final(const char *grpc, const char *rest, const char *shared, uint64_t *final,
                      bool *final_known);

#endif
