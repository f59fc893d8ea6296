/* SPDX-License-Identifier: Apache-2.0 */
/* L1-L4: graceful shutdown, root creation, metadata prefix flag, refusal of
 * new work during shutdown. Each case runs its own private runtime
 * instance and signals it; none touches the run's shared runtime. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf_util.h"
#include "common/rest_expect.h"
#include "lifecycle/lc_util.h"

/* Generous bounds for a loaded 2-core host: the reference's grace is 2 s
 * and its default shutdown timeout 10 s. */
#define LC_EXIT_WAIT_MS 16000u
#define LC_GRPC_UNAVAILABLE 14

/* A process that ignores SIGTERM keeps the daemon in its grace period. */
#define IGNORE_TERM "trap '' TERM; echo ready; while :; do sleep 1; done"

/* A leader and a child in its group, each of which reports SIGTERM and
 * ends: the child hears it only when the whole group is signalled. The
 * child says ready once its own trap is set (the leader's is set first). */
#define POLITE_GROUP                                                                               \
    "trap 'echo got-term; exit 7' TERM; "                                                          \
    "(trap 'echo child-term; exit 0' TERM; echo ready; while :; do sleep 0.1; done) & "            \
    "while :; do sleep 0.1; done"

static void shutdown_timeline(struct case_ctx *ctx)
{
    struct private_runtime *rt = case_runtime_start(ctx, NULL);
    if (!rt) return;
    case_use_runtime(ctx, rt);
    struct pu_stream stubborn = {0}, polite = {0};
    bool started = lc_start_ready(ctx, &stubborn, IGNORE_TERM, "process ignoring SIGTERM") &&
                   lc_start_ready(ctx, &polite, POLITE_GROUP, "process group trapping SIGTERM");
    if (started) {
        uint64_t t0 = case_now_ms();
        case_request(ctx, "SIGTERM to the runtime (pid %d)", private_runtime_pid(rt));
        private_runtime_signal(rt, SIGTERM);
        bool saw_503 = false, saw_unavailable = false;
        long last = -1;
        while (case_now_ms() - t0 < LC_EXIT_WAIT_MS && !(stubborn.ended && polite.ended)) {
            if (!saw_503 && case_now_ms() - t0 < 4000) {
                char code[64];
                last = lc_health(private_runtime_rest_addr(rt), code, sizeof code);
                if (last == 503) {
                    saw_503 = true;
                    saw_unavailable = strcmp(code, "UNAVAILABLE") == 0;
                    case_note(ctx, "503 after %llu ms", (unsigned long long)(case_now_ms() - t0));
                }
            }
            lc_pump(&stubborn, &polite, 100);
        }
        case_request(ctx, "the runtime's shutdown after SIGTERM");
        CASE_CHECK(ctx, saw_503 && saw_unavailable,
                   "/v1/health answering 503 UNAVAILABLE during the grace period",
                   "%s (last health status %ld)",
                   saw_503 ? "503 without code UNAVAILABLE" : "no 503 seen", last);
        CASE_CHECK(ctx,
                   polite.have_exit && polite.exit_code == 7 && polite.out &&
                       memmem(polite.out, polite.out_len, "got-term", 8),
                   "SIGTERM first: the trapping process prints got-term and exits 7",
                   "ExitEvent %s, exit_code %d, stdout holds got-term: %s",
                   polite.have_exit ? "received" : "missing", (int)polite.exit_code,
                   polite.out && memmem(polite.out, polite.out_len, "got-term", 8) ? "yes" : "no");
        CASE_CHECK(ctx, polite.out && memmem(polite.out, polite.out_len, "child-term", 10) != NULL,
                   "SIGTERM to the whole process group: a child of the leader traps it and "
                   "prints child-term",
                   "no child-term in the stream's stdout (the leader alone was signalled?)");
        CASE_CHECK(ctx, stubborn.have_exit && stubborn.exit_code != 0,
                   "the process ignoring SIGTERM killed after the grace period, its stream "
                   "ending with an ExitEvent (non-zero exit_code)",
                   "%s", stubborn.have_exit ? "exit_code 0" : "no ExitEvent arrived");
        int status = 0;
        uint64_t left = LC_EXIT_WAIT_MS - (case_now_ms() - t0 < LC_EXIT_WAIT_MS ? case_now_ms() - t0
                                                                                : LC_EXIT_WAIT_MS);
        bool exited = private_runtime_wait(rt, (unsigned)left + 500, &status) == 0;
        CASE_CHECK(ctx, exited, "the runtime exiting within its shutdown timeout (10 s default)",
                   "still running %llu ms after SIGTERM", (unsigned long long)(case_now_ms() - t0));
        if (exited)
            case_note(ctx, "runtime exited %llu ms after SIGTERM (status 0x%x)",
                      (unsigned long long)(case_now_ms() - t0), (unsigned)status);
    }
    if (stubborn.have_init) case_untrack_process(ctx, stubborn.pid);
    if (polite.have_init) case_untrack_process(ctx, polite.pid);
    case_use_shared_runtime(ctx);
    private_runtime_stop(rt);
    pu_free(&stubborn);
    pu_free(&polite);
}
SBX_CASE(shutdown_timeline, .id = "L1-001",
         .title = "SIGTERM: health 503, SIGTERM to groups, SIGKILL after grace, ExitEvents, "
                  "exit within the timeout",
         .clauses = "L1,M2", .level = LEVEL_MUST, .tags = "lifecycle",
         .needs = NEEDS_LAUNCH | NEEDS_ALONE, .timeout_s = 45,
         .catches = "no 503 window; processes never signalled or never killed; SIGKILL without "
                    "SIGTERM and grace; SIGTERM to the leader only, not its group; Start streams "
                    "cut without an ExitEvent; a daemon that hangs on shutdown",
         .how = "on a private instance starts a process ignoring SIGTERM and one that prints "
                "got-term and exits 7 on SIGTERM, with a child in its group that prints "
                "child-term on SIGTERM; signals the daemon, polls /v1/health for 503 "
                "UNAVAILABLE, reads both streams to their ExitEvents (got-term and child-term "
                "must be in the output: no SIGKILL first, SIGTERM to the group) and waits for "
                "the daemon to exit (bounded at 16 s)");

