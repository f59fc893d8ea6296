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
#include "explore_round.h"
#include "explore_rng.h"
#include "explore_shrink.h"
#include "explore_target.h"
#include "text_util.h"

#define REPLAY_MAX_BYTES (64u << 20)
/* Runs of a concurrent round that must all pass before a shrinking step
 * says the race is gone; a replay, asked for to show the race again, tries
 * longer (a race of a few microseconds shows in few interleavings). */
#define XROUND_ATTEMPTS 3
#define XREPLAY_ATTEMPTS 30

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
            if (again.observed_other) {
                /* A concurrent finding has no lockstep answer of the other
                 * side until the minimal sequence ran in lockstep. */
                free(f->observed_b);
                f->observed_b = again.observed_other;
                again.observed_other = NULL;
            }
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

static int load_replay(const char *path, struct xhist_job **jobs, size_t *n, uint64_t *seed,
                       bool *concurrent)
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
    int rc = xhist_parse_jobs(buf, len, jobs, n, seed, concurrent, err, sizeof err);
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

static struct xreport_finding *new_finding(struct explore *e)
{
    struct xreport_finding *grown =
        realloc(e->rep.findings, (e->rep.n_findings + 1) * sizeof *grown);
    if (!grown) return NULL;
    e->rep.findings = grown;
    struct xreport_finding *f = &grown[e->rep.n_findings++];
    memset(f, 0, sizeof *f);
    return f;
}

static const char *side_name(bool a, bool b)
{
    return a && b ? "both" : a ? "A" : "B";
}

/* A round whose register history no order explains: shrunk as a round
 * (fewer jobs, fewer operations), confirmed, written as a concurrent replay
 * file. dev is the side whose runtime shows it. */
static void record_round_finding(struct explore *e, struct xhist_job *spec, size_t n, uint64_t seed,
                                 struct xround_side *s, const char *side, size_t dev)
{
    const struct explore_opts *o = e->o;
    struct xreport_finding *f = new_finding(e);
    if (!f) return;
    snprintf(f->clause, sizeof f->clause, "%s", s->reg_clause);
    f->expected = s->reg_expected;
    f->observed = s->reg_observed;
    s->reg_expected = s->reg_observed = NULL;
    f->side = e->sides == 2 ? side : NULL;
    if (e->sides == 2 && strcmp(side, "both") != 0)
        f->observed_b = text_fmt("the same jobs against the other runtime: a history some order "
                                 "of its operations explains");
    f->seq_seed = seed;
    struct xhist_job *min = xround_copy(spec, n);
    size_t n_min = n;
    size_t ops_before = 0;
    for (size_t j = 0; j < n; j++)
        ops_before += spec[j].n;
    f->concurrent = true;
    f->conc_jobs_before = n;
    f->conc_ops_before = ops_before;
    struct xround_target t = {e->t[dev].grpc, e->t[dev].rest, e->run_dir, &e->run_counter};
    if (min && o->shrink) {
        if (!o->quiet)
            fprintf(stderr, "explore: %s finding in a round of %zu jobs; shrinking...\n", f->clause,
                    n);
        xround_shrink(&t, min, &n_min, f->clause, XROUND_ATTEMPTS, o->shrink_runs,
                      o->shrink_seconds, &f->shrink);
        f->shrunk = true;
        e->rep.shrink_seconds += f->shrink.seconds;
        f->confirmed = xround_fails(&t, min, n_min, f->clause, XROUND_ATTEMPTS);
    }
    const struct xhist_job *kept = min ? min : spec;
    size_t n_kept = min ? n_min : n;
    f->conc_jobs = n_kept;
    for (size_t j = 0; j < n_kept; j++)
        f->conc_ops += kept[j].n;
    f->failing_op = text_fmt("concurrent PUTs and GETs of shared files between %zu job%s "
                             "(%zu operations of their own in all)",
                             n_kept, n_kept == 1 ? "" : "s", f->conc_ops);
    f->replay_text = xhist_dump_jobs(kept, n_kept, seed, f->clause);
    if (o->save_dir && f->replay_text) {
        char name[96];
        mkdir(o->save_dir, 0755);
        snprintf(name, sizeof name, "explore-%" PRIu64 "-%s.replay.json", seed, f->clause);
        save_text(o->save_dir, name, f->replay_text, f->saved_replay, sizeof f->saved_replay);
    }
    if (min) xhist_jobs_free(min, n_min);
}

