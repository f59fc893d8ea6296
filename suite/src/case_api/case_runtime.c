/* SPDX-License-Identifier: Apache-2.0 */
/* Private runtime instances for lifecycle and [launch] cases (case_api.h):
 * the run's launch command started again on fresh ports and a fresh root.
 * The instance stays in the worker's process group, so a worker killed on
 * timeout takes its runtime down with it. */
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "case_context.h"
#include "launcher.h"

struct private_runtime {
    struct launched_runtime rt;
};

struct private_runtime *case_runtime_start(struct case_ctx *ctx,
                                           const struct private_runtime_opts *opts)
{
    const struct run_target *t = ctx->target;
    if (!t->launch_mode || !t->launch_template) {
        case_skip(ctx, "needs launch mode");
        return NULL;
    }
    struct private_runtime *p = calloc(1, sizeof *p);
    if (!p) {
        case_error(ctx, "out of memory");
        return NULL;
    }
    struct launch_opts o = {
        .command_template = t->launch_template,
        .work_dir = t->run_tmp,
        .extra_env = opts ? opts->extra_env : NULL,
        .extra_args = opts ? opts->extra_args : NULL,
        .missing_root = opts && opts->missing_root,
        .no_planted_env = opts && opts->no_planted_env,
        .own_process_group = false,
        .health_timeout_ms = t->health_timeout_ms,
        .confine = t->confine_runtime,
        .host = opts ? opts->host : NULL,
    };
    char err[2048];
    if (launcher_start(&o, &p->rt, err, sizeof err) != 0) {
        if (o.missing_root)
            case_fail(ctx, "the runtime starts and becomes healthy with a missing root directory",
                      "%s", err);
        else if (opts && opts->must_start)
            case_fail(ctx, opts->must_start, "%s", err);
        else
            case_error(ctx, "could not start a private runtime: %s", err);
        launcher_release(&p->rt);
        free(p);
        return NULL;
    }
    case_note(ctx, "private runtime: %s", p->rt.command_line ? p->rt.command_line : "?");
    return p;
}

const char *private_runtime_grpc_addr(const struct private_runtime *rt)
{
    return rt->rt.grpc_addr;
}

const char *private_runtime_rest_addr(const struct private_runtime *rt)
{
    return rt->rt.rest_addr;
}

const char *private_runtime_root(const struct private_runtime *rt)
{
    return rt->rt.root;
}

int private_runtime_pid(const struct private_runtime *rt)
{
    return (int)rt->rt.pid;
}

const char *const *private_runtime_env(const struct private_runtime *rt)
{
    return (const char *const *)rt->rt.env;
}

int private_runtime_signal(struct private_runtime *rt, int sig)
{
    if (rt->rt.pid <= 0 || rt->rt.exited) return -1;
    return kill(rt->rt.pid, sig);
}

int private_runtime_wait(struct private_runtime *rt, unsigned timeout_ms, int *status)
{
    if (launcher_wait(&rt->rt, timeout_ms) != 0) return -1;
    if (status) *status = rt->rt.status;
    return 0;
}

void private_runtime_stop(struct private_runtime *rt)
{
    if (!rt) return;
    launcher_release(&rt->rt);
    free(rt);
}

static void destroy_slots(struct case_slot *slots)
{
    for (int i = CASE_MAX_SLOTS - 1; i >= 0; i--) {
        if (slots[i].key && slots[i].destroy) slots[i].destroy(slots[i].state);
        slots[i] = (struct case_slot){0};
    }
}

void case_use_runtime(struct case_ctx *ctx, const struct private_runtime *rt)
{
    if (!rt) return;
    case_use_shared_runtime(ctx);
    struct run_target *t = malloc(sizeof *t);
    if (!t) {
        case_error(ctx, "out of memory pointing the case at its runtime instance");
        return;
    }
    *t = *ctx->target;
    snprintf(t->grpc_addr, sizeof t->grpc_addr, "%s", private_runtime_grpc_addr(rt));
    snprintf(t->rest_addr, sizeof t->rest_addr, "%s", private_runtime_rest_addr(rt));
    t->root_path = (char *)private_runtime_root(rt);
    t->planted_env = (char **)private_runtime_env(rt);
    ctx->shared_target = ctx->target;
    ctx->target = t;
    memcpy(ctx->parked, ctx->slots, sizeof ctx->slots);
    memset(ctx->slots, 0, sizeof ctx->slots);
    ctx->parked_root_path = ctx->root_path;
    ctx->parked_root_probed = ctx->root_probed;
    ctx->root_path = NULL;
    ctx->root_probed = false;
}

void case_use_shared_runtime(struct case_ctx *ctx)
{
    if (!ctx->shared_target) return;
    destroy_slots(ctx->slots);
    memcpy(ctx->slots, ctx->parked, sizeof ctx->slots);
    memset(ctx->parked, 0, sizeof ctx->parked);
    free((void *)ctx->target);
    ctx->target = ctx->shared_target;
    ctx->shared_target = NULL;
    free(ctx->root_path);
    ctx->root_path = ctx->parked_root_path;
    ctx->root_probed = ctx->parked_root_probed;
    ctx->parked_root_path = NULL;
}
