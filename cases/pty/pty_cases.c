/* SPDX-License-Identifier: Apache-2.0 */
/* P14, P15, P16 (PTY part): processes on a pseudo-terminal, ResizeTTY. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_util.h"
#include "common/proc_util.h"

/* Whether buf holds "rows cols" as whole numbers (not the tail of a longer
 * number such as "17 33" for "7 33", nor the head of "7 330"). */
static bool has_size(const uint8_t *buf, size_t len, const char *want)
{
    size_t n = strlen(want);
    for (const uint8_t *p = buf; p && len >= n && (size_t)(p - buf) <= len - n;) {
        const uint8_t *hit = memmem(p, len - (size_t)(p - buf), want, n);
        if (!hit) return false;
        bool digit_before = hit > buf && hit[-1] >= '0' && hit[-1] <= '9';
        size_t after = (size_t)(hit - buf) + n;
        bool digit_after = after < len && buf[after] >= '0' && buf[after] <= '9';
        if (!digit_before && !digit_after) return true;
        p = hit + 1;
    }
    return false;
}

/* Both streams together: what a PTY process printed, wherever it went. */
static bool any_output_has(const struct pu_stream *ps, const char *needle)
{
    size_t n = strlen(needle);
    return (ps->out && memmem(ps->out, ps->out_len, needle, n)) ||
           (ps->err && memmem(ps->err, ps->err_len, needle, n));
}

static void pty_real_terminal(struct case_ctx *ctx)
{
    const uint32_t size[2] = {91, 27};
    struct rpc_spec spec = {
        .argv = PU_ARGV("sh", "-c",
                        "tty; test -t 0 && echo stdin-is-tty; test -t 1 && echo stdout-is-tty; "
                        "test -t 2 && echo stderr-is-tty; (: < /dev/tty) 2>/dev/null && echo "
                        "has-ctty; echo size=$(stty size)"),
        .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "tty checks on a PTY"};
    if (pu_start(ctx, &ps, &spec, size, 10000) && pu_finish(&ps, 10000)) {
        const char *out = ps.out ? (const char *)ps.out : "";
        char *p = pu_preview(ps.out, ps.out_len, 300);
        CASE_CHECK(ctx, strstr(out, "/dev/pts/") != NULL, "`tty` printing /dev/pts/N", "stdout %s",
                   p ? p : "?");
        CASE_CHECK(ctx, any_output_has(&ps, "stdin-is-tty"), "stdin a terminal (test -t 0)",
                   "stdout %s", p ? p : "?");
        CASE_CHECK(ctx, any_output_has(&ps, "stdout-is-tty"), "stdout a terminal (test -t 1)",
                   "stdout %s", p ? p : "?");
        CASE_CHECK(ctx, any_output_has(&ps, "stderr-is-tty"), "stderr a terminal (test -t 2)",
                   "stdout %s", p ? p : "?");
        CASE_CHECK(ctx, any_output_has(&ps, "has-ctty"),
                   "the PTY as controlling terminal (/dev/tty opens)", "stdout %s", p ? p : "?");
        CASE_CHECK(ctx, any_output_has(&ps, "size=27 91"),
                   "`stty size` printing the requested rows and cols (27 91)", "stdout %s",
                   p ? p : "?");
        CASE_CHECK(ctx, ps.exit_code == 0, "exit_code 0", "%d", (int)ps.exit_code);
        free(p);
    }
    pu_free(&ps);
}
SBX_CASE(pty_real_terminal, .id = "P15-001",
         .title = "Start with pty runs the process on a real terminal of the requested size",
         .clauses = "P15", .level = LEVEL_MUST, .tags = "process,pty", .needs = NEEDS_PTY,
         .timeout_s = 30,
         .catches = "no PTY allocated (pipes instead), PTY not the controlling terminal, the "
                    "requested size ignored",
         .how = "runs tty, test -t 0/1/2, opens /dev/tty and stty size with cols 91 rows 27");

