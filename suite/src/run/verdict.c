/* SPDX-License-Identifier: Apache-2.0 */
/* Verdict and exit code. */
#include "verdict.h"

#include <stdio.h>
#include <string.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1 };

static void add_reason(struct verdict_info *v, const char *level, unsigned n, const char *what)
{
    if (n == 0 || v->n_reasons >= (int)(sizeof v->reasons / sizeof v->reasons[0])) return;
    snprintf(v->reasons[v->n_reasons++], sizeof v->reasons[0], "%u %s case%s %s", n, level,
             n == 1 ? "" : "s", what);
}

void verdict_compute(struct run_results *res, bool full_level, bool require_complete)
{
    struct verdict_info *v = &res->verdict;
    memset(v, 0, sizeof *v);
    unsigned must_skipped = 0, must_filtered = 0, must_xfail = 0, must_interrupted = 0;
    unsigned should_skipped = 0, should_filtered = 0, should_xfail = 0, should_interrupted = 0;
    bool any_bad = false;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (r->selected && result_is_bad(r)) any_bad = true;
        if (!r->in_level) continue;
        /* Transport-profile cases are MUST once the profile is selected. */
        bool must = r->def->level == LEVEL_MUST || (r->def->needs & NEEDS_TRANSPORT);
        struct level_tally *t = must ? &v->must : &v->should;
        t->total++;
        if (!r->selected || r->outcome == OUT_NOT_RUN) {
            t->missing++;
            (*(must ? &must_filtered : &should_filtered))++;
        } else if (r->expected_fail) {
            t->missing++;
            (*(must ? &must_xfail : &should_xfail))++;
        } else if (result_is_bad(r)) {
            t->failed++;
        } else if (r->outcome == OUT_PASS) {
            t->passed++;
        } else if (r->not_run) {
            t->missing++;
            (*(must ? &must_interrupted : &should_interrupted))++;
        } else {
            t->missing++;
            (*(must ? &must_skipped : &should_skipped))++;
        }
    }
    if (v->must.failed > 0)
        v->verdict = VERDICT_NOT;
    else if (v->must.missing > 0)
        v->verdict = VERDICT_INCOMPLETE;
    else if (full_level && v->should.failed == 0 && v->should.missing == 0)
        v->verdict = VERDICT_FULL;
    else
        v->verdict = VERDICT_CORE;
    v->complete = v->must.missing == 0 && (!full_level || v->should.missing == 0);

    add_reason(v, "MUST", v->must.failed, "failed, timed out or errored");
    const char *not_run = res->unreachable ? "not run (the runtime is unreachable)"
                                           : "not run or not finished (the run was interrupted)";
    add_reason(v, "MUST", must_interrupted, not_run);
    add_reason(v, "MUST", must_skipped, "skipped (unmet needs: see each case)");
    add_reason(v, "MUST", must_filtered, "filtered out by the selection");
    add_reason(v, "MUST", must_xfail, "expected to fail (baseline)");
    if (full_level) {
        add_reason(v, "SHOULD", v->should.failed, "failed, timed out or errored");
        add_reason(v, "SHOULD", should_interrupted, not_run);
        add_reason(v, "SHOULD", should_skipped, "skipped");
        add_reason(v, "SHOULD", should_filtered, "filtered out by the selection");
        add_reason(v, "SHOULD", should_xfail, "expected to fail (baseline)");
    }
    const struct tls_peer *g = &res->runtime.grpc_tls, *r = &res->runtime.rest_tls;
    if ((g->tls && !g->verified) || (r->tls && !r->verified)) {
        /* --insecure: the verdict stands for whatever answered. */
        if (v->n_reasons < (int)(sizeof v->reasons / sizeof v->reasons[0]))
            snprintf(v->reasons[v->n_reasons++], sizeof v->reasons[0],
                     "TLS not verified (--insecure): the server's certificate and name were not "
                     "checked");
    }
    v->exit_code = any_bad ? EXIT_FAILED : EXIT_OK;
    if (require_complete && !v->complete) v->exit_code = EXIT_FAILED;
}
