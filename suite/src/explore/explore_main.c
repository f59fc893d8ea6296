/* SPDX-License-Identifier: Apache-2.0 */
/* The explore subcommand: targets, sequences, findings, shrinking, reports. */
#include "explore_main.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "explore_case_draft.h"
#include "explore_gen.h"
#include "explore_history.h"
#include "explore_jobs.h"
#include "explore_model.h"
#include "explore_ops.h"
#include "explore_opts.h"
#include "explore_report.h"
#include "explore_report_files.h"
#include "explore_rng.h"
#include "explore_shrink.h"
#include "explore_target.h"
#include "text_util.h"

#define REPLAY_MAX_BYTES (64u << 20)

struct explore {
    const struct explore_opts *o;
    struct xtarget t[2];
    size_t sides;
    char run_dir[64];
    unsigned run_counter;
    struct xreport rep;
};

/* The outcome of running one sequence. */
struct seq_result {
    bool found;
    size_t at;
    struct xfinding f;
    const char *side;
    char *observed_other;
    struct xans last; /* the deviating answer (for the case draft) */
    size_t ops_run;
    unsigned open_disagreements;
    bool setup_failed;
    char why[600];
};

static void seq_result_free(struct seq_result *r)
{
    xfinding_free(&r->f);
    xans_free(&r->last);
    free(r->observed_other);
    memset(r, 0, sizeof *r);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool same_outcome(const struct xans *x, const struct xans *y)
{
    if (x->skipped || y->skipped) return true;
    if (x->status != y->status || x->gcode != y->gcode || x->init != y->init) return false;
    return (x->exit_code == 0) == (y->exit_code == 0);
}

/* Runs ops against every side in lockstep, each with its own model. */
static void run_ops(struct explore *e, const struct xop *ops, size_t n, bool count,
                    struct seq_result *res)
{
    memset(res, 0, sizeof *res);
    char ws[200];
    snprintf(ws, sizeof ws, "%s/r%u", e->run_dir, e->run_counter++);
    struct xrt rt[2];
    struct xmodel m[2];
    size_t opened = 0;
    for (size_t i = 0; i < e->sides; i++) {
        xrt_init(&rt[i], e->t[i].grpc, e->t[i].rest);
        xmodel_init(&m[i]);
        opened++;
        if (xrt_begin(&rt[i], ws, res->why, sizeof res->why) != 0) {
            res->setup_failed = true;
            break;
        }
    }
    for (size_t k = 0; k < n && !res->setup_failed; k++) {
        struct xans a[2];
        struct xfinding f[2];
        int bad[2] = {0, 0};
        for (size_t i = 0; i < e->sides; i++)
            xrt_exec(&rt[i], &ops[k], &a[i]);
        for (size_t i = 0; i < e->sides; i++)
            bad[i] = xmodel_step(&m[i], &ops[k], &a[i], &f[i]);
        res->ops_run++;
        if (count) xcov_add(&e->rep.cov, &ops[k], &a[0]);
        if (e->sides == 2 && !bad[0] && !bad[1] && !same_outcome(&a[0], &a[1]))
            res->open_disagreements++;
        if (bad[0] || bad[1]) {
            size_t dev = bad[0] ? 0 : 1;
            res->found = true;
            res->at = k;
            res->f = f[dev];
            memset(&f[dev], 0, sizeof f[dev]);
            if (e->sides == 2) {
                res->side = bad[0] && bad[1] ? "both" : bad[0] ? "A" : "B";
                if (ops[k].kind == XOP_METADATA) xans_withhold_body(&a[1 - dev]);
                res->observed_other = xans_render(&a[1 - dev]);
            }
            res->last = a[dev]; /* taken over: not freed below */
            memset(&a[dev], 0, sizeof a[dev]);
            if (ops[k].kind == XOP_METADATA) xans_withhold_body(&res->last);
        }
        for (size_t i = 0; i < e->sides; i++) {
            xfinding_free(&f[i]);
            xans_free(&a[i]);
        }
        if (res->found) break;
    }
    for (size_t i = 0; i < opened; i++) {
        char why[600];
        if (xrt_end(&rt[i], why, sizeof why) != 0 && !e->o->quiet)
            fprintf(stderr, "explore: workspace %s not removed: %s\n", ws, why);
        xrt_release(&rt[i]);
        xmodel_free(&m[i]);
    }
}

struct pred_ctx {
    struct explore *e;
    char clause[24];
    const char *side;
    bool runtime_lost; /* a run could not even create its workspace */
};

static int still_fails(const struct xop *ops, size_t n, void *ud)
{
    struct pred_ctx *p = ud;
    if (p->runtime_lost) return 0; /* nothing to learn from a runtime that is gone */
    struct seq_result r;
    run_ops(p->e, ops, n, false, &r);
    if (r.setup_failed) p->runtime_lost = true;
    int fails = r.found && strcmp(r.f.clause, p->clause) == 0 &&
                (!p->side || (r.side && strcmp(r.side, p->side) == 0));
    seq_result_free(&r);
    return fails;
}

static void save_text(const char *dir, const char *name, const char *text, char *out, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "explore: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fputs(text, f);
    if (fclose(f) == 0) snprintf(out, len, "%s", path);
}

static void record_finding(struct explore *e, const struct xop *ops, struct seq_result *r,
                           uint64_t seq_seed)
{
    const struct explore_opts *o = e->o;
    struct xreport_finding *grown =
        realloc(e->rep.findings, (e->rep.n_findings + 1) * sizeof *grown);
    if (!grown) return;
    e->rep.findings = grown;
    struct xreport_finding *f = &grown[e->rep.n_findings++];
    memset(f, 0, sizeof *f);
    snprintf(f->clause, sizeof f->clause, "%s", r->f.clause);
    f->expected = r->f.expected;
    f->observed = r->f.observed;
    r->f.expected = r->f.observed = NULL;
    f->observed_b = r->observed_other;
    r->observed_other = NULL;
    f->side = r->side;
    f->failing_op = xop_render(&ops[r->at]);
    f->seq_seed = seq_seed;
    f->op_index = r->at;
    f->original_len = r->at + 1;
    f->n_minimal = r->at + 1;
    f->minimal = malloc(f->n_minimal * sizeof *f->minimal);
    if (!f->minimal) return;
    memcpy(f->minimal, ops, f->n_minimal * sizeof *ops);
    struct seq_result again;
    memset(&again, 0, sizeof again);
    const struct xans *last = &r->last;
    if (o->shrink) {
        if (!o->quiet)
            fprintf(stderr, "explore: %s finding at operation %zu; shrinking...\n", f->clause,
                    r->at + 1);
        struct pred_ctx p = {.e = e, .side = f->side};
        snprintf(p.clause, sizeof p.clause, "%s", f->clause);
        xshrink(f->minimal, &f->n_minimal, still_fails, &p, o->shrink_runs, o->shrink_seconds,
                &f->shrink);
        f->shrunk = true;
        f->runtime_lost = p.runtime_lost;
        e->rep.shrink_seconds += f->shrink.seconds;
        /* Confirm: the minimal sequence, run once more, fails the same way. */
        run_ops(e, f->minimal, f->n_minimal, false, &again);
        f->confirmed = again.found && strcmp(again.f.clause, f->clause) == 0;
        if (f->confirmed) {
            /* What the minimal sequence shows, in its own names. */
            free(f->expected);
            free(f->observed);
            free(f->failing_op);
            f->expected = again.f.expected;
            f->observed = again.f.observed;
            again.f.expected = again.f.observed = NULL;
            f->failing_op = xop_render(&f->minimal[again.at]);
            last = &again.last;
        }
    }
    f->replay_text = xhist_dump(f->minimal, f->n_minimal, seq_seed, f->clause);
    f->case_draft = xcase_draft(f->minimal, f->n_minimal, seq_seed, f->clause, f->expected, last);
    seq_result_free(&again);
    if (o->save_dir && f->replay_text && f->case_draft) {
        char name[96];
        mkdir(o->save_dir, 0755);
        snprintf(name, sizeof name, "explore-%" PRIu64 "-%s.replay.json", seq_seed, f->clause);
        save_text(o->save_dir, name, f->replay_text, f->saved_replay, sizeof f->saved_replay);
        snprintf(name, sizeof name, "explore-%" PRIu64 "-%s.case.c", seq_seed, f->clause);
        save_text(o->save_dir, name, f->case_draft, f->saved_case, sizeof f->saved_case);
    }
}

static int load_replay(const char *path, struct xop **ops, size_t *n, uint64_t *seed)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "sandboxd-conformance explore: --replay %s: %s\n", path, strerror(errno));
        return 2;
    }
    char *buf = malloc(REPLAY_MAX_BYTES + 1);
    size_t len = buf ? fread(buf, 1, REPLAY_MAX_BYTES + 1, f) : 0;
    fclose(f);
    char err[300];
    if (!buf || len > REPLAY_MAX_BYTES) {
        fprintf(stderr, "sandboxd-conformance explore: --replay %s: too large\n", path);
        free(buf);
        return 2;
    }
    int rc = xhist_parse(buf, len, ops, n, seed, err, sizeof err);
    free(buf);
    if (rc != 0) {
        fprintf(stderr, "sandboxd-conformance explore: --replay %s: %s\n", path, err);
        return 2;
    }
    return 0;
}

