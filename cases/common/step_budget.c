/* SPDX-License-Identifier: Apache-2.0 */
/* Work bounded by steps, not by the clock (see step_budget.h). */
#include "common/step_budget.h"

#include <stdio.h>
#include <string.h>

#include "case_api.h"

#define STEP_MARGIN_MS 2000u

void step_budget_init(struct step_budget *b, unsigned cleanup_steps)
{
    memset(b, 0, sizeof *b);
    b->cleanup_steps = cleanup_steps;
}

/* The clean-up's share of the time left: its steps at the slowest pace. */
static uint64_t cleanup_ms(const struct step_budget *b)
{
    return (uint64_t)b->cleanup_steps * b->slowest_ms + STEP_MARGIN_MS;
}

bool step_budget_next(struct case_ctx *ctx, struct step_budget *b)
{
    if (b->out_of_time) return false;
    uint64_t now = case_now_ms();
    if (!b->started_ms) b->started_ms = now;
    if (case_time_left_ms(ctx) < 2 * b->slowest_ms + cleanup_ms(b)) {
        b->out_of_time = true;
        return false;
    }
    b->step_ms = now;
    return true;
}

void step_budget_done(struct step_budget *b)
{
    uint64_t took = case_now_ms() - b->step_ms;
    if (took > b->slowest_ms) b->slowest_ms = took;
    b->done++;
}

unsigned step_budget_wait_ms(const struct case_ctx *ctx, const struct step_budget *b,
                             unsigned cap_ms)
{
    uint64_t left = case_time_left_ms(ctx), keep = cleanup_ms(b);
    left = left > keep ? left - keep : 1;
    return left < cap_ms ? (unsigned)left : cap_ms;
}

bool step_budget_conclude(struct case_ctx *ctx, const struct step_budget *b, unsigned total,
                          const char *steps)
{
    if (!b->out_of_time || case_failed(ctx)) return false;
    char of[32] = "";
    if (total) snprintf(of, sizeof of, " of %u", total);
    case_skip(ctx,
              "could not decide in time (%u%s %s in %.1f s, slowest %.1f s; all right so far): "
              "the runtime is too slow for this case's timeout, --timeout-scale gives it more",
              b->done, of, steps, (double)(case_now_ms() - b->started_ms) / 1000.0,
              (double)b->slowest_ms / 1000.0);
    return true;
}