static void pty_sizes(struct case_ctx *ctx)
{
    static const uint32_t sizes[][2] = {{80, 24}, {200, 60}, {33, 7}};
    for (size_t i = 0; i < 3; i++) {
        struct rpc_spec spec = {.argv = PU_ARGV("stty", "size"), .cwd = case_dir(ctx)};
        struct pu_stream ps = {.label = "stty size"};
        char want[32];
        snprintf(want, sizeof want, "%u %u", (unsigned)sizes[i][1], (unsigned)sizes[i][0]);
        if (pu_start(ctx, &ps, &spec, sizes[i], 10000) && pu_finish(&ps, 10000)) {
            char *p = pu_preview(ps.out, ps.out_len, 100);
            CASE_CHECK(ctx,
                       (has_size(ps.out, ps.out_len, want) || has_size(ps.err, ps.err_len, want)) &&
                           ps.exit_code == 0,
                       "`stty size` printing the requested rows and cols",
                       "want %s, got %s exit %d", want, p ? p : "?", (int)ps.exit_code);
            free(p);
        }
        pu_free(&ps);
    }
}
SBX_CASE(pty_sizes, .id = "P15-002", .title = "`stty size` equals the requested rows and cols",
         .clauses = "P15", .level = LEVEL_MUST, .tags = "process,pty", .needs = NEEDS_PTY,
         .timeout_s = 30, .catches = "a fixed default size, cols and rows swapped",
         .how = "three sizes (80x24, 200x60, 33x7); stty size must print \"rows cols\"");

static void pty_stdout_only(struct case_ctx *ctx)
{
    const uint32_t size[2] = {80, 24};
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "echo to-stdout; echo to-stderr >&2"),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "PTY process writing to fd 1 and 2"};
    if (pu_start(ctx, &ps, &spec, size, 10000) && pu_finish(&ps, 10000)) {
        const char *out = ps.out ? (const char *)ps.out : "";
        CASE_CHECK(ctx, strstr(out, "to-stdout") && strstr(out, "to-stderr"),
                   "both lines in stdout events", "stdout %.*s", (int)ps.out_len, out);
        CASE_CHECK(ctx, ps.err_events == 0, "no stderr events for a PTY process",
                   "%zu stderr events", ps.err_events);
    }
    pu_free(&ps);
}
SBX_CASE(pty_stdout_only, .id = "P15-003",
         .title = "Terminal output of a PTY process arrives as stdout events only",
         .clauses = "P15", .level = LEVEL_SHOULD, .tags = "process,pty", .needs = NEEDS_PTY,
         .timeout_s = 20, .catches = "stderr kept on a separate pipe next to the terminal",
         .how = "a PTY process writes to fd 1 and fd 2; both must arrive as stdout events");

static void pty_echo(struct case_ctx *ctx)
{
    const uint32_t size[2] = {80, 24};
    struct rpc_spec spec = {.argv =
                                PU_ARGV("sh", "-c", "echo ready; read line; echo \"got:$line\""),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "read on a PTY"};
    if (pu_start(ctx, &ps, &spec, size, 10000) &&
        pu_wait_output(&ps, false, "ready", 5000, "the process's first line")) {
        int c = rpc_write_stdin(ctx, ps.pid, "hello-tty\n", 10);
        if (CASE_CHECK(ctx, c == 0, "WriteStdin accepted", "status %d", c) &&
            pu_finish(&ps, 8000)) {
            const char *out = (const char *)ps.out;
            const char *got = strstr(out, "got:hello-tty");
            const char *echo = strstr(out, "hello-tty");
            CASE_CHECK(ctx, got != NULL, "the line read by the process", "stdout %.*s",
                       (int)ps.out_len, out);
            CASE_CHECK(ctx, echo && got && echo < got,
                       "the terminal echoing the input before the program's answer", "stdout %.*s",
                       (int)ps.out_len, out);
        }
    }
    pu_free(&ps);
}
SBX_CASE(pty_echo, .id = "P15-004",
         .title = "Input to a PTY process goes through the line "
                  "discipline (echo)",
         .clauses = "P15", .level = LEVEL_SHOULD, .tags = "process,pty", .needs = NEEDS_PTY,
         .timeout_s = 20, .catches = "input written to a pipe instead of the terminal (no echo)",
         .how = "writes a line to `read line`; the terminal must echo it before the program "
                "prints got:<line>");