static void remove_run_dir(struct explore *e)
{
    for (size_t i = 0; i < e->sides; i++) {
        struct xrt rt;
        char why[600];
        xrt_init(&rt, e->t[i].grpc, e->t[i].rest);
        snprintf(rt.ws, sizeof rt.ws, "%s", e->run_dir);
        if (xrt_end(&rt, why, sizeof why) != 0)
            fprintf(stderr, "explore: %s not removed: %s\n", e->run_dir, why);
        xrt_release(&rt);
    }
}

static void register_finding(struct explore *e, uint64_t seed, char *clause, char *expected,
                             char *observed)
{
    struct xreport_finding *grown =
        realloc(e->rep.findings, (e->rep.n_findings + 1) * sizeof *grown);
    if (!grown) return;
    e->rep.findings = grown;
    struct xreport_finding *f = &grown[e->rep.n_findings++];
    memset(f, 0, sizeof *f);
    snprintf(f->clause, sizeof f->clause, "%s", clause);
    f->expected = expected;
    f->observed = observed;
    f->failing_op = text_fmt("concurrent PUTs and GETs of shared files (%u jobs); not shrunk: "
                             "the history depends on timing",
                             e->o->jobs);
    f->seq_seed = seed;
}

/* One round of concurrent jobs: their own findings are shrunk as sequences
 * (run alone), the register history is checked as a whole. */
