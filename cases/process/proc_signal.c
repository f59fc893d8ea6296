/* SPDX-License-Identifier: Apache-2.0 */
/* P13: SendSignal — delivery to the whole process group, exit codes,
 * invalid signal values and unknown ids. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"

static const char *sig_name(int s)
{
    return s == PU_SIGINT ? "SIGINT" : s == PU_SIGTERM ? "SIGTERM" : "SIGKILL";
}

static void signal_ends(struct case_ctx *ctx, int sig)
{
    struct rpc_spec spec = {.argv = PU_ARGV("sleep", "30"), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sleep 30"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
        int c = rpc_signal(ctx, ps.pid, sig);
        if (CASE_CHECK(ctx, c == 0, "SendSignal accepted", "%s: status %d", sig_name(sig), c) &&
            pu_finish(&ps, 8000)) {
            CASE_CHECK(ctx, ps.exit_code != 0, "a non-zero exit code after a signal death",
                       "%s: exit_code 0", sig_name(sig));
            case_note(ctx, "%s death reported as exit_code %d", sig_name(sig), (int)ps.exit_code);
        }
    }
    pu_free(&ps);
}

static void signal_int_ends(struct case_ctx *ctx)
{
    signal_ends(ctx, PU_SIGINT);
}
static void signal_term_ends(struct case_ctx *ctx)
{
    signal_ends(ctx, PU_SIGTERM);
}
static void signal_kill_ends(struct case_ctx *ctx)
{
    signal_ends(ctx, PU_SIGKILL);
}

SBX_CASE(signal_int_ends, .id = "P13-001", .title = "SIGINT ends a process, non-zero exit",
         .clauses = "P13", .level = LEVEL_MUST, .tags = "process", .timeout_s = 25,
         .catches = "SIGINT not delivered (or mapped to another signal), exit reported as 0",
         .how = "starts `sleep 30`, sends SIGINT; the stream must end within 8 s with a "
                "non-zero exit code (the value is noted)");
SBX_CASE(signal_term_ends, .id = "P13-002", .title = "SIGTERM ends a process, non-zero exit",
         .clauses = "P13", .level = LEVEL_MUST, .tags = "process", .timeout_s = 25,
         .catches = "SIGTERM not delivered, exit reported as 0",
         .how = "starts `sleep 30`, sends SIGTERM; the stream must end within 8 s with a "
                "non-zero exit code");
SBX_CASE(signal_kill_ends, .id = "P13-003", .title = "SIGKILL ends a process, non-zero exit",
         .clauses = "P13", .level = LEVEL_MUST, .tags = "process", .timeout_s = 25,
         .catches = "SIGKILL not delivered, exit reported as 0",
         .how = "starts `sleep 30`, sends SIGKILL; the stream must end within 8 s with a "
                "non-zero exit code");

/* The leader runs a grandchild that records its pid; after the signal the
 * grandchild must be gone too. What happens to a group whose leader has
 * exited and whose stream has ended is the runtime's choice (the reference
 * daemon ends it, as a terminal hang-up would), so the leader must not die
 * of the signal, or that choice could kill the grandchild in its place:
 * for SIGINT and SIGTERM the leader traps the signal and lives on (for
 * SIGINT the grandchild runs in the foreground: a non-interactive shell
 * starts background jobs with SIGINT ignored). SIGKILL cannot be trapped:
 * there the grandchild records any SIGTERM it gets and lives on, so a
 * grandchild ended only when the stream ended is told apart from one that
 * the SIGKILL reached (its output goes to /dev/null: a shell that reports
 * its job's death on a pipe closed at the stream's end dies of SIGPIPE
 * before its trap runs). */
static void signal_group(struct case_ctx *ctx, int sig)
{
    const char *script =
        sig == PU_SIGINT
            ? "trap 'echo leader-trapped' INT; sh -c 'echo $$ > gc.pid; exec sleep 60'; "
              "while :; do sleep 1; done"
        : sig == PU_SIGTERM
            ? "trap 'echo leader-trapped' TERM; sh -c 'echo $$ > gc.pid; exec sleep 60' & "
              "while :; do sleep 1; done"
            : "sh -c 'trap \"echo term > gc.term\" TERM; echo $$ > gc.pid; "
              "while :; do sleep 1; done' >/dev/null 2>&1 & sleep 60; echo leader-survived";
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "a shell with a grandchild"};
    if (!pu_start(ctx, &ps, &spec, NULL, 10000)) goto done;
    if (!pu_wait_pidfile(ctx, "gc.pid", 8000)) {
        case_fail(ctx, "the grandchild to record its pid (set-up)", "no gc.pid within 8 s");
        goto done;
    }
    int c = rpc_signal(ctx, ps.pid, sig);
    if (!CASE_CHECK(ctx, c == 0, "SendSignal accepted", "%s: status %d", sig_name(sig), c))
        goto done;
    /* The leader's stream may wait for the grandchild's pipes; either way
     * the grandchild must be gone within a few seconds. */
    int gone = pu_wait_pids_gone(ctx, "gc.pid", 6000);
    if (gone == PU_PIDS_ALIVE) pu_kill_pidfile(ctx, "gc.pid"); /* lets the stream end */
    /* The trapping leader is ended here; SIGKILL already ended it. */
    if (sig != PU_SIGKILL) (void)rpc_signal(ctx, ps.pid, PU_SIGKILL);
    if (pu_finish(&ps, 10000))
        CASE_CHECK(ctx, ps.exit_code != 0, "a non-zero exit code after a signal death",
                   "%s: exit_code 0", sig_name(sig));
    if (sig == PU_SIGKILL && gone == PU_PIDS_GONE) {
        int termed = pu_exists(ctx, "gc.term");
        CASE_CHECK(ctx, termed == 0, "the grandchild ended by the SIGKILL",
                   "SIGKILL: the grandchild outlived it and got a SIGTERM later (gc.term "
                   "written): the signal reached the leader only%s",
                   termed < 0 ? " (the check itself failed)" : "");
    }
    char what[128];
    snprintf(what, sizeof what, "%s: the grandchild still runs 6 s after the signal",
             sig_name(sig));
    pu_expect_pids_gone(ctx, "gc.pid", gone, "the grandchild killed with its process group", what);
