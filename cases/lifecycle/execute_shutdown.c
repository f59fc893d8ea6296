/* SPDX-License-Identifier: Apache-2.0 */
/* L4-003: an Execute in flight when the shutdown begins. Its command leaves
 * a background child in its process group, and one that escaped to a new
 * session with setsid. After the daemon exits, nothing of the group may be
 * alive (L4, with L1's "every managed process group"). The contract makes
 * the process group the unit of the daemon's reach (P13, P16, L1), so the
 * session escapee is reported, not judged. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf_util.h"
#include "lifecycle/lc_util.h"
#include "sbx_grpc_status.h"
#include "process_client.h"

#define EXIT_WAIT_MS 16000u
#define READY_WAIT_MS 10000u

/* The group's pids in exec-group.pids (the sleep, then the shell), the
 * escapee's in exec-session.pid; exec-ready last. */
#define EXEC_SCRIPT                                                                                \
    "sleep 300 & echo $! > exec-group.pids; echo $$ >> exec-group.pids; "                          \
    "if command -v setsid >/dev/null 2>&1; then setsid sleep 301 & echo $! > exec-session.pid; "   \
    "fi; echo ready > exec-ready; wait"

struct exec_thread {
    struct case_ctx *ctx;
    struct rpc_result res;
    int code;
};

static void *run_execute(void *arg)
{
    struct exec_thread *t = arg;
    const char *argv[] = {"sh", "-c", EXEC_SCRIPT, NULL};
    struct rpc_spec spec = {.argv = argv, .wait_ms = EXIT_WAIT_MS + 10000};
    t->code = rpc_execute(t->ctx, &spec, &t->res);
    return NULL;
}

/* Up to cap pids from a file of the runtime's root, one a line; only real
 * process ids (0 or -1 given to kill() would signal whole groups). */
static int read_pids(const char *root, const char *name, pid_t *pids, int cap)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, name);
    FILE *f = fopen(path, "r");
    int n = 0;
    char line[32];
    long v;
    while (f && n < cap && fgets(line, sizeof line, f) && conf_parse_longs(line, ' ', &v, 1) &&
           v > 1 && v <= INT_MAX)
        pids[n++] = (pid_t)v;
    if (f) fclose(f);
    return n;
}

static bool file_exists(const char *root, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, name);
    return access(path, F_OK) == 0;
}

static bool gone_within(pid_t pid, unsigned ms)
{
    uint64_t t0 = case_now_ms();
    while (!lc_pid_gone(pid) && case_now_ms() - t0 < ms)
        usleep(50 * 1000);
    return lc_pid_gone(pid);
}

static void execute_survivors(struct case_ctx *ctx)
{
    struct private_runtime *rt = case_runtime_start(ctx, NULL);
    if (!rt) return;
    case_use_runtime(ctx, rt);
    const char *root = private_runtime_root(rt);
    struct exec_thread t = {.ctx = ctx};
    pid_t group[2] = {0}, session[1] = {0};
    int ngroup = 0, nsession = 0;
    pthread_t tid;
    bool running = pthread_create(&tid, NULL, run_execute, &t) == 0;
    if (!running) {
        case_error(ctx, "could not start the Execute thread");
        goto out;
    }
    uint64_t t0 = case_now_ms();
    while (!file_exists(root, "exec-ready") && case_now_ms() - t0 < READY_WAIT_MS)
        usleep(20 * 1000);
    ngroup = read_pids(root, "exec-group.pids", group, 2);
    nsession = read_pids(root, "exec-session.pid", session, 1);
    if (!file_exists(root, "exec-ready") || ngroup < 2) {
        private_runtime_signal(rt, SIGTERM);
        private_runtime_wait(rt, EXIT_WAIT_MS, NULL);
        pthread_join(tid, NULL);
        running = false;
        case_request(ctx, "Execute sh -c '%s'", EXEC_SCRIPT);
        if (t.code != SBX_GRPC_OK || t.res.exit_code != 0)
            case_fail(ctx, "Execute runs the command (P1)", "status %d, exit code %d", t.code,
                      (int)t.res.exit_code);
        else
            case_error(ctx,
                       "the Execute's command wrote no pids to %s (launch mode runs on "
                       "this host)",
                       root);
        goto out;
    }
    private_runtime_signal(rt, SIGTERM);
    int status;
    bool exited = private_runtime_wait(rt, EXIT_WAIT_MS, &status) == 0;
    pthread_join(tid, NULL);
    running = false;
    case_request(ctx,
                 "Execute sh -c '%s' in flight, SIGTERM to the runtime, then kill(pid, 0) "
                 "on the command's processes",
                 EXEC_SCRIPT);
    CASE_CHECK(ctx, exited, "the runtime exiting after SIGTERM", "still running after %u ms",
               EXIT_WAIT_MS);
    if (exited) {
        CASE_CHECK(ctx, gone_within(group[1], 2000),
                   "the Execute's own process gone after the daemon exited", "pid %d alive",
                   (int)group[1]);
        CASE_CHECK(ctx, gone_within(group[0], 2000),
                   "no process of the Execute's process group alive after the daemon exited",
                   "its background child (pid %d) is alive: only the direct child was killed",
                   (int)group[0]);
        if (nsession == 0)
            case_note(ctx, "no setsid on the runtime: the session escapee was not tried");
        else
            case_note(ctx,
                      "a descendant that left for its own session (setsid) %s the "
                      "daemon's exit (information: the contract's unit is the process "
                      "group)",
                      gone_within(session[0], 2000) ? "did not survive" : "survived");
    }
    case_note(ctx, "the Execute ended with status %d", t.code);
out:
    if (running) pthread_join(tid, NULL);
    /* Whatever the outcome, leave nothing behind. */
    for (int i = 0; i < ngroup; i++)
        if (!lc_pid_gone(group[i])) kill(group[i], SIGKILL);
    for (int i = 0; i < nsession; i++)
        if (!lc_pid_gone(session[i])) kill(session[i], SIGKILL);
    rpc_result_free(&t.res);
    case_use_shared_runtime(ctx);
    private_runtime_stop(rt);
}
SBX_CASE(execute_survivors, .id = "L4-003",
         .title = "No process of an Execute in flight at shutdown survives the daemon's exit",
         .clauses = "L4", .level = LEVEL_SHOULD, .tags = "lifecycle",
         .needs = NEEDS_LAUNCH | NEEDS_ALONE, .timeout_s = 50,
         .catches = "a shutdown that kills only an Execute's direct child and leaves the rest of "
                    "its process group running",
         .how = "a private instance runs Execute `sh -c 'sleep 300 & ...; setsid sleep 301 & "
                "...; wait'`, which records its pids in the root; while the call is in flight "
                "the runtime gets SIGTERM; after its exit kill(pid, 0) from the suite must find "
                "neither the shell nor its background sleep. Whether the setsid descendant "
                "survives is reported as information: it left the process group, which is "
                "what the contract has the daemon signal");
