/* SPDX-License-Identifier: Apache-2.0 */
/* The run, start to finish: runner_main in named steps (parse the options,
 * load the catalog, plan the selection, start the run, reach the target,
 * run the cases, finish with the reports). */
#include "runner.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock_util.h"
#include "data_dir.h"
#include "die_with_parent.h"
#include "fs_util.h"
#include "leftover_runs.h"
#include "openapi_schema.h"
#include "output_limit.h"
#include "runner_catalog.h"
#include "runner_probe.h"
#include "runner_reports.h"
#include "runner_state.h"
#include "scheduler.h"
#include "tls_options.h"
#include "verdict.h"
#include "worker.h"

enum { STOP_GRACE_MS = 20000 };

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static uint64_t random_u64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return v;
}

/* Removes the run's workspace prefix on the runtime (forked, bounded by
 * bound_s). */
static void remove_prefix(const struct run_target *t, int log_fd, double bound_s)
{
    fflush(NULL);
    pid_t runner = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (!die_with_parent(runner, SIGKILL)) _exit(1);
        setpgid(0, 0);
        _exit(worker_cleanup(t, t->prefix, NULL, 0, log_fd) == 0 ? 0 : 1);
    }
    if (pid < 0) return;
    double deadline = clock_mono_s() + bound_s;
    int st;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (clock_mono_s() > deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            if (log_fd >= 0) dprintf(log_fd, "removing the workspace %s timed out\n", t->prefix);
            return;
        }
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
}

/* ---- the steps ------------------------------------------------------------ */

