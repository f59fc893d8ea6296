/* The run, start to finish. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baseline.h"
#include "bundled_runtime.h"
#include "case_context.h"
#include "catalog.h"
#include "child_answer.h"
#include "cli.h"
#include "clauses.h"
#include "console.h"
#include "endpoint.h"
#include "fs_util.h"
#include "launcher.h"
#include "data_dir.h"
#include "openapi_schema.h"
#include "output_limit.h"
#include "process_client.h"
#include "report.h"
#include "rest_client.h"
#include "results.h"
#include "scheduler.h"
#include "selection.h"
#include "text_util.h"
#include "verdict.h"
#include "worker.h"

enum { REACH_TIMEOUT_MS = 5000, PROBE_TIMEOUT_S = 30, STOP_GRACE_MS = 20000 };

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static uint64_t random_u64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return v;
}

/* ---- catalog commands ---------------------------------------------------- */

static void print_list(const struct run_results *res)
{
    printf("%-10s %-6s %-14s %-28s %-16s %5s  %s\n", "ID", "LEVEL", "CLAUSES", "TAGS", "NEEDS",
           "TIME", "TITLE");
    unsigned n = 0;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!r->selected) continue;
        char needs[96];
        printf("%-10s %-6s %-14s %-28s %-16s %4us  %s\n", r->def->id,
               case_level_name(r->def->level), r->def->clauses, r->def->tags ? r->def->tags : "-",
               case_needs_text(r->def->needs, needs, sizeof needs), case_timeout_s(r->def),
               r->def->title);
        n++;
    }
    printf("%u of %zu cases\n", n, res->count);
}

static int explain(const struct catalog *cat, const char *id)
{
    const struct case_def *d = catalog_find(cat, id);
    if (!d) {
        fprintf(stderr, "sandboxd-conformance: no case with ID '%s' (see --list)\n", id);
        return RUNNER_USAGE;
    }
    char needs[96];
    printf("%s  %s\n\n", d->id, d->title);
    printf("Level:    %s\n", case_level_name(d->level));
    printf("Tags:     %s\n", d->tags ? d->tags : "-");
    printf("Needs:    %s\n", case_needs_text(d->needs, needs, sizeof needs));
    printf("Timeout:  %u s\n\n", case_timeout_s(d));
    printf("Clauses:\n");
    const char *p = d->clauses;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ',' && *e != ' ')
            e++;
        char cid[16];
        size_t l = (size_t)(e - p) < sizeof cid - 1 ? (size_t)(e - p) : sizeof cid - 1;
        memcpy(cid, p, l);
        cid[l] = '\0';
        const struct clause *cl = l ? clause_find(cid) : NULL;
        if (cl) {
            printf("  %-4s %s%s%s — %s\n", cl->id, case_level_name(cl->level),
                   cl->has_should ? " (+SHOULD)" : "", cl->launch ? " [launch]" : "", cl->text);
            clause_write_wrapped(stdout, cl->normative, 7, 79);
        }
        p = e;
    }
    printf("\nCatches:  %s\n", d->catches ? d->catches : "(not described)");
    printf("How:      %s\n", d->how ? d->how : "(not described)");
    return RUNNER_OK;
}

/* ---- the bundled runtime ------------------------------------------------- */

/* `PATH --version`, first line, bounded in time. */
static char *binary_version(const char *path)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        execl(path, path, "--version", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return NULL;
    }
    char buf[512];
    int st;
    size_t got = child_answer_read(p[0], pid, buf, sizeof buf, 5, NULL, &st);
    buf[strcspn(buf, "\n")] = '\0';
    return got && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? strdup(buf) : NULL;
}

/* What the runtime says about itself on /v1/metadata (its identity in
 * attach mode); NULL when it does not answer 200. */
