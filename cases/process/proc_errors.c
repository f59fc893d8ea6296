/* SPDX-License-Identifier: Apache-2.0 */
/* P5, P6, P8: requests that cannot start a process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"

static void exec_expect_code(struct case_ctx *ctx, const struct rpc_spec *spec, int want,
                             const char *expected)
{
    struct rpc_result r;
    rpc_execute(ctx, spec, &r);
    if (r.code == SBX_GRPC_OK)
        case_fail(ctx, expected, "status OK, exit_code %d (a process was run)", (int)r.exit_code);
    else
        CASE_CHECK(ctx, r.code == want, expected, "status %d (%s)", r.code,
                   r.message ? r.message : "");
    rpc_result_free(&r);
}

static void exec_empty_command(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = PU_ARGV(NULL)};
    exec_expect_code(ctx, &spec, SBX_GRPC_INVALID_ARGUMENT,
                     "INVALID_ARGUMENT (3) for an empty command");
    struct rpc_spec spec2 = {.argv = PU_ARGV(NULL), .cwd = case_dir(ctx)};
    exec_expect_code(ctx, &spec2, SBX_GRPC_INVALID_ARGUMENT,
                     "INVALID_ARGUMENT (3) for an empty command (with a cwd)");
}
SBX_CASE(exec_empty_command, .id = "P5-001",
         .title = "Execute with an empty command fails with INVALID_ARGUMENT", .clauses = "P5",
         .level = LEVEL_MUST, .tags = "process,errors", .timeout_s = 20,
         .catches = "an empty argv accepted (OK with some exit code) or failing with another "
                    "code",
         .how = "sends a config whose command list is empty, with and without a cwd");

static void exec_missing_config(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = NULL};
    exec_expect_code(ctx, &spec, SBX_GRPC_INVALID_ARGUMENT,
                     "INVALID_ARGUMENT (3) for a request without config");
}
SBX_CASE(exec_missing_config, .id = "P5-002",
         .title = "Execute without a config fails with INVALID_ARGUMENT", .clauses = "P5",
         .level = LEVEL_MUST, .tags = "process,errors", .timeout_s = 20,
         .catches = "a missing config treated as an empty process or crashing the handler",
         .how = "sends an ExecuteRequest with no config field at all");

static void exec_command_not_found(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = PU_ARGV("sbx-no-such-command-p6", "arg"), .cwd = case_dir(ctx)};
    exec_expect_code(ctx, &spec, SBX_GRPC_NOT_FOUND,
                     "NOT_FOUND (5) for a command not in PATH (not exit 127)");
    char *abs = pu_case_abs(ctx, "no-such-binary");
    if (!abs) return;
    struct rpc_spec spec2 = {.argv = PU_ARGV(abs), .cwd = case_dir(ctx)};
    exec_expect_code(ctx, &spec2, SBX_GRPC_NOT_FOUND,
                     "NOT_FOUND (5) for an absolute command path that is absent");
    free(abs);
}
SBX_CASE(exec_command_not_found, .id = "P6-001",
         .title = "Execute of a command that cannot be found fails with NOT_FOUND", .clauses = "P6",
         .level = LEVEL_SHOULD, .tags = "process,errors", .timeout_s = 20,
         .catches = "a missing command reported as exit code 127, INTERNAL or UNKNOWN",
         .how = "runs an unknown command name and an absent absolute path");

static void exec_not_executable(struct case_ctx *ctx)
{
    if (!pu_sh_ok(ctx,
                  "printf '#!/bin/sh\\necho ran > ran-marker\\n' > noexec.sh && chmod 0644 "
                  "noexec.sh",
                  "set-up: writing a script without execute permission", NULL))
        return;
    char *abs = pu_case_abs(ctx, "noexec.sh");
    if (!abs) return;
    struct rpc_spec spec = {.argv = PU_ARGV(abs), .cwd = case_dir(ctx)};
    struct rpc_result r;
    rpc_execute(ctx, &spec, &r);
    if (r.code == SBX_GRPC_OK)
        case_fail(ctx, "PERMISSION_DENIED (7) for a file without execute permission",
                  "status OK with exit_code %d%s", (int)r.exit_code,
                  r.exit_code == 126 || r.exit_code == 127 ? " (a shell-style exit code)" : "");
    else
        CASE_CHECK(ctx, r.code == SBX_GRPC_PERMISSION_DENIED,
                   "PERMISSION_DENIED (7) for a file without execute permission", "status %d (%s)",
                   r.code, r.message ? r.message : "");
    rpc_result_free(&r);
    CASE_CHECK(ctx, pu_exists(ctx, "ran-marker") == 0, "the non-executable script not run",
               "its marker file exists");
    free(abs);
}
SBX_CASE(exec_not_executable, .id = "P6-002",
         .title = "Execute of a non-executable file fails with PERMISSION_DENIED", .clauses = "P6",
         .level = LEVEL_SHOULD, .tags = "process,errors", .timeout_s = 20,
         .catches = "a permission failure reported as INTERNAL, UNKNOWN or exit code 126/127",
         .how = "writes a script with mode 0644 and runs it by absolute path");

/* Start must fail with the code and never send an InitEvent. */
static void start_expect_failure(struct case_ctx *ctx, const struct rpc_spec *spec, int want,
                                 const char *expected)
{
    struct rpc_stream *s = rpc_start(ctx, spec, NULL);
    if (!s) {
        case_error(ctx, "out of memory");
        return;
    }
    bool init = false;
    uint64_t end = case_now_ms() + 10000;
    for (int i = 0; i < 10000; i++) {
        uint64_t now = case_now_ms();
        if (now >= end) {
            case_fail(ctx, expected, "the call did not end within 10 s%s",
                      init ? " (an InitEvent came)" : "");
            break;
        }
        struct rpc_event ev;
        rpc_next(s, (unsigned)(end - now), &ev);
        if (ev.kind == PEV_INIT) {
            init = true;
            rpc_signal(ctx, ev.process_id, PU_SIGKILL);
        } else if (ev.kind == PEV_END || ev.kind == PEV_ERROR) {
            if (init)
                case_fail(ctx, expected, "an InitEvent, then status %d (%s)", ev.code,
                          ev.message ? ev.message : "");
            else
                CASE_CHECK(ctx, ev.code == want, expected, "status %d (%s)", ev.code,
                           ev.message ? ev.message : "");
            break;
        }
    }
    rpc_stream_free(s);
}