static void pty_ctrl_c(struct case_ctx *ctx)
{
    const uint32_t size[2] = {80, 24};
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "echo ready; exec sleep 30"),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sleep on a PTY"};
    if (pu_start(ctx, &ps, &spec, size, 10000) &&
        pu_wait_output(&ps, false, "ready", 5000, "the process's first line")) {
        int c = rpc_write_stdin(ctx, ps.pid, "\x03", 1);
        if (CASE_CHECK(ctx, c == 0, "WriteStdin of ^C accepted", "status %d", c) &&
            pu_finish(&ps, 6000))
            CASE_CHECK(ctx, ps.exit_code != 0, "a non-zero exit after ^C", "exit_code %d",
                       (int)ps.exit_code);
    }
    pu_free(&ps);
}
SBX_CASE(pty_ctrl_c, .id = "P15-005",
         .title = "^C written to a PTY interrupts the foreground process", .clauses = "P15",
         .level = LEVEL_SHOULD, .tags = "process,pty", .needs = NEEDS_PTY, .timeout_s = 20,
         .catches = "no line discipline (^C passed as a byte), the process not in the "
                    "terminal's foreground group",
         .how = "writes \\x03 to a PTY process running `sleep 30`; it must end within 6 s "
                "with a non-zero exit");

static void pty_eof(struct case_ctx *ctx)
{
    const uint32_t size[2] = {80, 24};
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "echo ready; cat; echo after-cat:$?"),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "cat on a PTY"};
    if (pu_start(ctx, &ps, &spec, size, 10000) &&
        pu_wait_output(&ps, false, "ready", 5000, "the process's first line")) {
        int c1 = rpc_write_stdin(ctx, ps.pid, "abc\n", 4);
        int c2 = c1 == 0 ? rpc_close_stdin(ctx, ps.pid) : -2;
        if (CASE_CHECK(ctx, c1 == 0 && c2 == 0, "WriteStdin input and eof accepted",
                       "statuses %d, %d", c1, c2) &&
            pu_finish(&ps, 8000)) {
            CASE_CHECK(ctx, strstr((const char *)ps.out, "after-cat:0") != NULL,
                       "cat ending at end-of-file and the shell still writing to the terminal",
                       "stdout %.*s", (int)ps.out_len, (const char *)ps.out);
            CASE_CHECK(ctx, ps.exit_code == 0, "exit_code 0 (no hang-up)", "exit_code %d",
                       (int)ps.exit_code);
        }
    }
    pu_free(&ps);
}
SBX_CASE(pty_eof, .id = "P15-006",
         .title = "WriteStdin eof on a PTY delivers end-of-file without hanging up",
         .clauses = "P15", .level = LEVEL_SHOULD, .tags = "process,pty", .needs = NEEDS_PTY,
         .timeout_s = 20,
         .catches = "eof implemented by closing the terminal master (SIGHUP, writes fail) or "
                    "ignored",
         .how = "writes a line and eof to `cat; echo after-cat:$?`; cat must end and the shell "
                "print after-cat:0 and exit 0");

static void pty_resize(struct case_ctx *ctx)
{
    const uint32_t size[2] = {80, 24};
    struct rpc_spec spec = {
        .argv = PU_ARGV("sh", "-c", "echo size1=$(stty size); read x; echo size2=$(stty size)"),
        .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "stty size before and after ResizeTTY"};
    if (pu_start(ctx, &ps, &spec, size, 10000) &&
        pu_wait_output(&ps, false, "size1=24 80", 5000, "stty size printing 24 80 at start")) {
        int c = rpc_resize(ctx, ps.pid, 101, 33);
        if (CASE_CHECK(ctx, c == 0, "ResizeTTY accepted for a PTY process", "status %d", c)) {
            int w = rpc_write_stdin(ctx, ps.pid, "\n", 1);
            if (CASE_CHECK(ctx, w == 0, "WriteStdin accepted", "status %d", w))
                pu_wait_output(&ps, false, "size2=33 101", 5000,
                               "stty size printing the new size 33 101 after ResizeTTY");
        }
        pu_finish(&ps, 5000);
    }
    pu_free(&ps);
}
SBX_CASE(pty_resize, .id = "P14-001",
         .title = "ResizeTTY changes the window size the process observes", .clauses = "P14",
         .level = LEVEL_MUST, .tags = "process,pty", .needs = NEEDS_PTY, .timeout_s = 25,
         .catches = "ResizeTTY answering OK without changing the terminal size",
         .how = "stty size prints 24 80, ResizeTTY(cols 101, rows 33), then stty size must "
                "print 33 101");

