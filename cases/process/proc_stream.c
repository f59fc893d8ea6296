/* SPDX-License-Identifier: Apache-2.0 */
/* P7, P9, P10, P11: Start streams — event grammar, process ids, real-time
 * delivery, completeness and order of output. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"

static void start_grammar_output(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv =
                                PU_ARGV("sh", "-c", "echo out1; echo err1 >&2; echo out2; exit 3"),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sh printing to both streams, exit 3"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 10000)) {
        CASE_CHECK(ctx, ps.exit_code == 3, "ExitEvent exit_code 3", "%d", (int)ps.exit_code);
        CASE_CHECK(ctx, ps.out_len == 10 && memcmp(ps.out, "out1\nout2\n", 10) == 0,
                   "stdout events carrying \"out1\\nout2\\n\"", "%zu bytes: %.*s", ps.out_len,
                   (int)ps.out_len, ps.out ? (const char *)ps.out : "");
        CASE_CHECK(ctx, ps.err_len == 5 && memcmp(ps.err, "err1\n", 5) == 0,
                   "stderr events carrying \"err1\\n\"", "%zu bytes: %.*s", ps.err_len,
                   (int)ps.err_len, ps.err ? (const char *)ps.err : "");
    }
    pu_free(&ps);
}
SBX_CASE(start_grammar_output, .id = "P7-001",
         .title = "Start: one InitEvent first, output, one ExitEvent last, then status OK",
         .clauses = "P7", .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "no InitEvent or one sent after output, two ExitEvents, events after the "
                    "ExitEvent, a non-OK final status",
         .how = "starts a shell that writes to both streams and exits 3; every event is "
                "checked against the grammar as it arrives");

static void start_grammar_silent(struct case_ctx *ctx)
{
    for (int round = 0; round < 3; round++) {
        struct rpc_spec spec = {.argv = PU_ARGV("true"), .cwd = case_dir(ctx)};
        struct pu_stream ps = {.label = "true"};
        if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 10000))
            CASE_CHECK(ctx, ps.exit_code == 0, "ExitEvent exit_code 0", "%d", (int)ps.exit_code);
        pu_free(&ps);
        if (case_failed(ctx)) break;
    }
}
SBX_CASE(start_grammar_silent, .id = "P7-002",
         .title = "Start of a silent process: InitEvent, ExitEvent, status OK", .clauses = "P7",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "the InitEvent or ExitEvent missing when there is no output, a non-OK end",
         .how = "starts `true` three times and checks the exact event sequence");

static void start_grammar_killed(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = PU_ARGV("sleep", "30"), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sleep 30 killed"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
        int code = rpc_signal(ctx, ps.pid, PU_SIGKILL);
        if (CASE_CHECK(ctx, code == 0, "SendSignal SIGKILL accepted", "status %d", code) &&
            pu_finish(&ps, 10000))
            CASE_CHECK(ctx, ps.exit_code != 0, "a non-zero exit code for a signal death",
                       "exit_code %d", (int)ps.exit_code);
    }
    pu_free(&ps);
}
SBX_CASE(start_grammar_killed, .id = "P7-003",
         .title = "Start of a process killed by a signal still ends with one ExitEvent and OK",
         .clauses = "P7,P13", .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "the stream of a killed process ending with an error status, no ExitEvent, "
                    "or two ExitEvents",
         .how = "starts `sleep 30`, sends SIGKILL and checks the rest of the grammar");

/* ---- P9 ---------------------------------------------------------------- */

#define N_CONCURRENT 8