done:
    pu_free(&ps);
}

static void signal_group_int(struct case_ctx *ctx)
{
    signal_group(ctx, PU_SIGINT);
}
static void signal_group_term(struct case_ctx *ctx)
{
    signal_group(ctx, PU_SIGTERM);
}
static void signal_group_kill(struct case_ctx *ctx)
{
    signal_group(ctx, PU_SIGKILL);
}

SBX_CASE(signal_group_int, .id = "P13-004",
         .title = "SIGINT reaches the whole process group (grandchild included)", .clauses = "P13",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 35,
         .catches = "the signal sent to the leader's pid only, leaving descendants running",
         .how = "a shell that traps SIGINT runs a grandchild `sleep 60` that writes its pid; "
                "after SIGINT a later Execute checks (kill -0, zombies count as gone) that it is "
                "gone within 6 s while the leader lives on; then SIGKILL ends the leader");
SBX_CASE(signal_group_term, .id = "P13-005",
         .title = "SIGTERM reaches the whole process group (grandchild included)", .clauses = "P13",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 35,
         .catches = "the signal sent to the leader's pid only, leaving descendants running",
         .how = "a shell that traps SIGTERM runs a background grandchild `sleep 60` that "
                "writes its pid; after SIGTERM a later Execute checks that it is gone within 6 s "
                "while the leader lives on; then SIGKILL ends the leader");
SBX_CASE(signal_group_kill, .id = "P13-006",
         .title = "SIGKILL reaches the whole process group (grandchild included)", .clauses = "P13",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 35,
         .catches = "the signal sent to the leader's pid only, leaving descendants running",
         .how = "a shell runs a background grandchild that writes its pid and records any "
                "SIGTERM it gets (gc.term); after SIGKILL a later Execute checks that it is gone "
                "within 6 s without having recorded a SIGTERM (one sent when the stream ended)");

/* SIGINT and SIGTERM must arrive as themselves: a trap for each tells
 * which one came (a runtime that maps both to SIGKILL, or swaps them,
 * still ends the process). */
static void signal_identity(struct case_ctx *ctx)
{
    static const int sigs[] = {PU_SIGINT, PU_SIGTERM};
    for (size_t i = 0; i < 2; i++) {
        struct rpc_spec spec = {
            .argv = PU_ARGV("sh", "-c",
                            "trap 'echo got-INT; exit 70' INT; trap 'echo got-TERM; exit 71' "
                            "TERM; echo ready; i=0; while [ $i -lt 300 ]; do sleep 0.1 "
                            "2>/dev/null || sleep 1; i=$((i+1)); done"),
            .cwd = case_dir(ctx)};
        struct pu_stream ps = {.label = "a shell trapping INT and TERM"};
        if (pu_start(ctx, &ps, &spec, NULL, 10000) &&
            pu_wait_output(&ps, false, "ready\n", 8000, "the shell's ready line")) {
            int c = rpc_signal(ctx, ps.pid, sigs[i]);
            if (CASE_CHECK(ctx, c == 0, "SendSignal accepted", "%s: status %d", sig_name(sigs[i]),
                           c) &&
                pu_finish(&ps, 10000)) {
                const char *want = sigs[i] == PU_SIGINT ? "ready\ngot-INT\n" : "ready\ngot-TERM\n";
                int code = sigs[i] == PU_SIGINT ? 70 : 71;
                CASE_CHECK(ctx,
                           ps.out_len == strlen(want) && memcmp(ps.out, want, ps.out_len) == 0 &&
                               ps.exit_code == code,
                           "the shell's trap for exactly that signal running (its line, its exit "
                           "code)",
                           "%s: stdout %.*s, exit_code %d", sig_name(sigs[i]), (int)ps.out_len,
                           ps.out ? (const char *)ps.out : "", (int)ps.exit_code);
            }
        }
        pu_free(&ps);
        if (case_failed(ctx)) break;
    }
}
SBX_CASE(signal_identity, .id = "P13-009",
         .title = "SIGINT and SIGTERM arrive as themselves (a trap for each runs)",
         .clauses = "P13", .level = LEVEL_MUST, .tags = "process", .timeout_s = 40,
         .catches = "every signal sent as SIGKILL, or SIGINT and SIGTERM mixed up",
         .how = "a shell traps INT (prints got-INT, exits 70) and TERM (got-TERM, exits 71); "
                "after SendSignal SIGINT, then in a second run SIGTERM, exactly the matching "
                "trap must run");