static void root_created(struct case_ctx *ctx)
{
    struct private_runtime_opts o = {.missing_root = true};
    struct private_runtime *rt = case_runtime_start(ctx, &o);
    if (!rt) return;
    const char *root = private_runtime_root(rt);
    struct stat st;
    CASE_CHECK(ctx, stat(root, &st) == 0 && S_ISDIR(st.st_mode),
               "the missing root directory created at start-up", "%s: %s", root, strerror(errno));
    struct http_response r;
    static const char *const hdrs[] = {"Content-Type: application/octet-stream", NULL};
    if (rx_send(ctx, private_runtime_rest_addr(rt), "PUT", "/v1/files/first.txt", "1", 1, hdrs,
                &r)) {
        expect_status(ctx, &r, 204);
        http_response_free(&r);
    }
    private_runtime_stop(rt);
}
SBX_CASE(root_created, .id = "L2-001", .title = "A missing root directory is created at start-up",
         .clauses = "L2", .level = LEVEL_SHOULD, .tags = "lifecycle",
         .needs = NEEDS_LAUNCH | NEEDS_ALONE, .timeout_s = 30,
         .catches = "a daemon that refuses to start, or serves errors, without an existing root",
         .how = "starts a private instance whose --root-dir does not exist; it must become "
                "healthy, the directory must exist on the host and a PUT must succeed");