static void start_failures(struct case_ctx *ctx)
{
    char *marker = pu_case_abs(ctx, "start-marker");
    if (!marker) return;
    char script[1200];
    snprintf(script, sizeof script, "echo ran >> '%s'", marker);
    struct rpc_spec esc = {.argv = PU_ARGV("sh", "-c", script), .cwd = ".."};
    start_expect_failure(ctx, &esc, SBX_GRPC_PERMISSION_DENIED,
                         "Start with cwd \"..\": PERMISSION_DENIED, no InitEvent");
    CASE_CHECK(ctx, pu_exists(ctx, "start-marker") == 0, "no process started for cwd \"..\"",
               "the command's marker file exists");

    struct rpc_spec empty = {.argv = PU_ARGV(NULL)};
    start_expect_failure(ctx, &empty, SBX_GRPC_INVALID_ARGUMENT,
                         "Start with an empty command: INVALID_ARGUMENT, no InitEvent");
    struct rpc_spec none = {.argv = NULL};
    start_expect_failure(ctx, &none, SBX_GRPC_INVALID_ARGUMENT,
                         "Start without config: INVALID_ARGUMENT, no InitEvent");
    struct rpc_spec nf = {.argv = PU_ARGV("sbx-no-such-command-p8"), .cwd = case_dir(ctx)};
    start_expect_failure(ctx, &nf, SBX_GRPC_NOT_FOUND,
                         "Start of a missing command: NOT_FOUND, no InitEvent");
    char cwd[1024];
    snprintf(cwd, sizeof cwd, "%s/does-not-exist", case_dir(ctx));
    struct rpc_spec nocwd = {.argv = PU_ARGV("true"), .cwd = cwd};
    start_expect_failure(ctx, &nocwd, SBX_GRPC_NOT_FOUND,
                         "Start with a missing cwd: NOT_FOUND, no InitEvent");
    free(marker);
}
SBX_CASE(start_failures, .id = "P8-001",
         .title = "Start that cannot start a process fails with the status and no InitEvent",
         .clauses = "P8,P4,P5,P6", .level = LEVEL_SHOULD, .tags = "process,errors", .timeout_s = 40,
         .catches = "an InitEvent (and ExitEvent 127) sent before the failure, or a wrong code",
         .how = "starts with an escaping cwd, an empty command, no config, a missing command "
                "and a missing cwd; each call must end with the clause's code and no InitEvent");