static int run_jobs(struct explore *e, uint64_t seq_seed, unsigned round)
{
    const struct explore_opts *o = e->o;
    struct xjob *jobs = calloc(o->jobs, sizeof *jobs);
    struct xreg_history h;
    if (!jobs) return 4;
    xreg_init(&h);
    char base[120];
    snprintf(base, sizeof base, "%s/r%u", e->run_dir, e->run_counter++);
    for (unsigned j = 0; j < o->jobs; j++) {
        jobs[j].index = (int)j;
        jobs[j].seed = j == 0 ? seq_seed : xrng_mix(seq_seed ^ (0x9E3779B97F4A7C15ull * j));
        jobs[j].ops = xgen_sequence(jobs[j].seed, o->ops);
        jobs[j].n = jobs[j].ops ? o->ops : 0;
        jobs[j].grpc = e->t[0].grpc;
        jobs[j].rest = e->t[0].rest;
        jobs[j].history = &h;
        snprintf(jobs[j].ws, sizeof jobs[j].ws, "%s/j%u", base, j);
        snprintf(jobs[j].shared, sizeof jobs[j].shared, "%s/shared", base);
    }
    double s0 = now_s();
    xjobs_run(jobs, o->jobs);
    e->rep.seconds += now_s() - s0;
    uint64_t final[XREG_COUNT];
    bool known[XREG_COUNT];
    xjobs_read_final(e->t[0].grpc, e->t[0].rest, jobs[0].shared, final, known);
    int rc = 0;
    size_t found_in = o->jobs;
    for (unsigned j = 0; j < o->jobs; j++) {
        e->rep.sequences++;
        e->rep.ops_run += jobs[j].ops_run + jobs[j].contended;
        e->rep.contended += jobs[j].contended;
        xcov_merge(&e->rep.cov, &jobs[j].cov);
        if (jobs[j].setup_failed) {
            fprintf(stderr, "sandboxd-conformance explore: cannot create the workspace: %s\n",
                    jobs[j].why);
            rc = 3;
        }
        if (jobs[j].found && found_in == o->jobs) found_in = j;
    }
    if (!o->quiet)
        fprintf(stderr, "explore: round %u (seed %" PRIu64 "): %u jobs, %zu contended operations\n",
                round + 1, seq_seed, o->jobs, h.n);
    char clause[24];
    char *expected = NULL, *observed = NULL;
    if (rc == 0 && xreg_check(&h, final, known, clause, &expected, &observed))
        register_finding(e, seq_seed, clause, expected, observed);
    if (rc == 0 && found_in < o->jobs) {
        struct xjob *j = &jobs[found_in];
        struct seq_result r;
        memset(&r, 0, sizeof r);
        r.found = true;
        r.at = j->at;
        r.f = j->f;
        memset(&j->f, 0, sizeof j->f);
        r.last = j->last;
        memset(&j->last, 0, sizeof j->last);
        record_finding(e, j->ops, &r, j->seed);
        seq_result_free(&r);
    }
    for (unsigned j = 0; j < o->jobs; j++) {
        xfinding_free(&jobs[j].f);
        xans_free(&jobs[j].last);
        free((void *)jobs[j].ops);
    }
    free(jobs);
    xreg_free(&h);
    return rc;
}