static void ids_unique(struct case_ctx *ctx)
{
    struct pu_stream ps[N_CONCURRENT];
    memset(ps, 0, sizeof ps);
    char labels[N_CONCURRENT][32];
    int started = 0;
    for (int i = 0; i < N_CONCURRENT; i++) {
        snprintf(labels[i], sizeof labels[i], "cat #%d", i);
        ps[i].label = labels[i];
        struct rpc_spec spec = {.argv = PU_ARGV("cat"), .cwd = case_dir(ctx)};
        if (!pu_start(ctx, &ps[i], &spec, NULL, 10000)) break;
        started++;
    }
    if (started == N_CONCURRENT) {
        for (int i = 0; i < N_CONCURRENT; i++)
            for (int j = 0; j < i; j++)
                CASE_CHECK(ctx, ps[i].pid != ps[j].pid, "distinct process ids for live processes",
                           "process_id %d given to two running processes", (int)ps[i].pid);
        /* Each id must address its own process: distinct input per process. */
        for (int i = 0; i < N_CONCURRENT && !case_failed(ctx); i++) {
            char line[64];
            snprintf(line, sizeof line, "input-for-process-%d\n", i);
            int c1 = rpc_write_stdin(ctx, ps[i].pid, line, strlen(line));
            int c2 = rpc_close_stdin(ctx, ps[i].pid);
            CASE_CHECK(ctx, c1 == 0 && c2 == 0, "WriteStdin (input, eof) accepted",
                       "statuses %d, %d for process %d", c1, c2, (int)ps[i].pid);
        }
        for (int i = 0; i < N_CONCURRENT && !case_failed(ctx); i++) {
            char line[64];
            snprintf(line, sizeof line, "input-for-process-%d\n", i);
            if (pu_finish(&ps[i], 10000))
                CASE_CHECK(
                    ctx,
                    ps[i].out_len == strlen(line) && memcmp(ps[i].out, line, ps[i].out_len) == 0,
                    "each process echoing exactly the input sent to its own id", "%s printed %.*s",
                    labels[i], (int)ps[i].out_len, ps[i].out ? (const char *)ps[i].out : "");
        }
    }
    for (int i = 0; i < N_CONCURRENT; i++)
        pu_free(&ps[i]);
}
SBX_CASE(ids_unique, .id = "P9-001",
         .title = "Process IDs are unique among live processes and address their own process",
         .clauses = "P9", .level = LEVEL_MUST, .tags = "process,concurrency", .timeout_s = 40,
         .catches = "ids reused or shared while processes run, ids mapped to the wrong process",
         .how = "starts 8 `cat` processes at once, checks their ids differ, writes a distinct "
                "line to each id and checks each stream echoes its own line");

static void ids_valid_at_once(struct case_ctx *ctx)
{
    for (int round = 0; round < 10 && !case_failed(ctx); round++) {
        struct rpc_spec spec = {.argv = PU_ARGV("cat"), .cwd = case_dir(ctx)};
        struct pu_stream ps = {.label = "cat"};
        if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
            int c1 = rpc_write_stdin(ctx, ps.pid, "x", 1);
            int c2 = rpc_close_stdin(ctx, ps.pid);
            CASE_CHECK(ctx, c1 == 0 && c2 == 0,
                       "WriteStdin right after the InitEvent to succeed (no race)",
                       "round %d: statuses %d (input) and %d (eof)", round, c1, c2);
            if (pu_finish(&ps, 10000))
                CASE_CHECK(ctx, ps.out_len == 1 && ps.out[0] == 'x',
                           "the input written right after the InitEvent echoed", "%zu bytes",
                           ps.out_len);
        }
        pu_free(&ps);
    }
    for (int round = 0; round < 5 && !case_failed(ctx); round++) {
        struct rpc_spec spec = {.argv = PU_ARGV("sleep", "30"), .cwd = case_dir(ctx)};
        struct pu_stream ps = {.label = "sleep 30"};
        if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
            int c = rpc_signal(ctx, ps.pid, PU_SIGKILL);
            CASE_CHECK(ctx, c == 0, "SendSignal right after the InitEvent to succeed (no race)",
                       "round %d: status %d", round, c);
            if (c == 0) pu_finish(&ps, 10000);
        }
        pu_free(&ps);
    }
}
SBX_CASE(ids_valid_at_once, .id = "P9-002",
         .title = "The process ID is valid as soon as the InitEvent is received", .clauses = "P9",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 40,
         .catches = "the id registered after the InitEvent is sent (NOT_FOUND for an immediate "
                    "WriteStdin or SendSignal)",
         .how = "10 times: start `cat`, write and close stdin at once; 5 times: start `sleep "
                "30` and SIGKILL it at once; every call must succeed");