static void signal_invalid_values(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = PU_ARGV("cat"), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "cat"};
    if (!pu_start(ctx, &ps, &spec, NULL, 10000)) goto done;
    static const int bad[] = {0, 1, 3, 15 + 1, 19, 99, -1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int c = rpc_signal(ctx, ps.pid, bad[i]);
        CASE_CHECK(ctx, c == 3,
                   "INVALID_ARGUMENT (3) for SIGNAL_UNSPECIFIED or a value outside the enum",
                   "signal %d: status %d", bad[i], c);
    }
    /* A refused request has no effect: cat still runs and echoes. */
    int c = rpc_write_stdin(ctx, ps.pid, "still-alive\n", 12);
    if (CASE_CHECK(ctx, c == 0, "the process still running after refused signals",
                   "WriteStdin status %d", c))
        pu_wait_output(&ps, false, "still-alive\n", 5000,
                       "the process still running after refused signals (echo from cat)");
    CASE_CHECK(ctx, !ps.have_exit, "the process still running after refused signals",
               "it exited with %d", (int)ps.exit_code);
done:
    pu_free(&ps);
}
SBX_CASE(signal_invalid_values, .id = "P13-007",
         .title = "SendSignal with SIGNAL_UNSPECIFIED or out-of-enum values: INVALID_ARGUMENT",
         .clauses = "P13", .level = LEVEL_MUST, .tags = "process,errors", .timeout_s = 25,
         .catches = "unspecified or unknown signal numbers passed to kill() (or accepted as a "
                    "no-op)",
         .how = "sends 0, 1, 3, 16, 19, 99 and -1 to a running `cat`; each must fail with "
                "INVALID_ARGUMENT and cat must still echo afterwards");

static void signal_unknown_id(struct case_ctx *ctx)
{
    static const int sigs[] = {PU_SIGINT, PU_SIGTERM, PU_SIGKILL};
    static const int32_t ids[] = {2147480002, 987654322, INT32_MIN + 9};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            int c = rpc_signal(ctx, ids[j], sigs[i]);
            CASE_CHECK(ctx, c == 5, "NOT_FOUND (5) for SendSignal to an unknown process_id",
                       "%s to %d: status %d", sig_name(sigs[i]), (int)ids[j], c);
        }
}
SBX_CASE(signal_unknown_id, .id = "P13-008",
         .title = "SendSignal to an unknown process_id fails with NOT_FOUND", .clauses = "P13",
         .level = LEVEL_MUST, .tags = "process,errors", .timeout_s = 20,
         .catches = "unknown ids accepted (or the id passed to kill() as an OS pid)",
         .how = "sends each valid signal to ids no process has");

/* Deaths by a signal the process got some other way than SendSignal: the
 * exit code must be non-zero on both RPCs (a wait status read as if the
 * process had exited gives 0). */
static void signal_death_reported(struct case_ctx *ctx)
{
    static const char *const scripts[] = {"kill -KILL $$", "kill -TERM $$"};
    for (size_t i = 0; i < 2; i++) {
        struct rpc_result r;
        rpc_sh(ctx, scripts[i], &r);
        if (CASE_CHECK(
                ctx, r.code == SBX_GRPC_OK, "Execute of a process killed by a signal: status OK",
                "`sh -c '%s'`: status %d (%s)", scripts[i], r.code, r.message ? r.message : ""))
            CASE_CHECK(ctx, r.exit_code != 0,
                       "Execute: a non-zero exit_code for a process ended by a signal",
                       "`sh -c '%s'`: exit_code 0", scripts[i]);
        if (r.code == SBX_GRPC_OK)
            case_note(ctx, "Execute `%s`: exit_code %d", scripts[i], (int)r.exit_code);
        rpc_result_free(&r);

        struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", scripts[i]), .cwd = case_dir(ctx)};
        struct pu_stream ps = {.label = scripts[i]};
        if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 10000))
            CASE_CHECK(ctx, ps.exit_code != 0,
                       "Start: a non-zero ExitEvent exit_code for a process ended by a signal",
                       "`sh -c '%s'`: exit_code 0", scripts[i]);
        pu_free(&ps);
    }
}
SBX_CASE(signal_death_reported, .id = "P13-010",
         .title = "A process that dies of a signal reports a non-zero exit code (Execute, Start)",
         .clauses = "P13,P1,P7", .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "a signal death reported as exit code 0 (the exit status read without "
                    "checking how the process ended), or Execute failing with an error status "
                    "instead of returning the exit code",
         .how = "shells that kill themselves with SIGKILL and SIGTERM, through Execute "
                "(status OK, exit_code non-zero) and Start (ExitEvent non-zero, status OK)");
