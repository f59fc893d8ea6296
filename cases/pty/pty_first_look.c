/* SPDX-License-Identifier: Apache-2.0 */
/* P15 at the first instruction: the requested PTY size is in place before
 * the program runs, not set just after it started (a check-then-set race of
 * a few microseconds, which `stty size` after a shell or the dynamic loader
 * can miss). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/first_look.h"
#include "common/proc_util.h"
#include "common/shipped_helper.h"
#include "common/step_budget.h"

/* The daemon's fault that sets the size just after the start (as a real
 * check-then-set runtime does) loses the race in 12-23 % of Starts on a
 * loaded 2-core machine; 128 Starts (about 1.5 s) miss it with a chance
 * below 1e-7. The work is bounded by that count, not by the clock: on a
 * slow runtime the Starts take as long as they take, and only when the
 * case's own time would run out before the count is reached does it stop
 * and report that it could not decide (never a failure for slowness). */
#define RUNS 128

static void pty_size_first_look(struct case_ctx *ctx)
{
    char helper[128];
    if (first_look_upload(ctx, helper, sizeof helper) != 0) return;
    static const uint32_t sizes[][2] = {{80, 24}, {132, 43}, {33, 7}, {200, 60}};
    int looks = 0, wrong_size = 0, wrong_group = 0;
    char first_size[200] = "", first_group[200] = "";
    /* After the last Start: the probe's removal. */
    struct step_budget budget;
    step_budget_init(&budget, 1);
    for (int i = 0; i < RUNS && step_budget_next(ctx, &budget); i++) {
        const uint32_t *cr = sizes[i % 4];
        struct first_look_run run = {.helper = helper,
                                     .via = FIRST_LOOK_START_PTY,
                                     .pty_cols_rows = cr,
                                     .wait_ms =
                                         step_budget_wait_ms(ctx, &budget, FIRST_LOOK_WAIT_MS)};
        struct first_look fl;
        char why[400] = "";
        int rc = first_look(ctx, &run, &fl, why, sizeof why);
        step_budget_done(&budget);
        if (rc == FIRST_LOOK_LATE) {
            /* Slow, not wrong: the Start was still running at its bound. */
            case_note(ctx, "Start %d did not end in time: %s", i + 1, why);
            budget.out_of_time = true;
            break;
        }
        if (rc != 0) {
            if (i == 0)
                case_skip(ctx, "the runtime did not run the suite's static probe on a PTY: %s",
                          why);
            else
                case_fail(ctx, "the probe to run on a PTY as it did before", "Start %d: %s", i + 1,
                          why);
            break;
        }
        looks++;
        if (!(fl.tty && fl.rows == (long)cr[1] && fl.cols == (long)cr[0]) && !wrong_size++)
            snprintf(first_size, sizeof first_size,
                     "Start %d: want %u rows %u cols, saw %s%ld rows %ld cols", i + 1,
                     (unsigned)cr[1], (unsigned)cr[0], fl.tty ? "" : "no terminal, ", fl.rows,
                     fl.cols);
        if (!(fl.pgid == fl.pid && fl.sid == fl.pid) && !wrong_group++)
            snprintf(first_group, sizeof first_group, "Start %d: pid %ld, pgid %ld, sid %ld", i + 1,
                     fl.pid, fl.pgid, fl.sid);
    }
    /* A wrong look is a finding however few Starts ran; a clean result
     * needs all of them. */
    CASE_CHECK(ctx, wrong_size == 0,
               "the program's first instruction seeing the requested rows and cols",
               "%d of %d Starts saw another size; first: %s", wrong_size, looks, first_size);
    CASE_CHECK(ctx, wrong_group == 0,
               "the first instruction leading its own session and group (P16)",
               "%d of %d Starts; first: %s", wrong_group, looks, first_group);
    if (!step_budget_conclude(ctx, &budget, RUNS, "PTY Starts") && !case_failed(ctx))
        case_note(ctx,
                  "%d Starts on a PTY (slowest %.2f s): the first instruction saw the requested "
                  "size and led its own session every time",
                  RUNS, (double)budget.slowest_ms / 1000.0);
    shipped_helper_remove(ctx, helper);
}
SBX_CASE(pty_size_first_look, .id = "P15-007",
         .title = "A PTY process's first instruction already sees the requested size",
         .clauses = "P15,P16", .level = LEVEL_MUST, .tags = "process,pty,race", .needs = NEEDS_PTY,
         .timeout_s = 180,
         .catches = "the size set on the PTY just after the program started (it reads 0 0 or "
                    "the old size), a race `stty size` after a shell can miss",
         .how =
             "uploads the suite's static sbx-first-look (PUT mode=0755) and starts it on a "
             "PTY 128 times with 4 sizes; its first instruction is ioctl(TIOCGWINSZ), which must "
             "return the requested rows and cols every time (and getpgrp, getsid its own pid); "
             "a slow runtime may take its time, but when the case's time would run out before "
             "the 128th Start it reports skipped (could not decide in time), not failed");
