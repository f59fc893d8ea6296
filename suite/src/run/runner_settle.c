/* SPDX-License-Identifier: Apache-2.0 */
/* Making a run's outcomes final: the baseline's expected failures, the
 * verdict, and the reports of a run whose runtime could not be reached. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock_util.h"
#include "runner_reports.h"
#include "runner_state.h"
#include "text_util.h"
#include "verdict.h"

/* A baseline entry for a case the catalog does not have (renamed, removed,
 * or a typo) would silently stop covering anything: refused before the run,
 * as compare refuses it. */
int runner_check_baseline_ids(const struct run_state *st, char *err, size_t err_len)
{
    const struct run_results *res = &st->res;
    const struct baseline *b = &st->base;
    for (size_t i = 0; i < b->count; i++) {
        bool known = false;
        for (size_t k = 0; k < res->count && !known; k++)
            known = strcmp(res->cases[k].def->id, b->entries[i].id) == 0;
        if (!known) {
            snprintf(err, err_len,
                     "--baseline %s names case %s, which this suite does not have (renamed or "
                     "removed? `--list` shows the catalog); remove or correct the entry",
                     st->o->baseline, b->entries[i].id);
            return -1;
        }
    }
    return 0;
}

static void apply_baseline(struct run_results *res, const struct baseline *b)
{
    for (size_t k = 0; k < res->count; k++) {
        struct case_result *r = &res->cases[k];
        const struct baseline_entry *e = baseline_find(b, r->def->id);
        if (!e) continue;
        r->in_baseline = true;
        r->baseline_reason = e->reason;
        r->baseline_link = e->link;
        if (!r->selected) continue;
        r->expected_fail = r->outcome == OUT_FAIL || r->outcome == OUT_TIMEOUT;
        r->unexpected_pass = r->outcome == OUT_PASS;
    }
}

void runner_settle(struct run_state *st)
{
    apply_baseline(&st->res, &st->base);
    verdict_compute(&st->res, !st->o->core_only, st->o->require_complete);
    clock_utc_now(st->res.finished_at, sizeof st->res.finished_at);
    st->res.seconds = clock_mono_s() - st->t0;
}

void runner_report_unreachable(struct run_state *st, const char *why)
{
    struct run_results *res = &st->res;
    res->unreachable = strdup(why);
    for (size_t i = 0; i < res->count; i++) {
        struct case_result *r = &res->cases[i];
        if (!r->selected || r->outcome != OUT_NOT_RUN) continue;
        r->outcome = OUT_SKIP;
        r->not_run = true;
        free(r->reason);
        r->reason = text_fmt("not run: the runtime is unreachable: %s", why);
    }
    runner_settle(st);
    if (st->log_fd >= 0) dprintf(st->log_fd, "unreachable: %s\n", why);
    runner_write_reports(st->o, res, st->log_path[0] ? st->log_path : NULL, NULL);
}
