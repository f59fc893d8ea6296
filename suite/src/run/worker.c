/* SPDX-License-Identifier: Apache-2.0 */
/* Worker processes: one case each, plus cleanup jobs. */
#include "worker.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_context.h"
#include "process_client.h"
#include "rest_client.h"
#include "text_util.h"
#include "workspace_remove.h"

enum { SETUP_TIMEOUT_MS = 15000, SIGNAL_KILL = 9 };

static int rest_simple(const struct run_target *t, const char *method, const char *target,
                       long *status, char *why, size_t why_len)
{
    struct http_request req = {.method = method, .target = target, .timeout_ms = SETUP_TIMEOUT_MS};
    if (strcmp(method, "PUT") == 0) {
        req.body = "";
        req.body_len = 0;
    }
    struct http_response resp;
    int rc = rest_do_at(t->rest_addr, &req, &resp);
    *status = resp.status;
    if (rc != 0)
        snprintf(why, why_len, "%s %s: %s", method, target, resp.error);
    else if (resp.status / 100 != 2)
        snprintf(why, why_len, "%s %s answered %ld", method, target, resp.status);
    http_response_free(&resp);
    return rc;
}

int workspace_create(struct case_ctx *ctx, const char *dir, char *why, size_t why_len)
{
    char grpc_why[400] = "", rest_why[400] = "";
    const char *mkdir_argv[] = {"mkdir", "-p", "--", dir, NULL};
    /* Without gRPC (a proxy that cannot carry it) REST alone makes it, and
     * the case is not skipped for the suite's own set-up. */
    if (case_grpc_unusable(ctx))
        snprintf(grpc_why, sizeof grpc_why, "no gRPC");
    else if (rpc_execute_ok(ctx, mkdir_argv, SETUP_TIMEOUT_MS, grpc_why, sizeof grpc_why) == 0)
        return 0;
    /* Fallback over REST: PUT creates missing parents; the marker goes again. */
    char *marker_rel = text_fmt("%s/.sbxc-workspace", dir);
    char *marker = marker_rel ? rest_files_target(marker_rel) : NULL;
    free(marker_rel);
    long status = 0;
    int rc = -1;
    if (marker &&
        rest_simple(ctx->target, "PUT", marker, &status, rest_why, sizeof rest_why) == 0 &&
        status / 100 == 2) {
        rest_simple(ctx->target, "DELETE", marker, &status, rest_why, sizeof rest_why);
        if (status / 100 == 2)
            rc = 0;
        else
            snprintf(rest_why + strlen(rest_why), sizeof rest_why - strlen(rest_why),
                     " (the marker file could not be removed)");
    }
    free(marker);
    if (rc != 0)
        snprintf(why, why_len, "cannot create the case directory %s: %s; %s", dir, grpc_why,
                 rest_why);
    return rc;
}

void worker_run_case(const struct case_def *def, const struct run_target *target, uint64_t run_seed,
                     uint64_t budget_ms, int report_fd)
{
    struct case_ctx ctx;
    case_ctx_init(&ctx, def, target, run_seed, report_fd);
    ctx.deadline_ms = case_now_ms() + budget_ms;
    case_ctx_emit(&ctx, &(struct worker_event){.kind = WEV_START});
    char why[1200];
    if (workspace_create(&ctx, ctx.dir, why, sizeof why) != 0)
        case_error(&ctx, "%s", why);
    else
        def->fn(&ctx);
    /* Links the case planted (some lead out of the root) go before anything
     * else may walk the tree; on its own shared runtime, not a private one. */
    case_use_shared_runtime(&ctx);
    /* A failure here is left to the clean-up job, which does not depend on it. */
    (void)workspace_remove_links(&ctx, ctx.dir, why, sizeof why);
    case_ctx_release(&ctx);
    case_ctx_emit(&ctx, &(struct worker_event){.kind = WEV_DONE});
    fflush(NULL);
    /* _exit: no atexit handlers of the parent's libraries run twice. */
    _exit(0);
}

int worker_cleanup(const struct run_target *target, const char *dir, const int32_t *pids,
                   size_t n_pids, int log_fd)
{
    struct case_ctx ctx;
    case_ctx_init(&ctx, NULL, target, 0, -1);
    for (size_t i = 0; i < n_pids; i++) {
        int code = rpc_signal(&ctx, pids[i], SIGNAL_KILL);
        /* NOT_FOUND (5) means the process is already gone. */
        if (code != 0 && code != 5 && log_fd >= 0)
            dprintf(log_fd, "cleanup %s: SendSignal SIGKILL to process %d: status %d\n", dir,
                    (int)pids[i], code);
    }
    char why[1000] = "";
    int rc = workspace_remove(&ctx, dir, why, sizeof why);
    if (rc != 0 && log_fd >= 0) dprintf(log_fd, "cleanup %s failed: %s\n", dir, why);
    case_ctx_release(&ctx);
    return rc;
}