static int explore_run(struct explore *e, struct xop *replay, size_t n_replay)
{
    const struct explore_opts *o = e->o;
    double t0 = now_s();
    double deadline = t0 + o->duration;
    for (unsigned i = 0;; i++) {
        uint64_t seq_seed = i == 0 ? o->seed : xrng_mix(o->seed + i);
        if (o->jobs > 1) {
            int rc = run_jobs(e, seq_seed, i);
            if (rc) return rc;
            if (e->rep.n_findings || o->duration <= 0 || now_s() >= deadline) break;
            continue;
        }
        size_t n = replay ? n_replay : o->ops;
        struct xop *ops = replay ? replay : xgen_sequence(seq_seed, n);
        if (!ops) return 4;
        double s0 = now_s();
        struct seq_result r;
        run_ops(e, ops, n, true, &r);
        e->rep.seconds += now_s() - s0;
        e->rep.sequences++;
        e->rep.ops_run += r.ops_run;
        e->rep.open_disagreements += r.open_disagreements;
        if (r.setup_failed) {
            fprintf(stderr, "sandboxd-conformance explore: cannot create the workspace: %s\n",
                    r.why);
            seq_result_free(&r);
            if (!replay) free(ops);
            return 3;
        }
        if (!o->quiet)
            fprintf(stderr, "explore: sequence %u (seed %" PRIu64 "): %zu operations, %s\n", i + 1,
                    seq_seed, r.ops_run, r.found ? "a finding" : "no finding");
        if (r.found) record_finding(e, ops, &r, seq_seed);
        seq_result_free(&r);
        if (!replay) free(ops);
        if (e->rep.n_findings || replay || o->duration <= 0 || now_s() >= deadline) break;
    }
    return 0;
}