static char *fetch_metadata(const char *rest_addr)
{
    struct http_request req = {.method = "GET",
                               .target = "/v1/metadata",
                               .timeout_ms = REACH_TIMEOUT_MS,
                               .max_body = 64 * 1024};
    struct http_response resp;
    char *body = NULL;
    if (rest_do_at(rest_addr, &req, &resp) == 0 && resp.status == 200 && !resp.body_truncated)
        body = strndup(resp.body, resp.body_len);
    http_response_free(&resp);
    return body;
}

/* ---- capability probe ---------------------------------------------------- */

/* One Execute in a forked child (bounded in time, a hanging runtime cannot
 * stall the run): the root as processes see it, /proc and /dev/ptmx. */
static void probe_runtime(const struct run_target *t, struct runtime_identity *ri, int log_fd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        close(p[0]);
        struct case_ctx ctx;
        case_ctx_init(&ctx, NULL, t, 0, -1);
        const char *argv[] = {"sh", "-c",
                              "pwd -P; test -r /proc/self/status && echo procfs; "
                              "test -c /dev/ptmx && echo pty; true",
                              NULL};
        struct proc_spec spec = {.argv = argv, .timeout_ms = 15000};
        struct proc_result r = {0};
        int code = proc_execute(&ctx, &spec, &r);
        if (code == 0 && r.out)
            (void)!write(p[1], r.out, r.out_len > 4000 ? 4000 : r.out_len);
        else
            dprintf(p[1], "!status %d %s", code, r.message ? r.message : "");
        proc_result_free(&r);
        case_ctx_release(&ctx);
        _exit(0);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return;
    }
    char buf[4096];
    /* A signal ends the wait: the reports are due, not the probe. */
    size_t got = child_answer_read(p[0], pid, buf, sizeof buf, PROBE_TIMEOUT_S, &interrupted, NULL);
    if (got == 0 || buf[0] != '/') {
        /* Unknown capabilities: the cases run and report what they find. */
        ri->procfs = ri->pty = true;
        if (log_fd >= 0)
            dprintf(log_fd, "capability probe (Execute sh -c ...) failed: %s\n",
                    got ? buf : "no answer");
        fprintf(stderr,
                "sandboxd-conformance: warning: the capability probe (one Execute) failed: %s\n",
                got ? buf : "no answer within 30 s");
        return;
    }
    ri->probed = true;
    char *nl = strchr(buf, '\n');
    if (nl) *nl = '\0';
    if (!ri->root_path) ri->root_path = strdup(buf);
    const char *rest = nl ? nl + 1 : "";
    ri->procfs = strstr(rest, "procfs") != NULL;
    ri->pty = strstr(rest, "pty") != NULL;
}

/* ---- logging and the console progress ------------------------------------ */

struct progress {
    struct console *con;
    int log_fd;
};

static void log_case(int fd, const struct case_result *r)
{
    if (fd < 0) return;
    dprintf(fd, "=== %s %s (%.2f s, seed %016llx) %s\n", r->def->id, result_status(r), r->seconds,
            (unsigned long long)r->seed, r->def->title);
    if (r->reason) dprintf(fd, "    reason: %s\n", r->reason);
    for (size_t i = 0; i < r->n_failures; i++) {
        dprintf(fd, "    expected: %s\n    observed: %s\n", r->failures[i].expected,
                r->failures[i].observed);
        if (r->failures[i].request) dprintf(fd, "    request:  %s\n", r->failures[i].request);
    }
    if (r->failures_total > r->n_failures)
        dprintf(fd, "    (%u failures in all)\n", r->failures_total);
    for (size_t i = 0; i < r->n_notes; i++)
        dprintf(fd, "    note: %s\n", r->notes[i]);
    if (r->output && *r->output)
        dprintf(fd, "    --- output (%zu bytes%s) ---\n%s\n    --- end of output ---\n",
                r->output_total, r->output_total > strlen(r->output) ? ", truncated" : "",
                r->output);
}

static void on_case_done(void *ud, const struct case_result *r, size_t done, size_t total)
{
    struct progress *p = ud;
    console_case_done(p->con, r, done, total);
    log_case(p->log_fd, r);
}

/* ---- baseline ------------------------------------------------------------ */