/* The options, --help, --version, and the files they name. */
static int parse_options(struct cli_opts *o, int argc, char **argv)
{
    char err[4096];
    if (cli_parse(o, argc, argv, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: %s\n(see sandboxd-conformance --help)\n", err);
        return RUNNER_USAGE;
    }
    /* Every request from here on carries them, workers' included. */
    request_headers_use(&o->headers);
    if (o->help) {
        cli_print_help(stdout);
        return RUNNER_OK;
    }
    if (o->man_options || o->dump_options) return cli_print_options_doc(o, stdout);
    if (o->version) {
        printf("sandboxd-conformance %s (%s)\n", SBX_VERSION, SBX_GIT_COMMIT);
        if (o->data_dir) data_dir_set(o->data_dir);
        printf("data directory: %s\n", data_dir());
        return RUNNER_OK;
    }
    output_limit_set(o->max_output);
    if (tls_addr_is_https(o->grpc) || tls_addr_is_https(o->rest) || o->tls.opts.authority) {
        /* Certificates and keys are read now: a bad file is a usage error
         * before anything runs (workers inherit the context). */
        if (tls_options_set(&o->tls.opts, err, sizeof err) != 0) {
            fprintf(stderr, "sandboxd-conformance: %s\n", err);
            return RUNNER_USAGE;
        }
    }
    if (o->openapi) {
        if (access(o->openapi, R_OK) != 0) {
            fprintf(stderr, "sandboxd-conformance: --openapi %s: %s\n", o->openapi,
                    strerror(errno));
            return RUNNER_USAGE;
        }
        openapi_set_path(o->openapi);
        /* Loaded now, so a document that cannot serve is a usage error
         * before any case runs (workers inherit the loaded document). */
        char why[2100];
        if (!openapi_shared(why, sizeof why)) {
            fprintf(stderr, "sandboxd-conformance: --openapi %s\n", why);
            return RUNNER_USAGE;
        }
    }
    if (o->data_dir) {
        char probe[PATH_MAX];
        data_dir_set(o->data_dir);
        if (access(data_dir_file("openapi/sandboxd.yaml", probe, sizeof probe), R_OK) != 0) {
            fprintf(stderr, "sandboxd-conformance: --data-dir %s: no openapi/sandboxd.yaml in it\n",
                    o->data_dir);
            return RUNNER_USAGE;
        }
    }
    return RUNNER_GO_ON;
}

/* The selection (--focus, --skip, --tags, --rerun-failed, needs), the
 * baseline, and --list. */
static int plan_run(struct run_state *st, const struct catalog *cat)
{
    const struct cli_opts *o = st->o;
    char err[4096];
    if (o->rerun_failed) {
        st->sel.only_ids = selection_failed_ids(o->rerun_failed, err, sizeof err);
        if (!st->sel.only_ids) {
            fprintf(stderr, "sandboxd-conformance: %s\n", err);
            return RUNNER_USAGE;
        }
    }
    if (o->baseline && baseline_load(o->baseline, &st->base, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: %s\n", err);
        return RUNNER_USAGE;
    }
    if (selection_apply(&st->sel, cat, &st->res) != 0) return RUNNER_INTERNAL;
    if (o->baseline && runner_check_baseline_ids(st, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: %s\n", err);
        return RUNNER_USAGE;
    }
    if (o->list) {
        runner_print_list(&st->res);
        return RUNNER_OK;
    }
    return RUNNER_GO_ON;
}

/* The names of the user's headers, never their values: printed, logged,
 * and kept for every report's run table. */
static void record_request_headers(struct run_results *res, int log_fd)
{
    char *rest = request_headers_names(REQUEST_REST);
    char *grpc = request_headers_names(REQUEST_GRPC);
    if (rest && grpc && (*rest || *grpc)) {
        printf("request headers: REST %s; gRPC %s\n", *rest ? rest : "(none)",
               *grpc ? grpc : "(none)");
        if (log_fd >= 0)
            dprintf(log_fd, "request headers: REST %s; gRPC %s\n", *rest ? rest : "(none)",
                    *grpc ? grpc : "(none)");
    }
    /* None sent: no row in the reports. */
    if (rest && !*rest) {
        free(rest);
        rest = NULL;
    }
    if (grpc && !*grpc) {
        free(grpc);
        grpc = NULL;
    }
    res->runtime.rest_header_names = rest;
    res->runtime.grpc_header_names = grpc;
}

/* The run's parameters, signals, temporary directory, log and banner. */
static int start_run(struct run_state *st)
{
    const struct cli_opts *o = st->o;
    struct run_results *res = &st->res;
    struct run_target *target = &st->target;
    st->seed = o->seed_set ? o->seed : (random_u64() & 0xFFFFFFFFu);
    res->params.seed = st->seed;
    res->params.jobs = o->jobs;
    res->params.level = o->core_only ? "core" : "full";
    res->params.transport_profile = o->transport;
    res->params.focus = o->focus;
    res->params.skip = o->skip;
    res->params.tags = o->tags;
    res->params.baseline_path = o->baseline;
    res->params.rerun_path = o->rerun_failed;
    res->params.timeout_scale = o->timeout_scale;
    res->params.require_complete = o->require_complete;
    res->params.openapi = openapi_path();
    res->params.openapi_is_contract = openapi_shared_is_contract();
    /* What reports record of the command line, without secret values. */
    res->params.argv = st->argv_redacted;
    res->params.argc = st->argv_redacted ? st->argc : 0;
    snprintf(target->prefix, sizeof target->prefix, "sbxc-%08llx",
             (unsigned long long)(random_u64() & 0xFFFFFFFFu));
    res->params.prefix = target->prefix;
    gethostname(res->hostname, sizeof res->hostname - 1);
    clock_utc_now(res->started_at, sizeof res->started_at);
    st->t0 = clock_mono_s();

    curl_global_init(CURL_GLOBAL_DEFAULT);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    /* What runs killed before they could clean up left behind first; this
     * run's directory is named after its pid for the same reason. */
    size_t leftovers = leftover_runs_remove(NULL, -1);
    target->run_tmp = leftover_run_dir_create(NULL);
    if (!target->run_tmp) {
        fprintf(stderr, "sandboxd-conformance: cannot create a temporary directory: %s\n",
                strerror(errno));
        return RUNNER_INTERNAL;
    }
    snprintf(st->log_path, sizeof st->log_path, "%s/run.log", target->run_tmp);
    st->log_fd = open(st->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (leftovers && st->log_fd >= 0)
        dprintf(st->log_fd, "removed %zu directories of killed runs\n", leftovers);
    target->health_timeout_ms = o->startup_timeout_s * 1000;
    target->confine_runtime = o->confine_runtime;

    console_init(&st->con, stdout, o->color, o->quiet);
    printf("sandboxd-conformance %s (%s)  seed %llu  jobs %u  level %s%s\n", SBX_VERSION,
           SBX_GIT_COMMIT, (unsigned long long)st->seed, o->jobs, res->params.level,
           o->transport ? "  profile transport" : "");
    fflush(stdout);
    if (st->log_fd >= 0)
        dprintf(st->log_fd, "sandboxd-conformance %s (%s) seed %llu jobs %u level %s started %s\n",
                SBX_VERSION, SBX_GIT_COMMIT, (unsigned long long)st->seed, o->jobs,
                res->params.level, res->started_at);
    record_request_headers(res, st->log_fd);
    return RUNNER_GO_ON;
}

/* The capability probe, the cases its answer rules out, and the cases. */
static void run_cases(struct run_state *st)
{
    const struct cli_opts *o = st->o;
    struct run_results *res = &st->res;
    struct run_target *target = &st->target;
    res->runtime.grpc_addr = target->grpc_addr;
    res->runtime.rest_addr = target->rest_addr;
    res->runtime.metadata_json = runner_fetch_metadata(target->rest_addr);
    printf("workspace: %s/ under the sandbox root\n", target->prefix);

    /* Capabilities (the root as the runtime's processes see it, /proc, pty). */
    runner_probe_runtime(target, &res->runtime, st->log_fd, st->interrupted);
    if (!target->root_path && res->runtime.root_path)
        target->root_path = strdup(res->runtime.root_path);
    struct capabilities caps = {
        .launch_mode = target->launch_mode, .procfs = res->runtime.procfs, .pty = res->runtime.pty};
    selection_apply_needs(res, &caps);

    size_t to_run = 0;
    for (size_t i = 0; i < res->count; i++)
        to_run += res->cases[i].selected && res->cases[i].outcome == OUT_NOT_RUN;
    printf("%zu of %zu cases to run\n\n", to_run, res->count);
    /* Skipped-up-front cases appear in the log too. */
    for (size_t i = 0; i < res->count; i++)
        if (res->cases[i].selected && res->cases[i].outcome == OUT_SKIP)
            runner_log_case(st->log_fd, &res->cases[i]);

    struct runner_progress prog = {.con = &st->con, .log_fd = st->log_fd};
    struct sched_opts so = {.target = target,
                            .seed = st->seed,
                            .jobs = o->jobs,
                            .timeout_scale = o->timeout_scale,
                            .log_fd = st->log_fd,
                            .on_done = runner_on_case_done,
                            .ud = &prog,
                            .interrupted = st->interrupted,
                            .unresponsive_after = o->unresponsive_after};
    scheduler_run(res, &so);
    res->interrupted = *st->interrupted != 0;
    if (res->unresponsive) fprintf(stderr, "sandboxd-conformance: %s\n", res->unresponsive);
}

/* The verdict, the workspace removed, the runtime stopped, the reports. */
static int finish_run(struct run_state *st)
{
    struct run_results *res = &st->res;
    const char *log_path = st->log_path[0] ? st->log_path : NULL;
    const char *runtime_log = st->launched ? st->rt.log_path : NULL;
    /* Interrupted (a kill may follow within seconds) or given up on: the
     * reports come first, the workspace removal and the stop are bounded
     * short, and the reports are written again once the runtime's exit is
     * known. */
    bool hurry = res->interrupted || res->unresponsive;
    runner_settle(st);
    if (hurry) runner_write_reports(st->o, res, log_path, runtime_log);

    remove_prefix(&st->target, st->log_fd, hurry ? 5 : 45);

    if (st->launched) {
        double ts = clock_mono_s();
        int killed = launcher_stop(&st->rt, hurry ? STOP_GRACE_MS / 4 : STOP_GRACE_MS);
        res->runtime.stop_seconds = clock_mono_s() - ts;
        res->runtime.exit_known = true;
        res->runtime.exit_status = st->rt.status;
        char how[128];
        launcher_describe_status(st->rt.status, how, sizeof how);
        snprintf(res->runtime.exit_text, sizeof res->runtime.exit_text, "%s%s", how,
                 !killed ? " after SIGTERM"
                 : hurry ? " (did not stop within 5 s of SIGTERM; killed)"
                         : " (did not stop within 20 s of SIGTERM; killed)");
        printf("\nruntime %s (in %.2f s)\n", res->runtime.exit_text, res->runtime.stop_seconds);
        if (st->log_fd >= 0) dprintf(st->log_fd, "runtime %s\n", res->runtime.exit_text);
    }

    clock_utc_now(res->finished_at, sizeof res->finished_at);
    res->seconds = clock_mono_s() - st->t0;
    console_summary(&st->con, res);
    if (st->log_fd >= 0)
        dprintf(st->log_fd, "verdict: %s (exit %d)\n", verdict_name(res->verdict.verdict),
                res->verdict.exit_code);

    int exit_code = res->verdict.exit_code;
    if (runner_write_reports(st->o, res, log_path, runtime_log) != 0) exit_code = RUNNER_INTERNAL;
    if (res->interrupted) {
        fprintf(stderr, "sandboxd-conformance: interrupted\n");
        exit_code = RUNNER_INTERNAL;
    }
    return exit_code;
}

static void release_run(struct run_state *st)
{
    if (st->launched || st->rt.dir) launcher_release(&st->rt);
    if (st->log_fd >= 0) close(st->log_fd);
    if (st->target.run_tmp) fs_remove_tree(st->target.run_tmp);
    free(st->target.run_tmp);
    free(st->target.root_path);
    free(st->launch_template);
    free(st->bundled);
    selection_free(&st->sel);
    selection_free_ids(st->sel.only_ids);
    baseline_free(&st->base);
    run_results_free(&st->res);
    request_headers_free_argv(st->argv_redacted);
}

/* ---- main ---------------------------------------------------------------- */

int runner_main(int argc, char **argv)
{
    struct cli_opts o;
    int rc = parse_options(&o, argc, argv);
    if (rc != RUNNER_GO_ON) {
        cli_free(&o);
        return rc;
    }

    char err[4096];
    struct catalog cat;
    if (catalog_load(&cat, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: the case catalog is broken:\n%s", err);
        cli_free(&o);
        return RUNNER_INTERNAL;
    }
    if (o.explain) {
        rc = runner_explain(&cat, o.explain);
        catalog_free(&cat);
        cli_free(&o);
        return rc;
    }

    struct run_state st;
    memset(&st, 0, sizeof st);
    st.o = &o;
    st.argc = argc;
    st.argv = argv;
    st.rt.pid = -1;
    st.log_fd = -1;
    st.interrupted = &interrupted;
    if (selection_init(&st.sel, o.focus, o.skip, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: %s\n", err);
        catalog_free(&cat);
        cli_free(&o);
        return RUNNER_USAGE;
    }
    /* After every early return above: release_run frees it. */
    st.argv_redacted = request_headers_redact_argv(&o.headers, argc, argv);
    st.sel.tags = o.tags;
    st.sel.core_only = o.core_only;
    st.sel.transport = o.transport;

    rc = plan_run(&st, &cat);
    if (rc == RUNNER_GO_ON) rc = start_run(&st);
    if (rc == RUNNER_GO_ON) rc = runner_connect(&st);
    if (rc == RUNNER_GO_ON) {
        run_cases(&st);
        rc = finish_run(&st);
    }
    release_run(&st);
    catalog_free(&cat);
    request_headers_use(NULL);
    cli_free(&o);
    return rc;
}
