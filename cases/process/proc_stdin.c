/* SPDX-License-Identifier: Apache-2.0 */
/* P12: WriteStdin — bytes in order, eof, unknown and finished processes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_util.h"
#include "common/proc_util.h"

static void stdin_in_order(struct case_ctx *ctx)
{
    /* 300 small writes of varying sizes with every byte value, then four
     * 64 KiB writes: the concatenation must come back from `cat`. */
    size_t total = 0, cap = 300 * 40 + 4 * 65536;
    uint8_t *sent = malloc(cap);
    if (!sent) {
        case_error(ctx, "out of memory");
        return;
    }
    struct rpc_spec spec = {.argv = PU_ARGV("cat"), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "cat"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
        for (int i = 0; i < 300 && !case_failed(ctx); i++) {
            size_t n = 1 + (size_t)(case_rand(ctx) % 39);
            for (size_t k = 0; k < n; k++)
                sent[total + k] = (uint8_t)case_rand(ctx);
            int c = rpc_write_stdin(ctx, ps.pid, sent + total, n);
            CASE_CHECK(ctx, c == 0, "WriteStdin accepted", "write %d: status %d", i, c);
            total += n;
            /* Keep draining so the pipe never fills. */
            while (pu_pump(&ps, 0) != PEV_TIMEOUT && !ps.ended)
                ;
        }
        for (int i = 0; i < 4 && !case_failed(ctx); i++) {
            for (size_t k = 0; k < 65536; k++)
                sent[total + k] = (uint8_t)(k * 7 + (size_t)i);
            int c = rpc_write_stdin(ctx, ps.pid, sent + total, 65536);
            CASE_CHECK(ctx, c == 0, "WriteStdin of 64 KiB accepted", "status %d", c);
            total += 65536;
            while (pu_pump(&ps, 0) != PEV_TIMEOUT && !ps.ended)
                ;
        }
        if (!case_failed(ctx)) {
            int c = rpc_close_stdin(ctx, ps.pid);
            CASE_CHECK(ctx, c == 0, "WriteStdin eof accepted", "status %d", c);
        }
        if (!case_failed(ctx) && pu_finish(&ps, 15000)) {
            size_t i = 0;
            while (i < total && i < ps.out_len && ps.out[i] == sent[i])
                i++;
            CASE_CHECK(ctx, ps.out_len == total && i == total,
                       "stdout of cat equal to every byte written, in order",
                       "%zu bytes back of %zu sent, first difference at %zu", ps.out_len, total, i);
            CASE_CHECK(ctx, ps.exit_code == 0, "cat exiting 0", "exit_code %d", (int)ps.exit_code);
        }
    }
    pu_free(&ps);
    free(sent);
}
SBX_CASE(stdin_in_order, .id = "P12-001",
         .title = "WriteStdin bytes reach the process in order (many small writes, 64 KiB ones)",
         .clauses = "P12", .level = LEVEL_MUST, .tags = "process", .timeout_s = 40,
         .catches = "writes dropped, reordered or re-encoded; binary bytes mangled",
         .how = "300 random binary writes of 1-39 bytes and four 64 KiB writes into `cat`, "
                "then eof; the stream must hold exactly the concatenation");

/* More than a pipe takes at once, while the process is not reading yet:
 * a runtime that writes once and drops what the pipe refused loses data
 * and still answers OK. */
#define BIG_STDIN (1u << 20)