/* One concurrent round on every side, the same jobs on each (in turn, so
 * that neither side's load changes the other's timing). Each side is judged
 * on its own, by its jobs' models and its register history: the answers of
 * two runtimes to concurrent operations are never compared with each other,
 * since their interleavings differ. attempts > 1 (a replay) repeats the
 * round until something is found. */
static int run_jobs(struct explore *e, struct xhist_job *spec, size_t n, uint64_t seq_seed,
                    unsigned round, unsigned attempts)
{
    const struct explore_opts *o = e->o;
    struct xround_side s[2];
    memset(s, 0, sizeof s);
    bool found = false;
    for (unsigned attempt = 0; attempt < attempts && !found; attempt++) {
        for (size_t i = 0; i < e->sides; i++) {
            xround_side_free(&s[i]);
            struct xround_target t = {e->t[i].grpc, e->t[i].rest, e->run_dir, &e->run_counter};
            double s0 = now_s();
            xround_run(&t, spec, n, &s[i]);
            e->rep.seconds += now_s() - s0;
            /* Counted once, as lockstep sequences are: the target's side. */
            if (i == 0) e->rep.contended += s[i].contended;
            for (size_t j = 0; j < n && s[i].jobs && i == 0; j++) {
                e->rep.sequences++;
                e->rep.ops_run += s[i].jobs[j].ops_run + s[i].jobs[j].contended;
                xcov_merge(&e->rep.cov, &s[i].jobs[j].cov);
            }
            if (s[i].setup_failed) {
                fprintf(stderr, "sandboxd-conformance explore: %scannot create the workspace: %s\n",
                        i ? "against: " : "", s[i].why);
                xround_side_free(&s[0]);
                xround_side_free(&s[1]);
                return 3;
            }
            found |= s[i].reg_found || s[i].found_in < n;
        }
        if (!o->quiet)
            fprintf(stderr,
                    "explore: round %u (seed %" PRIu64 ")%s: %zu jobs, %zu contended operations, "
                    "%s\n",
                    round + 1, seq_seed, attempts > 1 ? ", replayed" : "", n, s[0].contended,
                    found ? "a finding" : "no finding");
    }
    /* The register check first: it decides what only concurrency shows. */
    bool reg_a = s[0].reg_found, reg_b = e->sides == 2 && s[1].reg_found;
    if (reg_b && reg_a && strcmp(s[0].reg_clause, s[1].reg_clause) != 0) reg_b = false;
    if (reg_a || reg_b)
        record_round_finding(e, spec, n, seq_seed, reg_a ? &s[0] : &s[1], side_name(reg_a, reg_b),
                             reg_a ? 0 : 1);
    /* A job's own sequence: shrunk as a sequence (run alone, in lockstep
     * on both sides). */
    size_t in_a = s[0].found_in, in_b = e->sides == 2 ? s[1].found_in : n;
    if (in_a < n || in_b < n) {
        size_t dev = in_a < n ? 0 : 1;
        size_t j = dev ? in_b : in_a;
        struct xjob *x = &s[dev].jobs[j];
        bool both = dev == 0 && in_b == j && s[1].jobs[j].at == x->at &&
                    strcmp(s[1].jobs[j].f.clause, x->f.clause) == 0;
        struct seq_result r;
        memset(&r, 0, sizeof r);
        r.found = true;
        r.at = x->at;
        r.f = x->f;
        memset(&x->f, 0, sizeof x->f);
        r.last = x->last;
        memset(&x->last, 0, sizeof x->last);
        if (e->sides == 2) r.side = side_name(dev == 0, dev == 1 || both);
        record_finding(e, spec[j].ops, &r, spec[j].seed);
        seq_result_free(&r);
    }
    xround_side_free(&s[0]);
    xround_side_free(&s[1]);
    return 0;
}

