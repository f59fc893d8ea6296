/* SPDX-License-Identifier: Apache-2.0 */
/* P16 (process groups), P17 (cancellation), P18 (one workspace for both
 * surfaces), P19 (parallel RPCs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf_util.h"
#include "common/proc_util.h"
#include "rest_client.h"
#include "sbx_grpc_client.h"

/* Prints "ids=<pid>:<pgid>:<sid>" from /proc/$$/stat, skipping the comm
 * field by its closing parenthesis, or "no-procfs". */
#define IDS_SCRIPT                                                                                 \
    "[ -r /proc/$$/stat ] || { echo no-procfs; exit 0; }; "                                        \
    "s=$(cat /proc/$$/stat); s=${s##*') '}; set -- $s; echo \"ids=$$:$3:$4\""

static void check_ids(struct case_ctx *ctx, const char *out, const char *who)
{
    if (strstr(out, "no-procfs")) {
        case_skip(ctx, "/proc is not available to the runtime's processes");
        return;
    }
    const char *p = strstr(out, "ids=");
    long ids[3] = {-1, -2, -3}; /* pid, pgid, sid: distinct until parsed */
    if (p) conf_parse_longs(p + 4, ':', ids, 3);
    CASE_CHECK(ctx, p && ids[0] == ids[1],
               "the process's pgid equal to its pid (own process group)", "%s: pid %ld, pgid %ld%s",
               who, ids[0], ids[1], p ? "" : " (no ids line)");
}

static void pgid_execute(struct case_ctx *ctx)
{
    struct rpc_result r;
    if (pu_sh_ok(ctx, IDS_SCRIPT, "Execute reading /proc/$$/stat", &r))
        check_ids(ctx, (const char *)r.out, "Execute");
    rpc_result_free(&r);
}
SBX_CASE(pgid_execute, .id = "P16-001", .title = "An Execute process runs in its own process group",
         .clauses = "P16", .level = LEVEL_MUST, .tags = "process", .needs = NEEDS_PROCFS,
         .timeout_s = 20, .catches = "children left in the daemon's process group",
         .how = "the process reads its pgrp from /proc/$$/stat and compares it with its pid");

static void pgid_start(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", IDS_SCRIPT), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "Start reading /proc/$$/stat"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 10000))
        check_ids(ctx, ps.out ? (const char *)ps.out : "", "Start");
    pu_free(&ps);
}
SBX_CASE(pgid_start, .id = "P16-002", .title = "A Start process runs in its own process group",
         .clauses = "P16", .level = LEVEL_MUST, .tags = "process", .needs = NEEDS_PROCFS,
         .timeout_s = 20, .catches = "children left in the daemon's process group",
         .how = "the process reads its pgrp from /proc/$$/stat and compares it with its pid");

/* ---- P17 ---------------------------------------------------------------- */

static void cancel_start(struct case_ctx *ctx)
{
    struct rpc_spec spec = {
        .argv = PU_ARGV("sh", "-c",
                        "sleep 60 & echo $! > procs.pid; echo $$ >> procs.pid; echo ready; wait"),
        .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "a shell and a background sleep"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000) &&
        pu_wait_output(&ps, false, "ready", 8000, "the process's ready line")) {
        rpc_cancel(ps.s);
        ps.ended = true; /* cancelled: nothing more to read */
        int gone = pu_wait_pids_gone(ctx, "procs.pid", 6000);
        /* Gone: its id is no longer the runner's to kill (it may be reused). */
        if (pu_expect_pids_gone(ctx, "procs.pid", gone,
                                "the process group terminated when the client cancels Start",
                                "its processes still run 6 s after the cancellation"))
            case_untrack_process(ctx, ps.pid);
    }
    pu_free(&ps);
}
SBX_CASE(cancel_start, .id = "P17-001",
         .title = "Cancelling a Start stream terminates the process group", .clauses = "P17",
         .level = LEVEL_SHOULD, .tags = "process", .timeout_s = 30,
         .catches = "processes of cancelled streams left running (leaked)",
         .how = "starts a shell with a background sleep (both record their pids), cancels the "
                "call with RST_STREAM CANCEL and checks through Execute that both are gone "
                "within 6 s (zombies count as gone; skipped when /proc cannot tell)");

