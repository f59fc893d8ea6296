/* SPDX-License-Identifier: Apache-2.0 */
/* P16, P4 and P3 at the first instruction: a process is in its own group,
 * in its working directory and has its environment before it runs its first
 * instruction. Only the group can be asked for late by a runtime (from the
 * parent, which the kernel refuses once the child has exec'd, so the process
 * stays in the daemon's group); the working directory and the environment
 * of another process cannot be changed after exec on Linux, so for them the
 * first look is the same as a later one and checks that nothing (a wrapper,
 * a shell) stands between the runtime and the program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_util.h"
#include "common/first_look.h"
#include "common/proc_util.h"
#include "common/shipped_helper.h"

#define RUNS_EACH 4

static const char *via_name(enum first_look_via via)
{
    return via == FIRST_LOOK_EXECUTE ? "Execute" : "Start";
}

static void group_first_look(struct case_ctx *ctx)
{
    char helper[128];
    if (first_look_upload(ctx, helper, sizeof helper) != 0) return;
    int looks = 0;
    for (int i = 0; i < 2 * RUNS_EACH && !case_failed(ctx); i++) {
        enum first_look_via via = i % 2 ? FIRST_LOOK_START : FIRST_LOOK_EXECUTE;
        struct first_look_run run = {.helper = helper, .via = via};
        struct first_look fl;
        char why[400] = "";
        int rc = first_look(ctx, &run, &fl, why, sizeof why);
        if (rc == FIRST_LOOK_LATE) {
            case_skip(ctx, "could not decide in time (run %d: %s)", i + 1, why);
            break;
        }
        if (rc != 0) {
            if (i == 0)
                case_skip(ctx, "the runtime did not run the suite's static probe: %s", why);
            else
                case_fail(ctx, "the probe to run as it did before", "%s", why);
            break;
        }
        CASE_CHECK(ctx, fl.pgid == fl.pid,
                   "the first instruction running in its own process group (pgid = pid)",
                   "%s run %d: pid %ld, pgid %ld", via_name(via), i / 2 + 1, fl.pid, fl.pgid);
        looks++;
    }
    if (!case_failed(ctx))
        case_note(ctx,
                  "%d processes (Execute and Start) in their own group at the first "
                  "instruction (P15-007 checks PTY processes)",
                  looks);
    shipped_helper_remove(ctx, helper);
}
SBX_CASE(group_first_look, .id = "P16-004",
         .title = "A process's first instruction already runs in its own process group",
         .clauses = "P16", .level = LEVEL_MUST, .tags = "process,race", .timeout_s = 60,
         .catches = "a group set only by the runtime after the start (from the parent, refused "
                    "once the child has exec'd) or after the program began",
         .how = "uploads the suite's static sbx-first-look and runs it 4 times each with Execute "
                "and Start; its first instructions read getpid and getpgrp: pgid = pid every time");

static void cwd_env_first_look(struct case_ctx *ctx)
{
    char helper[128];
    if (first_look_upload(ctx, helper, sizeof helper) != 0) return;
    if (!pu_sh_ok(ctx, "mkdir -p sub", "mkdir sub", NULL)) return;
    char *cwd = conf_xasprintf("%s/sub", case_dir(ctx));
    char *suffix = conf_xasprintf("/%s", cwd);
    char value[64], var[96], path_var[96];
    snprintf(value, sizeof value, "first-%016llx", (unsigned long long)case_rand(ctx));
    snprintf(var, sizeof var, "SBX_FIRST_LOOK=%s", value);
    /* A clash with the daemon's own PATH: the request's value must win (P3). */
    snprintf(path_var, sizeof path_var, "PATH=/%s:/usr/bin:/bin", value);
    const char *env[] = {var, path_var, NULL};
    static const char *const names[] = {"SBX_FIRST_LOOK", "PATH"};
    /* The probe named by its absolute path where the root is known, so that
     * a cwd the runtime ignores still runs it (and is seen). */
    const char *root = case_root_path(ctx);
    char *probe = root ? conf_xasprintf("%s/%s/%s", root, case_dir(ctx), helper)
                       : conf_xasprintf("../%s", helper);
    struct first_look fl;
    char why[400] = "";
    struct first_look_run plain = {.helper = root ? probe : helper, .via = FIRST_LOOK_EXECUTE};
    if (first_look(ctx, &plain, &fl, why, sizeof why) != 0) {
        case_skip(ctx, "the runtime did not run the suite's static probe: %s", why);
        goto out;
    }
    for (int i = 0; i < 4 && !case_failed(ctx); i++) {
        enum first_look_via via = i % 2 ? FIRST_LOOK_START : FIRST_LOOK_EXECUTE;
        const char *name = names[i / 2];
        struct first_look_run run = {
            .helper = probe, .via = via, .cwd = cwd, .env = env, .env_name = name};
        int rc = first_look(ctx, &run, &fl, why, sizeof why);
        if (rc == FIRST_LOOK_LATE) {
            case_skip(ctx, "could not decide in time (%s)", why);
            break;
        }
        if (rc != 0) {
            case_fail(ctx, "the probe to run with cwd sub/ and env_vars as it ran without", "%s",
                      why);
            break;
        }
        size_t fn = strlen(fl.cwd), sn = strlen(suffix);
        CASE_CHECK(ctx, fn >= sn && strcmp(fl.cwd + fn - sn, suffix) == 0,
                   "the first instruction running in the requested cwd (P4)",
                   "%s: want a directory ending in %s, getcwd() gave %s", via_name(via), suffix,
                   fl.cwd);
        const char *want = i / 2 == 0 ? value : path_var + 5;
        CASE_CHECK(ctx, fl.env_set && strcmp(fl.env_value, want) == 0,
                   "the first instruction seeing the request's env_vars (P3; the request wins a "
                   "clash)",
                   "%s: %s %s%s", via_name(via), name, fl.env_set ? "=" : "unset",
                   fl.env_set ? fl.env_value : "");
    }
out:
    free(probe);
    free(cwd);
    free(suffix);
    shipped_helper_remove(ctx, helper);
}
SBX_CASE(cwd_env_first_look, .id = "P4-009",
         .title = "A process's first instruction already has its cwd and env_vars",
         .clauses = "P4,P3", .level = LEVEL_MUST, .tags = "process", .timeout_s = 60,
         .catches = "a cwd or environment applied by something that runs before the program "
                    "(and after the start), the daemon's cwd or PATH winning",
         .how = "runs the suite's static sbx-first-look with Execute and Start, cwd sub/ and "
                "env_vars SBX_FIRST_LOOK and PATH (a clash); its first instructions read getcwd "
                "and getenv");
