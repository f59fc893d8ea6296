/* SPDX-License-Identifier: Apache-2.0 */
/* Concurrent rounds: running, checking and shrinking them. */
#include "explore_round.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore_gen.h"
#include "explore_ops.h"
#include "explore_rng.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct xhist_job *xround_make(uint64_t seed, unsigned jobs, unsigned ops)
{
    struct xhist_job *spec = calloc(jobs, sizeof *spec);
    if (!spec) return NULL;
    for (unsigned j = 0; j < jobs; j++) {
        spec[j].seed = j == 0 ? seed : xrng_mix(seed ^ (0x9E3779B97F4A7C15ull * j));
        spec[j].ops = xgen_sequence(spec[j].seed, ops);
        spec[j].n = spec[j].ops ? ops : 0;
        if (!spec[j].ops) {
            xhist_jobs_free(spec, jobs);
            return NULL;
        }
    }
    return spec;
}

struct xhist_job *xround_copy(const struct xhist_job *spec, size_t n)
{
    struct xhist_job *c = calloc(n ? n : 1, sizeof *c);
    if (!c) return NULL;
    for (size_t j = 0; j < n; j++) {
        c[j] = spec[j];
        c[j].ops = malloc((spec[j].n ? spec[j].n : 1) * sizeof *c[j].ops);
        if (!c[j].ops) {
            xhist_jobs_free(c, n);
            return NULL;
        }
        memcpy(c[j].ops, spec[j].ops, spec[j].n * sizeof *c[j].ops);
    }
    return c;
}

void xround_run(const struct xround_target *t, const struct xhist_job *spec, size_t n,
                struct xround_side *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->found_in = n;
    out->jobs = calloc(n ? n : 1, sizeof *out->jobs);
    if (!out->jobs) {
        out->setup_failed = true;
        snprintf(out->why, sizeof out->why, "out of memory");
        return;
    }
    struct xreg_history h;
    xreg_init(&h);
    char base[120];
    snprintf(base, sizeof base, "%s/r%u", t->run_dir, (*t->counter)++);
    for (size_t j = 0; j < n; j++) {
        struct xjob *x = &out->jobs[j];
        x->index = (int)j;
        x->seed = spec[j].seed;
        x->ops = spec[j].ops;
        x->n = spec[j].n;
        x->grpc = t->grpc;
        x->rest = t->rest;
        x->history = &h;
        snprintf(x->ws, sizeof x->ws, "%s/j%zu", base, j);
        snprintf(x->shared, sizeof x->shared, "%s/shared", base);
    }
    xjobs_run(out->jobs, n);
    uint64_t final[XREG_COUNT];
    bool known[XREG_COUNT];
    xjobs_read_final(t->grpc, t->rest, out->jobs[0].shared, final, known);
    for (size_t j = 0; j < n; j++) {
        out->contended += out->jobs[j].contended;
        if (out->jobs[j].setup_failed && !out->setup_failed) {
            out->setup_failed = true;
            snprintf(out->why, sizeof out->why, "%s", out->jobs[j].why);
        }
        if (out->jobs[j].found && out->found_in == n) out->found_in = j;
    }
    if (!out->setup_failed)
        out->reg_found = xreg_check(&h, final, known, out->reg_clause, &out->reg_expected,
                                    &out->reg_observed) != 0;
    xreg_free(&h);
    /* The shared files and whatever a job left: a round's directory goes
     * with it, so that shrinking's many rounds do not fill the root. */
    struct xrt rt;
    char why[600];
    xrt_init(&rt, t->grpc, t->rest);
    snprintf(rt.ws, sizeof rt.ws, "%s", base);
    if (xrt_end(&rt, why, sizeof why) != 0)
        fprintf(stderr, "explore: %s not removed: %s\n", base, why);
    xrt_release(&rt);
}

void xround_side_free(struct xround_side *s)
{
    for (size_t j = 0; s->jobs && j < s->n; j++) {
        xfinding_free(&s->jobs[j].f);
        xans_free(&s->jobs[j].last);
    }
    free(s->jobs);
    free(s->reg_expected);
    free(s->reg_observed);
    memset(s, 0, sizeof *s);
}

bool xround_fails(const struct xround_target *t, const struct xhist_job *spec, size_t n,
                  const char *clause, unsigned attempts)
{
    for (unsigned a = 0; a < attempts; a++) {
        struct xround_side s;
        xround_run(t, spec, n, &s);
        bool lost = s.setup_failed;
        bool fails = s.reg_found && strcmp(s.reg_clause, clause) == 0;
        xround_side_free(&s);
        if (fails) return true;
        if (lost) return false; /* nothing to learn from a runtime that is gone */
    }
    return false;
}

/* The predicate of one job's shrinking: the round with that job's
 * operations replaced by the candidate. */
struct job_pred {
    const struct xround_target *t;
    struct xhist_job *spec;
    size_t n, job;
    const char *clause;
    unsigned attempts;
};

static int job_still_fails(const struct xop *ops, size_t n, void *ud)
{
    struct job_pred *p = ud;
    struct xhist_job saved = p->spec[p->job];
    p->spec[p->job].ops = (struct xop *)ops;
    p->spec[p->job].n = n;
    bool fails = xround_fails(p->t, p->spec, p->n, p->clause, p->attempts);
    p->spec[p->job] = saved;
    return fails;
}

void xround_shrink(const struct xround_target *t, struct xhist_job *spec, size_t *n,
                   const char *clause, unsigned attempts, unsigned max_runs, double max_seconds,
                   struct xshrink_stats *st)
{
    memset(st, 0, sizeof *st);
    double t0 = now_s(), deadline = t0 + max_seconds;
    /* Fewer connections: drop each job while the round still fails. */
    for (size_t j = *n; j-- > 0 && *n > 1;) {
        if (st->runs >= max_runs || now_s() >= deadline) {
            st->out_of_time = true;
            break;
        }
        struct xhist_job dropped = spec[j];
        memmove(&spec[j], &spec[j + 1], (*n - j - 1) * sizeof *spec);
        st->runs++;
        if (xround_fails(t, spec, *n - 1, clause, attempts)) {
            free(dropped.ops);
            (*n)--;
        } else {
            memmove(&spec[j + 1], &spec[j], (*n - j - 1) * sizeof *spec);
            spec[j] = dropped;
        }
    }
    /* Then each job's operations, with what is left of the bounds. */
    for (size_t j = 0; j < *n && !st->out_of_time; j++) {
        double left = deadline - now_s();
        if (left <= 0 || st->runs >= max_runs) {
            st->out_of_time = true;
            break;
        }
        struct job_pred p = {
            .t = t, .spec = spec, .n = *n, .job = j, .clause = clause, .attempts = attempts};
        struct xshrink_stats js;
        xshrink(spec[j].ops, &spec[j].n, job_still_fails, &p, max_runs - st->runs, left, &js);
        st->runs += js.runs;
        st->out_of_time |= js.out_of_time;
    }
    st->seconds = now_s() - t0;
}