static void cancel_execute(struct case_ctx *ctx)
{
    const char *why = NULL;
    struct sbx_grpc_conn *c = rpc_conn(ctx, &why);
    if (!c) {
        case_fail(ctx, "a gRPC connection", "%s", why ? why : "failed");
        return;
    }
    struct rpc_spec spec = {
        .argv = PU_ARGV("sh", "-c", "sleep 60 & echo $! > procs.pid; echo $$ >> procs.pid; wait"),
        .cwd = case_dir(ctx)};
    size_t len = 0;
    uint8_t *req = rpc_pack_execute(&spec, &len);
    char err[200] = "";
    /* No deadline: the client gives up by itself, once the process runs. */
    struct sbx_grpc_call_opts o = {.wait_ms = 60000};
    case_request(ctx, "Execute {command: [\"sh\", \"-c\", \"sleep 60 & ...; wait\"]}, "
                      "cancelled by the client (RST_STREAM CANCEL) once it runs");
    struct sbx_grpc_call *call =
        req ? sbx_grpc_call_start(c, PROC_PATH_EXECUTE, req, len, &o, err, sizeof err) : NULL;
    free(req);
    if (!call) {
        if (err[0])
            case_fail(ctx, "the Execute call to start", "%s", err);
        else
            case_error(ctx, "cannot encode the request");
        return;
    }
    bool started = pu_wait_pidfile(ctx, "procs.pid", 10000);
    const struct sbx_grpc_result *res = sbx_grpc_call_result(call);
    const uint8_t *msg;
    size_t mlen;
    int n = sbx_grpc_call_next(call, 0, &msg, &mlen);
    if (n == SBX_GRPC_NEXT_MESSAGE || n == SBX_GRPC_NEXT_END || n == SBX_GRPC_NEXT_ERROR) {
        case_fail(ctx, "the Execute of a 60 s process still running before the client cancels",
                  "it ended already (%s, code %d %s)",
                  n == SBX_GRPC_NEXT_MESSAGE ? "a response" : "no response", res->code, res->error);
    } else if (!started) {
        case_fail(ctx, "the process to have started and written its pidfile (set-up)",
                  "no pidfile within 10 s");
    } else {
        sbx_grpc_call_cancel(call);
        int gone = pu_wait_pids_gone(ctx, "procs.pid", 6000);
        pu_expect_pids_gone(ctx, "procs.pid", gone,
                            "the process group terminated when the client cancels Execute",
                            "its processes still run 6 s after the cancellation");
    }
    sbx_grpc_call_free(call);
    if (case_failed(ctx)) pu_kill_pidfile(ctx, "procs.pid");
}
SBX_CASE(cancel_execute, .id = "P17-002",
         .title = "Cancelling an Execute call terminates the process group", .clauses = "P17",
         .level = LEVEL_SHOULD, .tags = "process", .timeout_s = 40,
         .catches = "processes of cancelled Execute calls left running",
         .how = "an Execute (no deadline) of a shell with a background sleep; once both have "
                "written their pids the client cancels the call; both processes must be gone "
                "within 6 s (zombies count as gone; skipped when /proc cannot tell)");

/* ---- P18 ------------------------------------------------------------------- */