static int explore_run(struct explore *e, struct xhist_job *replay, size_t n_replay,
                       bool replay_concurrent)
{
    const struct explore_opts *o = e->o;
    double t0 = now_s();
    double deadline = t0 + o->duration;
    if (replay && (replay_concurrent || o->jobs > 1)) {
        /* A concurrent replay: its recorded per-connection sequences (or
         * one sequence on --jobs connections), as a round repeated until
         * the interleaving shows something, at most XREPLAY_ATTEMPTS times. */
        struct xhist_job *spec = replay;
        size_t n = n_replay;
        if (!replay_concurrent) {
            spec = calloc(o->jobs, sizeof *spec);
            if (!spec) return 4;
            for (unsigned j = 0; j < o->jobs; j++)
                spec[j] = (struct xhist_job){
                    .seed = j == 0 ? replay[0].seed
                                   : xrng_mix(replay[0].seed ^ (0x9E3779B97F4A7C15ull * j)),
                    .ops = replay[0].ops,
                    .n = replay[0].n};
            n = o->jobs;
        }
        int rc = run_jobs(e, spec, n, o->seed, 0, XREPLAY_ATTEMPTS);
        if (spec != replay) free(spec);
        return rc;
    }
    for (unsigned i = 0;; i++) {
        uint64_t seq_seed = i == 0 ? o->seed : xrng_mix(o->seed + i);
        if (o->jobs > 1) {
            struct xhist_job *spec = xround_make(seq_seed, o->jobs, o->ops);
            if (!spec) return 4;
            int rc = run_jobs(e, spec, o->jobs, seq_seed, i, 1);
            xhist_jobs_free(spec, o->jobs);
            if (rc) return rc;
            if (e->rep.n_findings || o->duration <= 0 || now_s() >= deadline) break;
            continue;
        }
        size_t n = replay ? replay[0].n : o->ops;
        struct xop *ops = replay ? replay[0].ops : xgen_sequence(seq_seed, n);
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
    struct xhist_job *replay = NULL;
    size_t n_replay = 0;
    bool replay_concurrent = false;
    if (o.replay_path) {
        uint64_t seed = 0;
        rc = load_replay(o.replay_path, &replay, &n_replay, &seed, &replay_concurrent);
        if (rc) return rc;
        if (!o.seed_set) o.seed = seed;
        size_t total = 0;
        for (size_t j = 0; j < n_replay; j++)
            total += replay[j].n;
        const char *bad = total == 0 ? "the replay file holds no operation"
                          : replay_concurrent && o.jobs > 1 && o.jobs != n_replay
                              ? "--jobs differs from the number of jobs the replay file holds"
                              : NULL;
        if (bad) {
            fprintf(stderr, "sandboxd-conformance explore: %s\n", bad);
            xhist_jobs_free(replay, n_replay);
            return 2;
        }
        if (replay_concurrent) o.jobs = (unsigned)n_replay;
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
            xhist_jobs_free(replay, n_replay);
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

    rc = explore_run(&e, replay, n_replay, replay_concurrent);
    remove_run_dir(&e);
    if (rc == 0) {
        xreport_console(stdout, &e.rep);
        if (write_reports(&o, &e.rep) != 0) rc = 4;
        if (rc == 0) rc = e.rep.n_findings ? 1 : 0;
    }
    for (size_t i = 0; i < e.sides; i++)
        xtarget_close(&e.t[i]);
    xreport_free(&e.rep);
    xhist_jobs_free(replay, n_replay);
    curl_global_cleanup();
    return rc;
}
