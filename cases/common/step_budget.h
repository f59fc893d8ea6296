/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_STEP_BUDGET_H
#define SBX_CASES_STEP_BUDGET_H
/* Cases whose work is a fixed number of steps (Starts, requests each
 * followed by an Execute check) bound that work, not their wall time: on a
 * slow runtime under load every step takes as long as it takes, and a case
 * stops early only when its own time (case_time_left_ms) would run out
 * before the next step and its clean-up, and then reports that it could not
 * decide (skipped), never a failure or a timeout for being slow. */
#include <stdbool.h>
#include <stdint.h>

struct case_ctx;

struct step_budget {
    uint64_t started_ms; /* the first step's start */
    uint64_t step_ms;    /* the current step's start */
    uint64_t slowest_ms;
    unsigned done;
    unsigned cleanup_steps; /* what the case still does after its last step,
                               counted in steps */
    bool out_of_time;
};

/* cleanup_steps: how many steps' worth of work follows the last step. */
void step_budget_init(struct step_budget *b, unsigned cleanup_steps);

/* Before a step: true when the time left holds twice the slowest step so
 * far, the clean-up and 2 s; otherwise marks the budget out of time (and
 * stays so). */
bool step_budget_next(struct case_ctx *ctx, struct step_budget *b);

/* After the step begun by the last step_budget_next. */
void step_budget_done(struct step_budget *b);

/* How long one step may wait for the runtime: the time left less the
 * clean-up's share, at most cap_ms. */
unsigned step_budget_wait_ms(const struct case_ctx *ctx, const struct step_budget *b,
                             unsigned cap_ms);

/* At the end: when the budget ran out and nothing failed, the case is
 * skipped: "could not decide in time (N of TOTAL <steps> in S s, slowest
 * T s; all right so far)". total 0: unknown. True when it skipped. */
bool step_budget_conclude(struct case_ctx *ctx, const struct step_budget *b, unsigned total,
                          const char *steps);

#endif
