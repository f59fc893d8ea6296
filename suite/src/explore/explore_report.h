/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_REPORT_H
#define SBX_EXPLORE_REPORT_H
/* What an explore run found: coverage of the operation x outcome space,
 * findings with their minimal reproductions; console and JSON output. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "explore_answer.h"
#include "explore_op.h"
#include "explore_shrink.h"

#define XCOV_OUTCOMES 12

struct xcov_cell {
    char outcome[24];
    unsigned count;
};

struct xcoverage {
    struct xcov_cell cells[XOP__COUNT][XCOV_OUTCOMES];
};

/* Counts a's outcome for op's kind. */
void xcov_add(struct xcoverage *c, const struct xop *op, const struct xans *a);

/* Adds src's counts to dst. */
void xcov_merge(struct xcoverage *dst, const struct xcoverage *src);

struct xreport_finding {
    char clause[24];
    char *expected;
    char *observed;   /* the deviating runtime's answer */
    char *observed_b; /* differential mode: the other runtime's answer */
    const char *side; /* differential mode: "A", "B" or "both"; NULL otherwise */
    char *failing_op; /* rendering of the operation that failed */
    uint64_t seq_seed;
    size_t op_index, original_len;
    struct xop *minimal;
    size_t n_minimal;
    bool shrunk, confirmed;
    bool runtime_lost; /* the runtime stopped answering while shrinking */
    struct xshrink_stats shrink;
    /* A round of concurrent jobs whose register history no order explains:
     * shrunk as a round (jobs, then each job's operations), not as one
     * sequence; minimal stays NULL and replay_text holds the jobs. */
    bool concurrent;
    size_t conc_jobs_before, conc_ops_before, conc_jobs, conc_ops;
    char *replay_text;
    char *case_draft;
    char saved_replay[600], saved_case[600];
};

struct xreport {
    uint64_t seed;
    char target_a[700], target_b[700];
    size_t ops_run;
    unsigned sequences;
    double seconds; /* running sequences, shrinking excluded */
    double shrink_seconds;
    unsigned open_disagreements; /* differential: answers that differ where the contract is open */
    unsigned jobs;               /* concurrent jobs (1 = sequential) */
    size_t contended;            /* contended operations on shared files (--jobs) */
    struct xcoverage cov;
    struct xreport_finding *findings;
    size_t n_findings;
};

void xreport_free(struct xreport *r);
void xreport_console(FILE *out, const struct xreport *r);
/* 0, or -1 with err. */
int xreport_json(const char *path, const struct xreport *r, char *err, size_t err_len);

#endif