static void ids_positive_not_pids(struct case_ctx *ctx)
{
    int same = 0, rounds = 3;
    for (int round = 0; round < rounds && !case_failed(ctx); round++) {
        struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "echo $$"), .cwd = case_dir(ctx)};
        struct pu_stream ps = {.label = "sh -c 'echo $$'"};
        if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 10000)) {
            CASE_CHECK(ctx, ps.pid > 0, "a positive process_id", "%d", (int)ps.pid);
            long os_pid = ps.out ? strtol((const char *)ps.out, NULL, 10) : -1;
            if (os_pid == ps.pid) same++;
            case_note(ctx, "process_id %d, OS pid %ld", (int)ps.pid, os_pid);
        }
        pu_free(&ps);
    }
    CASE_CHECK(ctx, same < rounds, "process ids decoupled from OS PIDs",
               "the process_id equalled the OS PID in all %d runs", rounds);
}
SBX_CASE(ids_positive_not_pids, .id = "P9-003",
         .title = "Process IDs are positive and not the OS PIDs", .clauses = "P9",
         .level = LEVEL_SHOULD, .tags = "process", .timeout_s = 30,
         .catches = "zero/negative ids, OS PIDs exposed as handles (reusable by the OS)",
         .how = "three processes print their PID; the ids must be positive and not all equal "
                "to those PIDs");

/* ---- P10 --------------------------------------------------------------- */

static void streams_early_output(struct case_ctx *ctx)
{
    struct rpc_spec spec = {
        .argv = PU_ARGV("sh", "-c",
                        "echo early-out; echo early-err >&2; printf early-partial; sleep 8; "
                        "echo late"),
        .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sh writing early, then sleeping 8 s"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
        uint64_t t0 = case_now_ms();
        bool a = pu_wait_output(&ps, false, "early-out\n", 4000,
                                "P10: stdout written early arriving within 4 s, while the "
                                "process still sleeps");
        unsigned left = (unsigned)(4000 - (case_now_ms() - t0 < 4000 ? case_now_ms() - t0 : 4000));
        bool b = pu_wait_output(&ps, true, "early-err\n", left + 1,
                                "P10: stderr written early arriving within 4 s, while the "
                                "process still sleeps");
        /* A partial line (no newline yet) is output too: not held back for
         * its newline. */
        left = (unsigned)(4000 - (case_now_ms() - t0 < 4000 ? case_now_ms() - t0 : 4000));
        bool c = a && pu_wait_output(&ps, false, "early-out\nearly-partial", left + 1,
                                     "P10: stdout written early without a newline arriving "
                                     "within 4 s, while the process still sleeps");
        if (a && b && c)
            CASE_CHECK(ctx, !ps.have_exit, "the early output before the ExitEvent",
                       "the process had already exited");
    }
    pu_free(&ps);
}
SBX_CASE(streams_early_output, .id = "P10-001",
         .title = "Start streams output as it is produced, not at exit", .clauses = "P10",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "output buffered until the process exits (or until a buffer fills), or "
                    "sent line by line with a partial line held back until its newline",
         .how = "a shell prints one line to each stream and a partial line (no newline) to "
                "stdout, then sleeps 8 s; all three must arrive within 4 s, before the "
                "ExitEvent; then the process is killed");

/* ---- P11 --------------------------------------------------------------- */

/* Checks that the stream is exactly "1\n2\n...N\n" without keeping it. */
struct seq_check {
    struct case_ctx *ctx;
    unsigned long next; /* next expected number */
    char partial[32];
    size_t partial_len;
    unsigned long long bytes;
    bool bad;
    bool other_stream;
};