/* A baseline entry for a case the catalog does not have (renamed, removed,
 * or a typo) would silently stop covering anything: refused before the run,
 * as compare refuses it. Returns 0, or -1 with a message in err. */
static int check_baseline_ids(const struct run_results *res, const struct baseline *b,
                              const char *path, char *err, size_t err_len)
{
    for (size_t i = 0; i < b->count; i++) {
        bool known = false;
        for (size_t k = 0; k < res->count && !known; k++)
            known = strcmp(res->cases[k].def->id, b->entries[i].id) == 0;
        if (!known) {
            snprintf(err, err_len,
                     "--baseline %s names case %s, which this suite does not have (renamed or "
                     "removed? `--list` shows the catalog); remove or correct the entry",
                     path, b->entries[i].id);
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

/* ---- bundle -------------------------------------------------------------- */

static int write_bundle(const char *dir, const struct run_results *res, const char *log_path,
                        const char *runtime_log)
{
    if (fs_mkdir_p(dir, 0755) != 0) return -1;
    char path[PATH_MAX];
    int rc = 0;
#define BUNDLE_FILE(name) (snprintf(path, sizeof path, "%s/%s", dir, name), path)
    rc |= report_json_write(res, BUNDLE_FILE("results.json"));
    rc |= report_junit_write(res, BUNDLE_FILE("junit.xml"));
    rc |= report_tap_write(res, BUNDLE_FILE("results.tap"));
    rc |= report_markdown_write(res, BUNDLE_FILE("report.md"));
    rc |= report_html_write(res, BUNDLE_FILE("report.html"));
    if (log_path) rc |= fs_copy_file(log_path, BUNDLE_FILE("run.log"));
    if (runtime_log && access(runtime_log, R_OK) == 0)
        rc |= fs_copy_file(runtime_log, BUNDLE_FILE("runtime.log"));
    json_t *doc = report_json_build(res);
    json_t *id = json_object();
    json_object_set(id, "suite", json_object_get(doc, "suite"));
    json_object_set(id, "runtime", json_object_get(doc, "runtime"));
    json_object_set(id, "parameters", json_object_get(doc, "parameters"));
    json_object_set(id, "verdict", json_object_get(doc, "verdict"));
    json_object_set_new(id, "started_at", json_string(res->started_at));
    json_object_set_new(id, "host", json_string(res->hostname));
    rc |= json_dump_file(id, BUNDLE_FILE("identity.json"), JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(id);
    json_decref(doc);
    FILE *f = fopen(BUNDLE_FILE("README.txt"), "w");
    if (f) {
        fprintf(f,
                "sandboxd conformance certification bundle\n\n"
                "verdict:   %s\nsuite:     sandboxd-conformance %s (%s)\nstarted:   %s\n\n"
                "identity.json  runtime identity (addresses, command, version, exit), run "
                "parameters, suite version and commit, verdict\n"
                "results.json   every case's result (schema_version %d)\n"
                "junit.xml      JUnit XML\nresults.tap    TAP 13\n"
                "report.html    the conformance report by clause\nreport.md      "
                "Markdown summary\nrun.log        the full log\n%s",
                verdict_name(res->verdict.verdict), SBX_VERSION, SBX_GIT_COMMIT, res->started_at,
                RESULTS_SCHEMA_VERSION,
                runtime_log ? "runtime.log    the launched runtime's stdout and stderr\n" : "");
        if (fclose(f) != 0) rc = -1;
    } else {
        rc = -1;
    }
#undef BUNDLE_FILE
    return rc ? -1 : 0;
}

static int write_reports(const struct cli_opts *o, const struct run_results *res,
                         const char *log_path, const char *runtime_log)
{
    int rc = 0;
    struct {
        const char *path;
        int (*fn)(const struct run_results *, const char *);
        const char *what;
    } reps[] = {{o->json, report_json_write, "JSON"},
                {o->junit, report_junit_write, "JUnit"},
                {o->tap, report_tap_write, "TAP"},
                {o->markdown, report_markdown_write, "Markdown"},
                {o->html, report_html_write, "HTML"}};
    for (size_t i = 0; i < sizeof reps / sizeof reps[0]; i++) {
        if (!reps[i].path) continue;
        if (reps[i].fn(res, reps[i].path) != 0) {
            fprintf(stderr, "sandboxd-conformance: cannot write the %s report %s: %s\n",
                    reps[i].what, reps[i].path, strerror(errno));
            rc = -1;
        }
    }
    if (o->bundle && write_bundle(o->bundle, res, log_path, runtime_log) != 0) {
        fprintf(stderr, "sandboxd-conformance: cannot write the bundle %s: %s\n", o->bundle,
                strerror(errno));
        rc = -1;
    }
    if (o->log && log_path && fs_copy_file(log_path, o->log) != 0) {
        fprintf(stderr, "sandboxd-conformance: cannot write the log %s: %s\n", o->log,
                strerror(errno));
        rc = -1;
    }
    return rc;
}

/* Removes the run's workspace prefix on the runtime (forked, bounded by
 * bound_s). */
static void remove_prefix(const struct run_target *t, int log_fd, double bound_s)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        _exit(worker_cleanup(t, t->prefix, NULL, 0, log_fd) == 0 ? 0 : 1);
    }
    if (pid < 0) return;
    double deadline = mono_s() + bound_s;
    int st;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (mono_s() > deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            if (log_fd >= 0) dprintf(log_fd, "removing the workspace %s timed out\n", t->prefix);
            return;
        }
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
}

/* Outcomes are final: baseline, verdict and the run's end time. */
static void settle_results(const struct cli_opts *o, struct run_results *res,
                           const struct baseline *base, double t0)
{
    apply_baseline(res, base);
    verdict_compute(res, !o->core_only, o->require_complete);
    utc_now(res->finished_at, sizeof res->finished_at);
    res->seconds = mono_s() - t0;
}

/* The run could not start (exit 3): the reports asked for are written all
 * the same, every selected case "not run" with the reason. */
static void report_unreachable(const struct cli_opts *o, struct run_results *res,
                               const struct baseline *base, const char *why, const char *log_path,
                               int log_fd, double t0)
{
    res->unreachable = strdup(why);
    for (size_t i = 0; i < res->count; i++) {
        struct case_result *r = &res->cases[i];
        if (!r->selected || r->outcome != OUT_NOT_RUN) continue;
        r->outcome = OUT_SKIP;
        r->not_run = true;
        free(r->reason);
        r->reason = text_fmt("not run: the runtime is unreachable: %s", why);
    }
    settle_results(o, res, base, t0);
    if (log_fd >= 0) dprintf(log_fd, "unreachable: %s\n", why);
    write_reports(o, res, log_path && *log_path ? log_path : NULL, NULL);
}

/* ---- main ---------------------------------------------------------------- */

int runner_main(int argc, char **argv)
{
    struct cli_opts o;
    char err[4096];
    if (cli_parse(&o, argc, argv, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: %s\n(see sandboxd-conformance --help)\n", err);
        return RUNNER_USAGE;
    }
    if (o.help) {
        cli_print_help(stdout);
        return RUNNER_OK;
    }
    if (o.version) {
        printf("sandboxd-conformance %s (%s)\n", SBX_VERSION, SBX_GIT_COMMIT);
        if (o.data_dir) data_dir_set(o.data_dir);
        printf("data directory: %s\n", data_dir());
        return RUNNER_OK;
    }
    output_limit_set(o.max_output);
    if (o.openapi) {
        if (access(o.openapi, R_OK) != 0) {
            fprintf(stderr, "sandboxd-conformance: --openapi %s: %s\n", o.openapi, strerror(errno));
            return RUNNER_USAGE;
        }
        openapi_set_path(o.openapi);
        /* Loaded now, so a document that cannot serve is a usage error
         * before any case runs (workers inherit the loaded document). */
        char why[2100];
        if (!openapi_shared(why, sizeof why)) {
            fprintf(stderr, "sandboxd-conformance: --openapi %s\n", why);
            return RUNNER_USAGE;
        }
    }
    if (o.data_dir) {
        char probe[PATH_MAX];
        data_dir_set(o.data_dir);
        if (access(data_dir_file("openapi/sandboxd.yaml", probe, sizeof probe), R_OK) != 0) {
            fprintf(stderr, "sandboxd-conformance: --data-dir %s: no openapi/sandboxd.yaml in it\n",
                    o.data_dir);
            return RUNNER_USAGE;
        }
    }
    struct catalog cat;
    if (catalog_load(&cat, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: the case catalog is broken:\n%s", err);
        return RUNNER_INTERNAL;
    }
    if (o.explain) {
        int rc = explain(&cat, o.explain);
        catalog_free(&cat);
        return rc;
    }

    int exit_code = RUNNER_INTERNAL;
    struct selection sel;
    struct baseline base = {0};
    struct run_results res;
    memset(&res, 0, sizeof res);
    struct run_target target;
    memset(&target, 0, sizeof target);
    struct launched_runtime rt;
    memset(&rt, 0, sizeof rt);
    rt.pid = -1;
    bool launched = false;
    char *bundled = NULL;
    char *launch_template = NULL;
    char log_path[PATH_MAX] = "";
    int log_fd = -1;

    if (selection_init(&sel, o.focus, o.skip, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: %s\n", err);
        catalog_free(&cat);
        return RUNNER_USAGE;
    }
    sel.tags = o.tags;
    sel.core_only = o.core_only;
    sel.transport = o.transport;
    if (o.rerun_failed) {
        sel.only_ids = selection_failed_ids(o.rerun_failed, err, sizeof err);
        if (!sel.only_ids) {
            fprintf(stderr, "sandboxd-conformance: %s\n", err);
            exit_code = RUNNER_USAGE;
            goto out;
        }
    }
    if (o.baseline && baseline_load(o.baseline, &base, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: %s\n", err);
        exit_code = RUNNER_USAGE;
        goto out;
    }
    if (selection_apply(&sel, &cat, &res) != 0) goto out;
    if (o.baseline && check_baseline_ids(&res, &base, o.baseline, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: %s\n", err);
        exit_code = RUNNER_USAGE;
        goto out;
    }
    if (o.list) {
        print_list(&res);
        exit_code = RUNNER_OK;
        goto out;
    }

    /* Run parameters. */
    uint64_t seed = o.seed_set ? o.seed : (random_u64() & 0xFFFFFFFFu);
    res.params.seed = seed;
    res.params.jobs = o.jobs;
    res.params.level = o.core_only ? "core" : "full";
    res.params.transport_profile = o.transport;
    res.params.focus = o.focus;
    res.params.skip = o.skip;
    res.params.tags = o.tags;
    res.params.baseline_path = o.baseline;
    res.params.rerun_path = o.rerun_failed;
    res.params.timeout_scale = o.timeout_scale;
    res.params.require_complete = o.require_complete;
    res.params.openapi = openapi_path();
    res.params.openapi_is_contract = openapi_shared_is_contract();
    res.params.argv = argv;
    res.params.argc = argc;
    snprintf(target.prefix, sizeof target.prefix, "sbxc-%08llx",
             (unsigned long long)(random_u64() & 0xFFFFFFFFu));
    res.params.prefix = target.prefix;
    gethostname(res.hostname, sizeof res.hostname - 1);
    utc_now(res.started_at, sizeof res.started_at);
    double t0 = mono_s();

    curl_global_init(CURL_GLOBAL_DEFAULT);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    target.run_tmp = fs_make_temp_dir(NULL, "sbxc-run-");
    if (!target.run_tmp) {
        fprintf(stderr, "sandboxd-conformance: cannot create a temporary directory: %s\n",
                strerror(errno));
        goto out;
    }
    snprintf(log_path, sizeof log_path, "%s/run.log", target.run_tmp);
    log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    target.health_timeout_ms = o.startup_timeout_s * 1000;
    target.confine_runtime = o.confine_runtime;

    struct console con;
    console_init(&con, stdout, o.color, o.quiet);
    printf("sandboxd-conformance %s (%s)  seed %llu  jobs %u  level %s%s\n", SBX_VERSION,
           SBX_GIT_COMMIT, (unsigned long long)seed, o.jobs, res.params.level,
           o.transport ? "  profile transport" : "");
    fflush(stdout);
    if (log_fd >= 0)
        dprintf(log_fd, "sandboxd-conformance %s (%s) seed %llu jobs %u level %s started %s\n",
                SBX_VERSION, SBX_GIT_COMMIT, (unsigned long long)seed, o.jobs, res.params.level,
                res.started_at);

    /* Target. */
    if (o.grpc) {
        snprintf(target.grpc_addr, sizeof target.grpc_addr, "%s", o.grpc);
        snprintf(target.rest_addr, sizeof target.rest_addr, "%s", o.rest);
        res.runtime.mode = "attach";
        char e1[600] = "", e2[600] = "";
        long status = 0;
        char *body = NULL;
        int g = endpoint_check_grpc(o.grpc, REACH_TIMEOUT_MS, e1, sizeof e1);
        int r = endpoint_check_rest(o.rest, REACH_TIMEOUT_MS, &status, &body, e2, sizeof e2);
        if (g == ENDPOINT_HTTP1 && r == 0 && o.transport) {
            /* Certifying a proxy that cannot carry gRPC is what the
             * transport profile is for: the run goes on, T1-T3 fail with
             * what was observed, cases that need gRPC are skipped. */
            snprintf(target.grpc_unusable, sizeof target.grpc_unusable, "%s", e1);
            printf("transport profile: %s\n  the run goes on: cases that need gRPC are skipped, "
                   "T1-T3 report it\n",
                   e1);
            if (log_fd >= 0) dprintf(log_fd, "gRPC endpoint cannot carry gRPC: %s\n", e1);
            g = 0;
        }
        if (g != 0 || r != 0) {
            fprintf(stderr, "sandboxd-conformance: endpoint unreachable:\n");
            if (g != 0) fprintf(stderr, "  %s\n", e1);
            if (r != 0) fprintf(stderr, "  %s\n", e2);
            free(body);
            char *why = text_fmt("%s%s%s", g != 0 ? e1 : "", g != 0 && r != 0 ? "; " : "",
                                 r != 0 ? e2 : "");
            res.runtime.grpc_addr = o.grpc;
            res.runtime.rest_addr = o.rest;
            report_unreachable(&o, &res, &base, why, log_path, log_fd, t0);
            free(why);
            exit_code = RUNNER_UNREACHABLE;
            goto out;
        }
        res.runtime.health_json = body;
        printf("attach: gRPC %s, REST %s (GET /v1/health: %ld)\n", o.grpc, o.rest, status);
    } else {
        const char *bin = o.launch_bundled;
        if (!o.launch && !bin) {
            bundled = bundled_runtime_find();
            if (!bundled) {
                fprintf(stderr,
                        "sandboxd-conformance: no target given and no bundled sandboxd-ref found "
                        "(next to this binary's build tree or on PATH); use --grpc/--rest, "
                        "--launch or --launch-bundled\n");
                exit_code = RUNNER_USAGE;
                goto out;
            }
            bin = bundled;
        }
        if (bin) {
            if (access(bin, X_OK) != 0) {
                fprintf(stderr, "sandboxd-conformance: --launch-bundled %s: %s\n", bin,
                        strerror(errno));
                exit_code = RUNNER_USAGE;
                goto out;
            }
            char *abs = realpath(bin, NULL);
            char *quoted = text_fmt("'%s' --listen-host 127.0.0.1 --grpc-port {grpc_port} "
                                    "--rest-port {rest_port} --root-dir {root}",
                                    abs ? abs : bin);
            res.runtime.version = binary_version(abs ? abs : bin);
            free(abs);
            launch_template = quoted;
        } else {
            launch_template = strdup(o.launch);
        }
        char **words = launcher_split_words(launch_template, err, sizeof err);
        if (!words) {
            fprintf(stderr, "sandboxd-conformance: --launch: %s\n", err);
            exit_code = RUNNER_USAGE;
            goto out;
        }
        launcher_free_words(words);
        target.launch_template = launch_template;
        struct launch_opts lo = {.command_template = launch_template,
                                 .work_dir = target.run_tmp,
                                 .extra_env = o.launch_env,
                                 .own_process_group = true,
                                 .health_timeout_ms = target.health_timeout_ms,
                                 .confine = target.confine_runtime};
        res.runtime.mode = "launch";
        res.runtime.command = launch_template;
        if (launcher_start(&lo, &rt, err, sizeof err) != 0) {
            fprintf(stderr, "sandboxd-conformance: cannot launch the runtime: %s\n", err);
            if (log_fd >= 0) dprintf(log_fd, "launch failed: %s\n", err);
            char *why = text_fmt("cannot launch the runtime: %s", err);
            report_unreachable(&o, &res, &base, why, log_path, log_fd, t0);
            free(why);
            launcher_release(&rt);
            exit_code = RUNNER_UNREACHABLE;
            goto out;
        }
        launched = true;
        snprintf(target.grpc_addr, sizeof target.grpc_addr, "%s", rt.grpc_addr);
        snprintf(target.rest_addr, sizeof target.rest_addr, "%s", rt.rest_addr);
        target.launch_mode = true;
        target.planted_env = rt.env;
        target.root_path = realpath(rt.root, NULL);
        res.runtime.mode = "launch";
        res.runtime.command = rt.command_line;
        res.runtime.root_path = target.root_path ? strdup(target.root_path) : NULL;
        long status = 0;
        char *body = NULL;
        char e1[600], e2[600];
        /* Healthy over REST is not enough: a gRPC port that accepts TCP but
         * never speaks HTTP/2 would make every case wait out its bounds
         * (attach mode refuses such an endpoint the same way). */
        if (endpoint_check_grpc(rt.grpc_addr, REACH_TIMEOUT_MS, e1, sizeof e1) != 0) {
            fprintf(stderr,
                    "sandboxd-conformance: the launched runtime is healthy over REST but "
                    "its gRPC endpoint does not answer:\n  %s\n",
                    e1);
            if (log_fd >= 0) dprintf(log_fd, "launch: gRPC endpoint does not answer: %s\n", e1);
            res.runtime.grpc_addr = rt.grpc_addr;
            res.runtime.rest_addr = rt.rest_addr;
            char *why =
                text_fmt("healthy over REST, but the gRPC endpoint does not answer: %s", e1);
            report_unreachable(&o, &res, &base, why, log_path, log_fd, t0);
            free(why);
            exit_code = RUNNER_UNREACHABLE;
            goto out;
        }
        if (endpoint_check_rest(rt.rest_addr, REACH_TIMEOUT_MS, &status, &body, e2, sizeof e2) == 0)
            res.runtime.health_json = body;
        printf("launch: %s\n        gRPC %s, REST %s, root %s (healthy after %.2f s)\n",
               rt.command_line, rt.grpc_addr, rt.rest_addr, rt.root, rt.healthy_after);
        if (log_fd >= 0) dprintf(log_fd, "launched: %s (pid %d)\n", rt.command_line, (int)rt.pid);
        if (target.confine_runtime)
            printf("confined: private mount namespace, host read-only except %s, /tmp and "
                   "/dev/shm private\n",
                   rt.dir);
    }
    res.runtime.grpc_addr = target.grpc_addr;
    res.runtime.rest_addr = target.rest_addr;
    res.runtime.metadata_json = fetch_metadata(target.rest_addr);
    printf("workspace: %s/ under the sandbox root\n", target.prefix);

    /* Capabilities (the root as the runtime's processes see it, /proc, pty). */
    probe_runtime(&target, &res.runtime, log_fd);
    if (!target.root_path && res.runtime.root_path)
        target.root_path = strdup(res.runtime.root_path);
    struct capabilities caps = {
        .launch_mode = target.launch_mode, .procfs = res.runtime.procfs, .pty = res.runtime.pty};
    selection_apply_needs(&res, &caps);

    size_t to_run = 0;
    for (size_t i = 0; i < res.count; i++)
        to_run += res.cases[i].selected && res.cases[i].outcome == OUT_NOT_RUN;
    printf("%zu of %zu cases to run\n\n", to_run, res.count);
    /* Skipped-up-front cases appear in the log too. */
    for (size_t i = 0; i < res.count; i++)
        if (res.cases[i].selected && res.cases[i].outcome == OUT_SKIP)
            log_case(log_fd, &res.cases[i]);

    struct progress prog = {.con = &con, .log_fd = log_fd};
    struct sched_opts so = {.target = &target,
                            .seed = seed,
                            .jobs = o.jobs,
                            .timeout_scale = o.timeout_scale,
                            .log_fd = log_fd,
                            .on_done = on_case_done,
                            .ud = &prog,
                            .interrupted = &interrupted,
                            .unresponsive_after = o.unresponsive_after};
    scheduler_run(&res, &so);
    res.interrupted = interrupted != 0;
    if (res.unresponsive) fprintf(stderr, "sandboxd-conformance: %s\n", res.unresponsive);

    /* Interrupted (a kill may follow within seconds) or given up on: the
     * reports come first, the workspace removal and the stop are bounded
     * short, and the reports are written again once the runtime's exit is
     * known. */
    bool hurry = res.interrupted || res.unresponsive;
    settle_results(&o, &res, &base, t0);
    if (hurry)
        write_reports(&o, &res, log_path[0] ? log_path : NULL, launched ? rt.log_path : NULL);

    remove_prefix(&target, log_fd, hurry ? 5 : 45);

    if (launched) {
        double ts = mono_s();
        int killed = launcher_stop(&rt, hurry ? STOP_GRACE_MS / 4 : STOP_GRACE_MS);
        res.runtime.stop_seconds = mono_s() - ts;
        res.runtime.exit_known = true;
        res.runtime.exit_status = rt.status;
        char how[128];
        launcher_describe_status(rt.status, how, sizeof how);
        snprintf(res.runtime.exit_text, sizeof res.runtime.exit_text, "%s%s", how,
                 !killed ? " after SIGTERM"
                 : hurry ? " (did not stop within 5 s of SIGTERM; killed)"
                         : " (did not stop within 20 s of SIGTERM; killed)");
        printf("\nruntime %s (in %.2f s)\n", res.runtime.exit_text, res.runtime.stop_seconds);
        if (log_fd >= 0) dprintf(log_fd, "runtime %s\n", res.runtime.exit_text);
    }

    utc_now(res.finished_at, sizeof res.finished_at);
    res.seconds = mono_s() - t0;
    console_summary(&con, &res);
    if (log_fd >= 0)
        dprintf(log_fd, "verdict: %s (exit %d)\n", verdict_name(res.verdict.verdict),
                res.verdict.exit_code);

    exit_code = res.verdict.exit_code;
    if (write_reports(&o, &res, log_path[0] ? log_path : NULL, launched ? rt.log_path : NULL) != 0)
        exit_code = RUNNER_INTERNAL;
    if (res.interrupted) {
        fprintf(stderr, "sandboxd-conformance: interrupted\n");
        exit_code = RUNNER_INTERNAL;
    }

out:
    if (launched || rt.dir) launcher_release(&rt);
    if (log_fd >= 0) close(log_fd);
    if (target.run_tmp) fs_remove_tree(target.run_tmp);
    free(target.run_tmp);
    free(target.root_path);
    free(launch_template);
    free(bundled);
    selection_free(&sel);
    selection_free_ids(sel.only_ids);
    baseline_free(&base);
    run_results_free(&res);
    catalog_free(&cat);
    return exit_code;
}