static void custom_prefix(struct case_ctx *ctx)
{
    /* Two words, the form every usual flag parser takes. */
    static const char *const args[] = {"--metadata-env-prefix", "CUSTOMPFX_", NULL};
    static const char *const env[] = {"CUSTOMPFX_ONE=first",
                                      "CUSTOMPFX_TWO=", "CUSTOMPFX_API_TOKEN=hidden", NULL};
    struct private_runtime_opts o = {.extra_args = args, .extra_env = env};
    struct private_runtime *rt = case_runtime_start(ctx, &o);
    if (!rt) return;
    struct http_response r;
    json_t *body = NULL;
    if (rx_send(ctx, private_runtime_rest_addr(rt), "GET", "/v1/metadata", NULL, 0, NULL, &r)) {
        if (expect_status(ctx, &r, 200) && expect_schema(ctx, &r, "/v1/metadata", "GET"))
            body = expect_json(ctx, &r);
        http_response_free(&r);
    }
    json_t *served = json_object_get(body, "env");
    if (served) {
        const char *one = json_string_value(json_object_get(served, "CUSTOMPFX_ONE"));
        const char *two = json_string_value(json_object_get(served, "CUSTOMPFX_TWO"));
        CASE_CHECK(ctx, one && strcmp(one, "first") == 0 && two && two[0] == '\0',
                   "CUSTOMPFX_ONE=first and CUSTOMPFX_TWO= served", "ONE %s, TWO %s",
                   one ? one : "(absent)", two ? "present" : "(absent)");
        for (void *it = json_object_iter(served); it; it = json_object_iter_next(served, it)) {
            const char *name = json_object_iter_key(it);
            CASE_CHECK(ctx, strncmp(name, "CUSTOMPFX_", 10) == 0,
                       "only names with the configured prefix CUSTOMPFX_", "%s served", name);
            CASE_CHECK(ctx, strcmp(name, "CUSTOMPFX_API_TOKEN") != 0,
                       "credential markers withheld with a custom prefix too", "%s served", name);
        }
    }
    json_decref(body);
    private_runtime_stop(rt);
}
SBX_CASE(custom_prefix, .id = "L3-001",
         .title = "--metadata-env-prefix changes the prefix served on /v1/metadata",
         .clauses = "L3,M3,M4", .level = LEVEL_SHOULD, .tags = "lifecycle,metadata",
         .needs = NEEDS_LAUNCH, .timeout_s = 30,
         .catches = "the flag ignored (SANDBOX_ names still served, custom ones not)",
         .how = "starts a private instance with `--metadata-env-prefix CUSTOMPFX_` (the flag L3 "
                "names; a runtime that does not take it fails to start, reported as an error "
                "with its log) and CUSTOMPFX_* variables; exactly the non-secret CUSTOMPFX_ "
                "names must be served with their values");

static void refuse_new_work(struct case_ctx *ctx)
{
    struct private_runtime *rt = case_runtime_start(ctx, NULL);
    if (!rt) return;
    case_use_runtime(ctx, rt);
    struct pu_stream stubborn = {0};
    if (lc_start_ready(ctx, &stubborn, IGNORE_TERM, "process ignoring SIGTERM")) {
        private_runtime_signal(rt, SIGTERM);
        /* Shutdown has begun once health turns 503 (bounded wait). */
        uint64_t t0 = case_now_ms();
        while (case_now_ms() - t0 < 1500 &&
               lc_health(private_runtime_rest_addr(rt), NULL, 0) == 200)
            lc_pump(&stubborn, NULL, 50);
        const char *argv[] = {"sh", "-c", "echo started", NULL};
        struct rpc_spec spec = {.argv = argv, .timeout_ms = 5000};
        struct rpc_result res;
        rpc_execute(ctx, &spec, &res);
        CASE_CHECK(ctx, res.code == LC_GRPC_UNAVAILABLE || res.code == -1,
                   "Execute refused with UNAVAILABLE once shutdown began",
                   "status %d, exit_code %d, stdout %.*s", res.code, (int)res.exit_code,
                   (int)(res.out_len > 40 ? 40 : res.out_len), res.out ? (char *)res.out : "");
        if (res.code == -1)
            case_note(ctx, "Execute failed at the transport level (connection refused new "
                           "streams)");
        rpc_result_free(&res);
        struct rpc_stream *s = rpc_start(ctx, &spec, NULL);
        struct rpc_event ev = {0};
        bool got_init = false;
        int code = -2;
        for (int i = 0; s && i < 50; i++) {
            if (rpc_next(s, 5000, &ev) != 0 && ev.kind == PEV_TIMEOUT) break;
            if (ev.kind == PEV_INIT) {
                got_init = true;
                case_untrack_process(ctx, ev.process_id);
            }
            if (ev.kind == PEV_END || ev.kind == PEV_ERROR || ev.kind == PEV_TIMEOUT) {
                code = ev.kind == PEV_END ? ev.code : -1;
                break;
            }
        }
        CASE_CHECK(ctx, !got_init && (code == LC_GRPC_UNAVAILABLE || code == -1),
                   "Start refused with UNAVAILABLE and no InitEvent once shutdown began",
                   "%s, final status %d", got_init ? "an InitEvent arrived" : "no InitEvent", code);
        rpc_stream_free(s);
    }
    if (stubborn.have_init) case_untrack_process(ctx, stubborn.pid);
    case_use_shared_runtime(ctx);
    private_runtime_stop(rt);
    pu_free(&stubborn);
}
SBX_CASE(refuse_new_work, .id = "L4-001",
         .title = "Once shutdown has begun, new Start and Execute calls fail with UNAVAILABLE",
         .clauses = "L4", .level = LEVEL_SHOULD, .tags = "lifecycle",
         .needs = NEEDS_LAUNCH | NEEDS_ALONE, .timeout_s = 40,
         .catches = "new processes started during the grace period (and cut off only at the "
                    "shutdown timeout)",
         .how = "keeps a private instance in its grace period with a process ignoring SIGTERM, "
                "signals it, waits for health 503, then Execute and Start must fail with "
                "UNAVAILABLE (a refused stream at the transport level is accepted too) without "
                "an InitEvent");