static void seq_fail(struct seq_check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void seq_fail(struct seq_check *c, const char *fmt, ...)
{
    if (c->bad) return;
    c->bad = true;
    char buf[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    case_fail(c->ctx, "P11: stdout equal to the output of seq, complete and in order", "%s", buf);
}

static void seq_line(struct seq_check *c, const char *s, size_t n)
{
    char want[32];
    int wl = snprintf(want, sizeof want, "%lu", c->next);
    if ((size_t)wl != n || memcmp(s, want, n) != 0) {
        char *g = pu_preview(s, n, 24);
        seq_fail(c,
                 "at byte %llu: line %s where %s was due (data dropped, duplicated or "
                 "reordered)",
                 c->bytes, g ? g : "?", want);
        free(g);
        return;
    }
    c->next++;
}

static void seq_sink(struct pu_stream *ps, bool is_stderr, const uint8_t *data, size_t len,
                     void *ud)
{
    struct seq_check *c = ud;
    (void)ps;
    if (is_stderr) {
        c->other_stream = true;
        return;
    }
    for (size_t i = 0; i < len && !c->bad; i++) {
        char ch = (char)data[i];
        if (ch == '\n') {
            seq_line(c, c->partial, c->partial_len);
            c->partial_len = 0;
        } else if (c->partial_len < sizeof c->partial) {
            c->partial[c->partial_len++] = ch;
        } else {
            seq_fail(c, "at byte %llu: a line longer than any number of the sequence",
                     c->bytes + i);
        }
    }
    c->bytes += len;
}

static void streams_large_ordered(struct case_ctx *ctx)
{
    /* seq 1 9000000 prints 70,888,896 bytes (about 67.6 MiB). */
    const unsigned long n = 9000000;
    struct seq_check chk = {.ctx = ctx, .next = 1};
    /* Through sh, so a runtime without seq answers exit 127 (skip) rather
     * than a failed Start. */
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "exec seq 1 9000000"),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "seq 1 9000000", .sink = seq_sink, .sink_ud = &chk};
    if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 50000) && !chk.bad) {
        if (ps.exit_code == 127 && chk.bytes == 0) {
            case_skip(ctx, "the runtime has no `seq` command");
        } else {
            CASE_CHECK(ctx, ps.exit_code == 0, "seq exiting 0", "exit_code %d", (int)ps.exit_code);
            CASE_CHECK(ctx, chk.partial_len == 0 && chk.next == n + 1,
                       "P11: all 9000000 lines (70888896 bytes) before the ExitEvent",
                       "the stream stopped after %lu lines, %llu bytes", chk.next - 1, chk.bytes);
            CASE_CHECK(ctx, !chk.other_stream, "nothing on stderr",
                       "stderr events arrived for a process writing only stdout");
        }
    }
    if (!case_failed(ctx))
        case_note(ctx, "%llu bytes in %zu stdout events", chk.bytes, ps.out_events);
    pu_free(&ps);
}
SBX_CASE(streams_large_ordered, .id = "P11-001",
         .title = "A 67 MiB stdout stream arrives complete and in order", .clauses = "P11",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 60,
         .catches = "chunks dropped, duplicated or reordered under load; streams truncated "
                    "at exit",
         .how = "starts `seq 1 9000000` and checks every line is the next number as the "
                "events arrive (nothing stored), and the total before the ExitEvent");

/* Checks lines "<prefix><n>" in order. Returns the count of good lines, or
 * -1 with *bad_at set when the sequence breaks. */
static long check_numbered(const uint8_t *buf, size_t len, char prefix, size_t *bad_at)
{
    long n = 0;
    size_t i = 0;
    while (i < len) {
        const uint8_t *e = memchr(buf + i, '\n', len - i);
        if (!e) {
            *bad_at = i;
            return -1;
        }
        char want[32];
        int wl = snprintf(want, sizeof want, "%c%ld", prefix, n);
        if ((size_t)(e - (buf + i)) != (size_t)wl || memcmp(buf + i, want, (size_t)wl) != 0) {
            *bad_at = i;
            return -1;
        }
        n++;
        i = (size_t)(e - buf) + 1;
    }
    return n;
}