static void cross_surface(struct case_ctx *ctx)
{
    uint8_t data[3000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)case_rand(ctx);
    char rel[1024];
    snprintf(rel, sizeof rel, "%s/from-rest/data.bin", case_dir(ctx));
    struct http_response resp = {0};
    if (rest_put_bytes(ctx, rel, data, sizeof data, NULL, &resp) != 0 ||
        (resp.status != 204 && resp.status != 200 && resp.status != 201)) {
        case_fail(ctx, "PUT through REST to succeed (set-up)", "status %ld %s", resp.status,
                  resp.error);
        http_response_free(&resp);
        return;
    }
    http_response_free(&resp);
    struct rpc_result r;
    rpc_sh(ctx, "cat from-rest/data.bin", &r);
    if (CASE_CHECK(ctx, r.code == SBX_GRPC_OK && r.exit_code == 0,
                   "a process reading the file written through REST", "status %d, exit %d", r.code,
                   (int)r.exit_code))
        CASE_CHECK(ctx, r.out_len == sizeof data && memcmp(r.out, data, sizeof data) == 0,
                   "the same bytes at the same relative path", "%zu bytes differing", r.out_len);
    rpc_result_free(&r);

    char token[64], script[256];
    snprintf(token, sizeof token, "written-by-process-%016llx\n",
             (unsigned long long)case_rand(ctx));
    snprintf(script, sizeof script, "mkdir -p from-proc && printf '%%s' '%.*s' > from-proc/out.txt",
             (int)strlen(token) - 1, token);
    if (!pu_sh_ok(ctx, script, "a process writing a file (set-up)", NULL)) return;
    snprintf(rel, sizeof rel, "%s/from-proc/out.txt", case_dir(ctx));
    if (rest_get_path(ctx, rel, &resp) == 0)
        CASE_CHECK(ctx,
                   resp.status == 200 && resp.body_len == strlen(token) - 1 &&
                       memcmp(resp.body, token, resp.body_len) == 0,
                   "REST GET returning the file the process wrote", "status %ld, %zu bytes",
                   resp.status, resp.body_len);
    else
        case_fail(ctx, "REST GET to answer", "%s", resp.error);
    http_response_free(&resp);
}
SBX_CASE(cross_surface, .id = "P18-001",
         .title = "REST and processes share one workspace (both directions)", .clauses = "P18",
         .level = LEVEL_MUST, .tags = "process,files", .timeout_s = 20,
         .catches = "REST and gRPC serving different roots or views of the workspace",
         .how = "PUTs binary data over REST and reads it with `cat` through Execute, then "
                "lets a process write a file and GETs it over REST");

/* ---- P19 --------------------------------------------------------------------- */

static void parallel_execute(struct case_ctx *ctx)
{
    enum { N = 8 };
    const char *why = NULL;
    struct sbx_grpc_conn *c = rpc_conn(ctx, &why);
    if (!c) {
        case_fail(ctx, "a gRPC connection", "%s", why ? why : "failed");
        return;
    }
    struct rpc_spec spec = {.argv = PU_ARGV("sleep", "1"), .cwd = case_dir(ctx)};
    size_t len = 0;
    uint8_t *req = rpc_pack_execute(&spec, &len);
    struct sbx_grpc_call *calls[N] = {0};
    struct sbx_grpc_call_opts o = {.wait_ms = 20000};
    case_request(ctx, "8 concurrent Execute {command: [\"sleep\", \"1\"]} on one connection");
    uint64_t t0 = case_now_ms();
    for (int i = 0; i < N && req; i++) {
        char err[200] = "";
        calls[i] = sbx_grpc_call_start(c, PROC_PATH_EXECUTE, req, len, &o, err, sizeof err);
        if (!calls[i]) {
            case_fail(ctx, "8 calls started on one connection", "call %d: %s", i, err);
            break;
        }
    }
    int ok = 0;
    for (int i = 0; i < N; i++) {
        if (!calls[i]) continue;
        const uint8_t *msg;
        size_t mlen;
        int n;
        for (int k = 0; k < 100; k++) {
            n = sbx_grpc_call_next(calls[i], 200, &msg, &mlen);
            if (n != SBX_GRPC_NEXT_TIMEOUT && n != SBX_GRPC_NEXT_MESSAGE) break;
        }
        const struct sbx_grpc_result *res = sbx_grpc_call_result(calls[i]);
        if (res->end == SBX_GRPC_END_STATUS && res->code == SBX_GRPC_OK && res->n_messages == 1)
            ok++;
        else
            case_fail(ctx, "every Execute of sleep 1 to succeed", "call %d: end %d code %d %s", i,
                      (int)res->end, res->code, res->error);
    }
    uint64_t took = case_now_ms() - t0;
    case_note(ctx, "8 concurrent Execute of sleep 1 took %llu ms", (unsigned long long)took);
    if (ok == N)
        CASE_CHECK(ctx, took < 6000, "8 concurrent `sleep 1` done in well under 8 s (< 6 s)",
                   "%llu ms (calls served one after another?)", (unsigned long long)took);
    for (int i = 0; i < N; i++)
        sbx_grpc_call_free(calls[i]);
    free(req);
}
SBX_CASE(parallel_execute, .id = "P19-001",
         .title = "Eight concurrent Execute calls of `sleep 1` run in parallel", .clauses = "P19",
         .level = LEVEL_MUST, .tags = "process,concurrency", .timeout_s = 30,
         .catches = "RPCs serialized (one process at a time), per-connection locking",
         .how = "8 Execute calls of `sleep 1` on one connection at once; all must succeed in "
                "under 6 s in total");