static void nothing_survives(struct case_ctx *ctx)
{
    struct private_runtime *rt = case_runtime_start(ctx, NULL);
    if (!rt) return;
    case_use_runtime(ctx, rt);
    struct pu_stream a = {0};
    char pidfile[700];
    snprintf(pidfile, sizeof pidfile, "%s/survivor.pids", private_runtime_root(rt));
    pid_t pids[4] = {0};
    int npids = 0;
    if (lc_start_ready(ctx, &a,
                       "trap '' TERM; sleep 300 & echo $! > survivor.pids; echo $$ >> "
                       "survivor.pids; echo ready; wait",
                       "process group ignoring SIGTERM")) {
        FILE *f = fopen(pidfile, "r");
        char line[32];
        long v;
        /* Only real process ids: 0 or -1 given to kill() below would signal
         * the suite's own group or every process it may signal. */
        while (f && npids < 4 && fgets(line, sizeof line, f) &&
               conf_parse_longs(line, ' ', &v, 1) && v > 1 && v <= INT_MAX)
            pids[npids++] = (pid_t)v;
        if (f) fclose(f);
        if (npids < 2) {
            case_error(ctx, "cannot read the pids from %s (launch mode runs on this host)",
                       pidfile);
        } else {
            private_runtime_signal(rt, SIGTERM);
            uint64_t t0 = case_now_ms();
            int status;
            while (case_now_ms() - t0 < LC_EXIT_WAIT_MS && !a.ended)
                lc_pump(&a, NULL, 200);
            bool exited = private_runtime_wait(rt, LC_EXIT_WAIT_MS, &status) == 0;
            case_request(ctx, "SIGTERM to the runtime, then kill(pid, 0) on its processes");
            CASE_CHECK(ctx, exited, "the runtime exiting after SIGTERM", "still running");
            for (int i = 0; exited && i < npids; i++) {
                uint64_t t1 = case_now_ms();
                while (!lc_pid_gone(pids[i]) && case_now_ms() - t1 < 2000)
                    usleep(50 * 1000);
                CASE_CHECK(ctx, lc_pid_gone(pids[i]),
                           "no process the daemon started alive after it exited",
                           "pid %d still alive", (int)pids[i]);
            }
        }
    }
    /* Whatever the outcome, leave nothing behind. */
    for (int i = 0; i < npids; i++)
        if (!lc_pid_gone(pids[i])) kill(pids[i], SIGKILL);
    if (a.have_init) case_untrack_process(ctx, a.pid);
    case_use_shared_runtime(ctx);
    private_runtime_stop(rt);
    pu_free(&a);
}
SBX_CASE(nothing_survives, .id = "L4-002",
         .title = "No process the daemon started survives the daemon's exit", .clauses = "L4",
         .level = LEVEL_SHOULD, .tags = "lifecycle", .needs = NEEDS_LAUNCH | NEEDS_ALONE,
         .timeout_s = 45, .catches = "process groups left running (never SIGKILLed) after shutdown",
         .how = "a private instance runs a shell and a background sleep that ignore SIGTERM "
                "and record their pids in the root; after SIGTERM and the daemon's exit, "
                "kill(pid, 0) from the suite (same host in launch mode) must find neither");