static void streams_interleaved(struct case_ctx *ctx)
{
    const long n = 3000;
    char script[256];
    snprintf(script, sizeof script,
             "i=0; while [ $i -lt %ld ]; do echo o$i; echo e$i >&2; i=$((i+1)); done", n);
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "interleaved writer"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 30000)) {
        size_t bad = 0;
        long got = check_numbered(ps.out, ps.out_len, 'o', &bad);
        if (got != n) {
            char *p =
                pu_preview(ps.out + (got < 0 ? bad : 0), ps.out_len - (got < 0 ? bad : 0), 40);
            case_fail(ctx, "P11: stdout lines o0..o2999 in order", "%s (at byte %zu: %s)",
                      got < 0 ? "sequence broken" : "lines missing", bad, p ? p : "?");
            free(p);
        }
        got = check_numbered(ps.err, ps.err_len, 'e', &bad);
        if (got != n) {
            char *p =
                pu_preview(ps.err + (got < 0 ? bad : 0), ps.err_len - (got < 0 ? bad : 0), 40);
            case_fail(ctx, "P11: stderr lines e0..e2999 in order", "%s (at byte %zu: %s)",
                      got < 0 ? "sequence broken" : "lines missing", bad, p ? p : "?");
            free(p);
        }
    }
    pu_free(&ps);
}
SBX_CASE(streams_interleaved, .id = "P11-002",
         .title = "Interleaved stdout and stderr each arrive complete and in order",
         .clauses = "P11", .level = LEVEL_MUST, .tags = "process", .timeout_s = 40,
         .catches = "events of one stream reordered or lost when both streams are busy, "
                    "streams mixed up",
         .how = "a shell loop alternates 3000 numbered lines on stdout and stderr; each "
                "stream must hold its own lines in order");

static void streams_descendants(struct case_ctx *ctx)
{
    struct rpc_spec spec = {
        .argv = PU_ARGV("sh", "-c", "(seq 1 100000 >&2; echo grandchild-done) & echo parent-done"),
        .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "a shell leaving a writing background child"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 20000)) {
        size_t bad = 0;
        /* Expected stderr: 1..100000, one per line. */
        long n = 0;
        size_t i = 0;
        while (i < ps.err_len) {
            const uint8_t *e = memchr(ps.err + i, '\n', ps.err_len - i);
            char want[16];
            int wl = snprintf(want, sizeof want, "%ld", n + 1);
            if (!e || (size_t)(e - (ps.err + i)) != (size_t)wl ||
                memcmp(ps.err + i, want, (size_t)wl) != 0) {
                bad = i;
                n = -1;
                break;
            }
            n++;
            i = (size_t)(e - ps.err) + 1;
        }
        CASE_CHECK(ctx, n == 100000,
                   "P11: all output of the descendant (seq 1 100000) before the ExitEvent",
                   "%s after %zu bytes", n < 0 ? "sequence broken" : "sequence cut short",
                   n < 0 ? bad : ps.err_len);
        CASE_CHECK(ctx,
                   ps.out && strstr((const char *)ps.out, "parent-done\n") &&
                       strstr((const char *)ps.out, "grandchild-done\n"),
                   "both the parent's and the descendant's stdout lines", "stdout %.*s",
                   (int)(ps.out_len > 200 ? 200 : ps.out_len), ps.out ? (const char *)ps.out : "");
    }
    pu_free(&ps);
}
SBX_CASE(streams_descendants, .id = "P11-003",
         .title = "Output of descendants written before the pipes close precedes the ExitEvent",
         .clauses = "P11", .level = LEVEL_MUST, .tags = "process", .timeout_s = 40,
         .catches = "the stream ended when the direct child exits, dropping output its "
                    "children are still writing",
         .how = "a shell starts a background subshell writing 588 KB to stderr and exits at "
                "once; all of it must arrive before the ExitEvent");