static void stdin_bigger_than_pipe(struct case_ctx *ctx)
{
    uint8_t *data = malloc(BIG_STDIN);
    if (!data) {
        case_error(ctx, "out of memory");
        return;
    }
    for (size_t k = 0; k < BIG_STDIN; k++)
        data[k] = (uint8_t)(k * 31 + 7);
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "sleep 1; wc -c"), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sh -c 'sleep 1; wc -c'"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
        int c = rpc_write_stdin(ctx, ps.pid, data, BIG_STDIN);
        CASE_CHECK(ctx, c == 0, "WriteStdin of 1 MiB accepted", "status %d", c);
        int e = c == 0 ? rpc_close_stdin(ctx, ps.pid) : -2;
        CASE_CHECK(ctx, c != 0 || e == 0, "WriteStdin eof accepted", "status %d", e);
        if (c == 0 && e == 0 && pu_finish(&ps, 20000)) {
            long counted = -1;
            char out[64];
            size_t n = ps.out_len < sizeof out - 1 ? ps.out_len : sizeof out - 1;
            memcpy(out, ps.out, n);
            out[n] = '\0';
            const char *p = out + strspn(out, " \t");
            conf_parse_longs(p, ' ', &counted, 1);
            CASE_CHECK(ctx, counted == (long)BIG_STDIN,
                       "every byte of a WriteStdin larger than the pipe reaches the process",
                       "wc -c counted %ld of %u bytes (stdout \"%s\")", counted, BIG_STDIN, out);
        }
    }
    pu_free(&ps);
    free(data);
}
SBX_CASE(stdin_bigger_than_pipe, .id = "P12-006",
         .title = "A WriteStdin larger than the pipe, sent before the process reads, arrives whole",
         .clauses = "P12", .level = LEVEL_MUST, .tags = "process", .timeout_s = 40,
         .catches = "a write the full pipe takes only partly: the rest silently dropped while the "
                    "call answers OK (data loss)",
         .how = "starts `sh -c 'sleep 1; wc -c'`, writes 1 MiB in one WriteStdin at once (the "
                "pipe holds 64 KiB and nobody reads for a second), then eof; wc must count "
                "1,048,576 bytes");

static void stdin_eof_ends(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "cat; echo after-eof"),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sh -c 'cat; echo after-eof'"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
        /* An empty input writes nothing: whatever it answers (not fixed),
         * it must not close stdin, which only eof does. */
        int c0 = rpc_write_stdin(ctx, ps.pid, "", 0);
        if (c0 != 0) case_note(ctx, "WriteStdin with an empty input answered status %d", c0);
        int c1 = rpc_write_stdin(ctx, ps.pid, "line\n", 5);
        bool echoed =
            c1 == 0 && pu_wait_output(&ps, false, "line\n", 5000,
                                      "the line written after an empty input echoed by cat "
                                      "(stdin still open)");
        int c2 = rpc_close_stdin(ctx, ps.pid);
        CASE_CHECK(ctx, c1 == 0 && c2 == 0, "WriteStdin input and eof accepted",
                   "statuses %d and %d", c1, c2);
        if (echoed && c2 == 0 && pu_finish(&ps, 8000)) {
            CASE_CHECK(ctx, ps.out_len == 15 && memcmp(ps.out, "line\nafter-eof\n", 15) == 0,
                       "cat ending at eof, then the shell going on", "stdout %.*s", (int)ps.out_len,
                       (const char *)ps.out);
            CASE_CHECK(ctx, ps.exit_code == 0, "exit_code 0", "%d", (int)ps.exit_code);
        }
    }
    pu_free(&ps);
}
SBX_CASE(stdin_eof_ends, .id = "P12-002", .title = "WriteStdin eof closes the process's stdin",
         .clauses = "P12", .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "eof ignored (cat never ends), the process killed instead of its stdin "
                    "closed, or stdin closed by an empty input",
         .how = "writes an empty input (any status) and then a line into `cat; echo after-eof`; "
                "the line must be echoed (stdin still open); then eof: cat must end and the "
                "shell print after-eof and exit 0 within 8 s");