/* Every report asked for; 0, or -1 after saying what failed. */
static int write_reports(const struct explore_opts *o, const struct xreport *rep)
{
    int rc = 0;
    char err[700];
    if (o->json_path && xreport_json(o->json_path, rep, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance explore: %s\n", err);
        rc = -1;
    }
    struct {
        const char *path;
        int (*fn)(const char *, const struct xreport *);
        const char *what;
    } reps[] = {{o->junit_path, xreport_junit, "JUnit"}, {o->html_path, xreport_html, "HTML"}};
    for (size_t i = 0; i < sizeof reps / sizeof reps[0]; i++)
        if (reps[i].path && reps[i].fn(reps[i].path, rep) != 0) {
            fprintf(stderr, "sandboxd-conformance explore: cannot write the %s report %s: %s\n",
                    reps[i].what, reps[i].path, strerror(errno));
            rc = -1;
        }
    if (o->bundle_dir && xreport_bundle(o->bundle_dir, rep, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance explore: the bundle %s: %s\n", o->bundle_dir, err);
        rc = -1;
    }
    return rc;
}

int explore_main(int argc, char **argv)
{
    struct explore_opts o;
    int rc = explore_parse_args(argc, argv, &o);
    if (rc == 1) return 0;
    if (rc != 0) return 2;
    struct xop *replay = NULL;
    size_t n_replay = 0;
    if (o.replay_path) {
        uint64_t seed = 0;
        rc = load_replay(o.replay_path, &replay, &n_replay, &seed);
        if (rc) return rc;
        if (!o.seed_set) o.seed = seed;
        if (n_replay == 0) {
            fputs("sandboxd-conformance explore: the replay file holds no operation\n", stderr);
            free(replay);
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    static struct explore e;
    memset(&e, 0, sizeof e);
    e.o = &o;
    e.sides = o.against ? 2 : 1;
    e.rep.seed = o.seed;
    e.rep.jobs = o.jobs;
    printf("explore: seed %" PRIu64 "%s%s\n", o.seed, o.replay_path ? ", replaying " : "",
           o.replay_path ? o.replay_path : "");
    fflush(stdout);
    const struct xtarget_spec *specs[2] = {&o.a, &o.b};
    for (size_t i = 0; i < e.sides; i++) {
        char err[2048] = "";
        rc = xtarget_open(&e.t[i], specs[i], err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "sandboxd-conformance explore: %s%s\n  %s\n", i ? "against: " : "",
                    rc == 3 ? "runtime unreachable" : "cannot set up the runtime", err);
            for (size_t k = 0; k <= i; k++)
                xtarget_close(&e.t[k]);
            free(replay);
            curl_global_cleanup();
            return rc;
        }
    }
    snprintf(e.rep.target_a, sizeof e.rep.target_a, "%s", e.t[0].description);
    if (e.sides == 2) snprintf(e.rep.target_b, sizeof e.rep.target_b, "%s", e.t[1].description);
    printf("runtime: %s\n", e.rep.target_a);
    if (e.sides == 2) printf("against: %s\n", e.rep.target_b);
    fflush(stdout);
    snprintf(e.run_dir, sizeof e.run_dir, "sbx-explore-%ld-%ld", (long)getpid(), (long)time(NULL));

    rc = explore_run(&e, replay, n_replay);
    remove_run_dir(&e);
    if (rc == 0) {
        xreport_console(stdout, &e.rep);
        if (write_reports(&o, &e.rep) != 0) rc = 4;
        if (rc == 0) rc = e.rep.n_findings ? 1 : 0;
    }
    for (size_t i = 0; i < e.sides; i++)
        xtarget_close(&e.t[i]);
    xreport_free(&e.rep);
    free(replay);
    curl_global_cleanup();
    return rc;
}