/* Where got and want first differ, as a failure naming `what`. */
static void diff_fail(struct case_ctx *ctx, const char *what, const uint8_t *got, size_t got_len,
                      const uint8_t *want, size_t want_len)
{
    size_t i = 0;
    while (i < got_len && i < want_len && got[i] == want[i])
        i++;
    char *g = pu_preview(got ? got + i : NULL, got_len - i, 40);
    char *w = pu_preview(want + i, want_len - i, 40);
    case_fail(ctx, what,
              "%zu bytes instead of %zu; first difference at offset %zu: got %s, want %s", got_len,
              want_len, i, g ? g : "?", w ? w : "?");
    free(g);
    free(w);
}

enum { LONG_LINE = 128 * 1024 };

static void streams_binary_exact(struct case_ctx *ctx)
{
    /* stdout: every byte value, CR LF pairs, then a 128 KiB line with no
     * newline; stderr: the byte values reversed and invalid UTF-8. */
    static const uint8_t crlf[] = {'a', '\r', '\n', '\r', '\n', 'b', '\r'};
    static const uint8_t bad[] = {0x80, 0xc3, 0x28, 0xe2, 0x82, 0xc0, 0xaf, 0x00, 0xff};
    size_t out_len = 256 + sizeof crlf + LONG_LINE, err_len = 256 + sizeof bad;
    uint8_t *out = malloc(out_len), *err = malloc(err_len);
    char *fo = NULL, *fe = NULL, *script = NULL;
    struct pu_stream ps = {.label = "binary writer"};
    if (!out || !err) goto oom;
    for (int i = 0; i < 256; i++) {
        out[i] = (uint8_t)i;
        err[i] = (uint8_t)(255 - i);
    }
    memcpy(out + 256, crlf, sizeof crlf);
    memset(out + 256 + sizeof crlf, 'x', LONG_LINE);
    memcpy(err + 256, bad, sizeof bad);
    fo = pu_octal_format(out, 256 + sizeof crlf);
    fe = pu_octal_format(err, err_len);
    size_t slen = (fo ? strlen(fo) : 0) + (fe ? strlen(fe) : 0) + 256;
    script = malloc(slen);
    if (!fo || !fe || !script) goto oom;
    /* The long line is built by doubling in the shell (no external tools). */
    snprintf(script, slen,
             "printf '%s'; printf '%s' >&2; s=xxxxxxxx; i=0; "
             "while [ $i -lt 14 ]; do s=$s$s; i=$((i+1)); done; printf '%%s' \"$s\"",
             fo, fe);
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = case_dir(ctx)};
    if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 20000)) {
        CASE_CHECK(ctx, ps.exit_code == 0, "exit_code 0", "%d", (int)ps.exit_code);
        if (ps.out_len != out_len || memcmp(ps.out, out, out_len) != 0)
            diff_fail(ctx,
                      "P11: stdout events byte-exact (NUL bytes, CR LF, a 128 KiB line "
                      "without newline)",
                      ps.out, ps.out_len, out, out_len);
        if (ps.err_len != err_len || memcmp(ps.err, err, err_len) != 0)
            diff_fail(ctx, "P11: stderr events byte-exact (every byte value, invalid UTF-8)",
                      ps.err, ps.err_len, err, err_len);
    }
    goto done;
oom:
    case_error(ctx, "out of memory");
done:
    pu_free(&ps);
    free(out);
    free(err);
    free(fo);
    free(fe);
    free(script);
}
SBX_CASE(streams_binary_exact, .id = "P11-004",
         .title = "Start output is byte-exact for binary data and long lines without newline",
         .clauses = "P11", .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "Start output handled as text or lines: cut at NUL, CR LF rewritten, "
                    "invalid UTF-8 replaced, a newline added at the end, long lines dropped "
                    "or split with extra bytes",
         .how = "a shell prints every byte value 0-255, CR LF pairs and a 128 KiB line with "
                "no newline to stdout, and the byte values reversed plus invalid UTF-8 to "
                "stderr; the concatenated events must equal both byte for byte");