static void stdin_unknown_id(struct case_ctx *ctx)
{
    static const int32_t ids[] = {2147480001, 987654321, INT32_MIN + 7};
    for (size_t i = 0; i < 3; i++) {
        int c = rpc_write_stdin(ctx, ids[i], "x", 1);
        CASE_CHECK(ctx, c == 5, "NOT_FOUND (5) for WriteStdin to an unknown process_id",
                   "process_id %d: status %d", (int)ids[i], c);
        c = rpc_close_stdin(ctx, ids[i]);
        CASE_CHECK(ctx, c == 5, "NOT_FOUND (5) for WriteStdin eof to an unknown process_id",
                   "process_id %d: status %d", (int)ids[i], c);
    }
}
SBX_CASE(stdin_unknown_id, .id = "P12-003",
         .title = "WriteStdin to an unknown process_id fails with NOT_FOUND", .clauses = "P12",
         .level = LEVEL_MUST, .tags = "process,errors", .timeout_s = 20,
         .catches = "unknown ids accepted silently or failing with another code",
         .how = "writes input and eof to ids no process has (large, negative)");

static void stdin_after_exit(struct case_ctx *ctx)
{
    struct rpc_spec spec = {.argv = PU_ARGV("true"), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "true"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 10000)) {
        int c = rpc_write_stdin(ctx, ps.pid, "x", 1);
        CASE_CHECK(ctx, c == 5,
                   "NOT_FOUND (5) for WriteStdin after the process exited and "
                   "its stream ended",
                   "status %d", c);
    }
    pu_free(&ps);
}
SBX_CASE(stdin_after_exit, .id = "P12-004",
         .title = "WriteStdin after the process exited and its stream ended: NOT_FOUND",
         .clauses = "P12", .level = LEVEL_SHOULD, .tags = "process,errors", .needs = NEEDS_ALONE,
         .timeout_s = 20, .catches = "ids of finished processes kept (leak) and accepting writes",
         .how = "starts `true`, reads its stream to the end, then writes to its id (run alone: "
                "a runtime may give a freed id to another case's new process at once)");

static void stdin_after_eof(struct case_ctx *ctx)
{
    /* After eof the shell goes on running with its stdin closed. */
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "cat; echo eof-seen; exec sleep 30"),
                            .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sh -c 'cat; echo eof-seen; exec sleep 30'"};
    if (pu_start(ctx, &ps, &spec, NULL, 10000)) {
        int c1 = rpc_write_stdin(ctx, ps.pid, "before\n", 7);
        int c2 = c1 == 0 ? rpc_close_stdin(ctx, ps.pid) : -2;
        if (CASE_CHECK(ctx, c1 == 0 && c2 == 0, "WriteStdin input and eof accepted",
                       "statuses %d and %d", c1, c2) &&
            pu_wait_output(&ps, false, "before\neof-seen\n", 8000,
                           "cat ending at eof (its input, then eof-seen)")) {
            /* The code is not fixed by the contract: any error status. */
            int c3 = rpc_write_stdin(ctx, ps.pid, "after\n", 6);
            CASE_CHECK(ctx, c3 > 0,
                       "an error status for WriteStdin after eof (stdin is closed, the bytes "
                       "cannot reach the process)",
                       "status %d%s", c3, c3 == 0 ? " (OK: the input was silently dropped)" : "");
            if (c3 > 0) case_note(ctx, "WriteStdin after eof answered status %d", c3);
            CASE_CHECK(ctx, !ps.have_exit, "the process still running after the refused write",
                       "it exited with %d", (int)ps.exit_code);
        }
    }
    pu_free(&ps);
}
SBX_CASE(stdin_after_eof, .id = "P12-005",
         .title = "WriteStdin after eof fails with an error status (any code)", .clauses = "P12",
         /* SHOULD: the contract leaves the code open ("any error status") but
          * states no MUST for this input. */
         .level = LEVEL_SHOULD, .tags = "process,errors", .timeout_s = 30,
         .catches = "input after eof answered OK and silently dropped (the client is told its "
                    "bytes were delivered)",
         .how = "a shell runs `cat` and then sleeps; after a line and eof (cat ends), one more "
                "WriteStdin must fail with some gRPC error status while the process is still "
                "running (which code is not fixed by the contract)");