static void pty_sigwinch(struct case_ctx *ctx)
{
    const uint32_t size[2] = {80, 24};
    struct rpc_spec spec = {
        .argv = PU_ARGV("sh", "-c",
                        "trap 'echo winch=$(stty size)' WINCH; echo ready; i=0; "
                        "while [ $i -lt 150 ]; do sleep 0.1 2>/dev/null || sleep 1; i=$((i+1)); "
                        "done"),
        .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "a shell trapping WINCH"};
    if (pu_start(ctx, &ps, &spec, size, 10000) &&
        pu_wait_output(&ps, false, "ready", 5000, "the process's first line")) {
        int c = rpc_resize(ctx, ps.pid, 120, 40);
        if (CASE_CHECK(ctx, c == 0, "ResizeTTY accepted", "status %d", c))
            pu_wait_output(&ps, false, "winch=40 120", 5000,
                           "the trap on SIGWINCH running (with the new size) after ResizeTTY");
    }
    pu_free(&ps);
}
SBX_CASE(pty_sigwinch, .id = "P14-002", .title = "ResizeTTY delivers SIGWINCH to the process",
         .clauses = "P14", .level = LEVEL_SHOULD, .tags = "process,pty", .needs = NEEDS_PTY,
         .timeout_s = 25, .catches = "the size changed silently, without SIGWINCH",
         .how = "a shell traps WINCH and prints stty size in the trap; after ResizeTTY the "
                "trap's line with the new size must arrive within 5 s");

static void resize_without_pty(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = PU_ARGV("sleep", "30"), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sleep 30 without PTY"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
        int c = rpc_resize(ctx, ps.pid, 100, 30);
        CASE_CHECK(ctx, c == 9, "FAILED_PRECONDITION (9) for ResizeTTY without a PTY", "status %d",
                   c);
    }
    pu_free(&ps);
}
SBX_CASE(resize_without_pty, .id = "P14-003",
         .title = "ResizeTTY on a process without a PTY fails with FAILED_PRECONDITION",
         .clauses = "P14", .level = LEVEL_MUST, .tags = "process,pty,errors", .timeout_s = 20,
         .catches = "ResizeTTY accepted (or another code) for a process on pipes",
         .how = "starts `sleep 30` without pty and resizes it");

static void resize_unknown_id(struct case_ctx *ctx)
{
    static const int32_t ids[] = {2147480003, 987654323, INT32_MIN + 11};
    for (size_t i = 0; i < 3; i++) {
        int c = rpc_resize(ctx, ids[i], 100, 30);
        CASE_CHECK(ctx, c == 5, "NOT_FOUND (5) for ResizeTTY on an unknown process_id",
                   "process_id %d: status %d", (int)ids[i], c);
    }
}
SBX_CASE(resize_unknown_id, .id = "P14-004",
         .title = "ResizeTTY on an unknown process_id fails with NOT_FOUND", .clauses = "P14",
         .level = LEVEL_MUST, .tags = "process,pty,errors", .timeout_s = 20,
         .catches = "unknown ids accepted or answered FAILED_PRECONDITION",
         .how = "resizes ids no process has");

static void pty_session_leader(struct case_ctx *ctx)
{
    const uint32_t size[2] = {80, 24};
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c",
                                            "[ -r /proc/$$/stat ] || { echo no-procfs; exit 0; }; "
                                            "s=$(cat /proc/$$/stat); s=${s##*') '}; set -- $s; "
                                            "echo \"ids=$$:$3:$4\""),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "PTY process reading its own /proc stat"};
    if (pu_start(ctx, &ps, &spec, size, 10000) && pu_finish(&ps, 10000)) {
        const char *out = ps.out ? (const char *)ps.out : "";
        if (strstr(out, "no-procfs")) {
            case_skip(ctx, "/proc is not available to the runtime's processes");
        } else {
            const char *p = strstr(out, "ids=");
            long ids[3] = {-1, -2, -3}; /* pid, pgid, sid: distinct until parsed */
            if (p) conf_parse_longs(p + 4, ':', ids, 3);
            CASE_CHECK(ctx, p && ids[0] == ids[1], "P16: the PTY process's pgid equal to its pid",
                       "pid %ld, pgid %ld (%s)", ids[0], ids[1], p ? "parsed" : "no ids line");
            CASE_CHECK(ctx, p && ids[0] == ids[2], "P16: the PTY process leading its own session",
                       "pid %ld, sid %ld", ids[0], ids[2]);
        }
    }
    pu_free(&ps);
}
SBX_CASE(pty_session_leader, .id = "P16-003",
         .title = "A PTY process leads its own session and process group", .clauses = "P16,P15",
         .level = LEVEL_MUST, .tags = "process,pty", .needs = NEEDS_PTY | NEEDS_PROCFS,
         .timeout_s = 20, .catches = "PTY processes left in the daemon's session or group",
         .how = "the process reads pgrp and session from /proc/$$/stat (after the comm field) "
                "and compares them with its pid");
