/* SPDX-License-Identifier: Apache-2.0 */
/* P1, P2: what Execute returns — separate byte-exact stdout and stderr,
 * empty stdin, and exit codes as the process exited with them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"

static bool check_bytes(struct case_ctx *ctx, const char *what, const uint8_t *got, size_t got_len,
                        const uint8_t *want, size_t want_len)
{
    if (got_len == want_len && (want_len == 0 || memcmp(got, want, want_len) == 0)) return true;
    size_t i = 0;
    while (i < got_len && i < want_len && got[i] == want[i])
        i++;
    char *g = pu_preview(got + i, got_len - i, 60);
    char *w = pu_preview(want + i, want_len - i, 60);
    case_fail(ctx, what,
              "%zu bytes instead of %zu; first difference at offset %zu: got %s, want %s", got_len,
              want_len, i, g ? g : "?", w ? w : "?");
    free(g);
    free(w);
    return false;
}

static void exec_stdout_stderr_apart(struct case_ctx *ctx)
{
    struct rpc_result r;
    rpc_sh(ctx,
           "printf 'out-1\\n'; printf 'err-1\\n' >&2; printf 'out-2 no newline'; "
           "printf 'err-2 no newline' >&2",
           &r);
    if (CASE_CHECK(ctx, r.code == SBX_GRPC_OK, "status OK", "status %d (%s)", r.code,
                   r.message ? r.message : "")) {
        CASE_CHECK(ctx, r.exit_code == 0, "exit_code 0", "exit_code %d", (int)r.exit_code);
        static const char out[] = "out-1\nout-2 no newline";
        static const char err[] = "err-1\nerr-2 no newline";
        check_bytes(ctx, "stdout holding exactly what went to stdout", r.out, r.out_len,
                    (const uint8_t *)out, sizeof out - 1);
        check_bytes(ctx, "stderr holding exactly what went to stderr", r.err, r.err_len,
                    (const uint8_t *)err, sizeof err - 1);
    }
    rpc_result_free(&r);
}
SBX_CASE(exec_stdout_stderr_apart, .id = "P1-001",
         .title = "Execute returns stdout and stderr as separate buffers", .clauses = "P1",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 20,
         .catches = "stderr merged into stdout (or the reverse); output lost or reordered",
         .how = "runs a shell that writes two known strings to each stream and compares "
                "both buffers byte for byte");

static void exec_binary_exact(struct case_ctx *ctx)
{
    uint8_t all[256], rev[256 + 8];
    for (int i = 0; i < 256; i++) {
        all[i] = (uint8_t)i;
        rev[i] = (uint8_t)(255 - i);
    }
    /* Invalid UTF-8 tail: lone continuation, truncated sequence, overlong. */
    static const uint8_t bad[] = {0x80, 0xc3, 0x28, 0xe2, 0x82, 0xc0, 0xaf, 0x00};
    memcpy(rev + 256, bad, sizeof bad);
    char *fo = pu_octal_format(all, sizeof all);
    char *fe = pu_octal_format(rev, sizeof rev);
    size_t slen = (fo ? strlen(fo) : 0) + (fe ? strlen(fe) : 0) + 64;
    char *script = malloc(slen);
    if (!fo || !fe || !script) {
        case_error(ctx, "out of memory");
        free(fo);
        free(fe);
        free(script);
        return;
    }
    snprintf(script, slen, "printf '%s'; printf '%s' >&2", fo, fe);
    struct rpc_result r;
    rpc_sh(ctx, script, &r);
    if (CASE_CHECK(ctx, r.code == SBX_GRPC_OK && r.exit_code == 0, "status OK and exit_code 0",
                   "status %d (%s), exit_code %d", r.code, r.message ? r.message : "",
                   (int)r.exit_code)) {
        check_bytes(ctx, "stdout: all 256 byte values in order, NUL bytes included", r.out,
                    r.out_len, all, sizeof all);
        check_bytes(ctx, "stderr: 256 byte values reversed plus invalid UTF-8, byte-exact", r.err,
                    r.err_len, rev, sizeof rev);
    }
    rpc_result_free(&r);
    free(fo);
    free(fe);
    free(script);
}
SBX_CASE(exec_binary_exact, .id = "P1-002",
         .title = "Execute output is binary-safe (NUL bytes, invalid UTF-8)", .clauses = "P1",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 20,
         .catches = "output treated as text: cut at NUL, invalid UTF-8 replaced or dropped, "
                    "newlines translated",
         .how = "prints every byte value 0-255 on stdout and the reverse plus invalid UTF-8 "
                "sequences on stderr, compares byte for byte");

/* What `seq 1 n` prints. */
static char *seq_text(unsigned long n, size_t *len)
{
    size_t cap = n * 8 + 16, o = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    for (unsigned long i = 1; i <= n; i++)
        o += (size_t)snprintf(s + o, cap - o, "%lu\n", i);
    *len = o;
    return s;
}

static void exec_large_output(struct case_ctx *ctx)
{
    const unsigned long nout = 700000, nerr = 200000; /* about 4.8 MiB and 1.2 MiB */
    size_t out_len = 0, err_len = 0;
    char *out = seq_text(nout, &out_len);
    char *err = seq_text(nerr, &err_len);
    struct rpc_result r = {0};
    if (!out || !err) {
        case_error(ctx, "out of memory");
        goto done;
    }
    char script[128];
    snprintf(script, sizeof script, "seq 1 %lu && seq 1 %lu >&2", nout, nerr);
    rpc_sh(ctx, script, &r);
    if (r.code == SBX_GRPC_OK && r.exit_code == 127) {
        case_skip(ctx, "the runtime has no `seq` command");
        goto done;
    }
    if (CASE_CHECK(ctx, r.code == SBX_GRPC_OK && r.exit_code == 0, "status OK and exit_code 0",
                   "status %d (%s), exit_code %d", r.code, r.message ? r.message : "",
                   (int)r.exit_code)) {
        check_bytes(ctx, "stdout: the whole output of seq (about 4.8 MiB), byte-exact", r.out,
                    r.out_len, (const uint8_t *)out, out_len);
        check_bytes(ctx, "stderr: the whole output of seq (about 1.2 MiB), byte-exact", r.err,
                    r.err_len, (const uint8_t *)err, err_len);
    }
done:
    rpc_result_free(&r);
    free(out);
    free(err);
}
SBX_CASE(exec_large_output, .id = "P1-003",
         .title = "Execute returns several MiB of stdout and stderr complete and in order",
         .clauses = "P1", .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "large outputs truncated, chunks dropped or reordered, a pipe read only "
                    "until it first fills",
         .how = "runs `seq 1 700000` to stdout and `seq 1 200000` to stderr and compares with "
                "the same sequences generated locally");

static void exec_stdin_empty(struct case_ctx *ctx)
{
    struct rpc_result r;
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "cat; echo cat-ended:$?"),
                            .cwd = case_dir(ctx),
                            .timeout_ms = 8000};
    rpc_execute(ctx, &spec, &r);
    if (CASE_CHECK(
            ctx, r.code == SBX_GRPC_OK, "Execute of `cat` to end (stdin empty) with status OK",
            "status %d (%s)%s", r.code, r.message ? r.message : "",
            r.code == SBX_GRPC_DEADLINE_EXCEEDED || r.code == -1 ? ": cat kept waiting for input"
                                                                 : "")) {
        static const char want[] = "cat-ended:0\n";
        check_bytes(ctx, "cat reading an empty stdin: no input, then end of file", r.out, r.out_len,
                    (const uint8_t *)want, sizeof want - 1);
    }
    rpc_result_free(&r);
}
SBX_CASE(exec_stdin_empty, .id = "P1-004", .title = "Execute gives the process an empty stdin",
         .clauses = "P1", .level = LEVEL_SHOULD, .tags = "process", .timeout_s = 20,
         .catches = "stdin left as an open pipe nobody closes (cat hangs) or inherited from "
                    "the daemon",
         .how = "runs `cat` with an 8 s deadline; it must end at once with no input read");

static void exec_exit_codes(struct case_ctx *ctx)
{
    static const int codes[] = {0, 1, 2, 3, 7, 42, 64, 100, 126, 127, 128, 129, 143, 200, 254, 255};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        char script[64];
        snprintf(script, sizeof script, "exit %d", codes[i]);
        struct rpc_result r;
        rpc_sh(ctx, script, &r);
        if (CASE_CHECK(ctx, r.code == SBX_GRPC_OK, "status OK for a process that exits",
                       "status %d (%s) for exit %d", r.code, r.message ? r.message : "", codes[i]))
            CASE_CHECK(ctx, r.exit_code == codes[i], "exit_code as the process exited",
                       "exit_code %d for `exit %d`", (int)r.exit_code, codes[i]);
        rpc_result_free(&r);
    }
}
SBX_CASE(exec_exit_codes, .id = "P2-001",
         .title = "Execute reports exit codes 0-255 as the process exited", .clauses = "P2",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "exit codes masked, shifted, clamped or mapped (e.g. only 0/1, >127 turned "
                    "negative, 126/127 rewritten)",
         .how = "runs `sh -c 'exit N'` for 16 values across 0-255 (0,1,2,126,127,128,255 ...) "
                "and compares exit_code");

static void start_exit_codes(struct case_ctx *ctx)
{
    static const int codes[] = {0, 5, 127, 128, 255};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        char script[64];
        snprintf(script, sizeof script, "exit %d", codes[i]);
        struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = case_dir(ctx)};
        struct pu_stream ps = {.label = script};
        if (pu_start(ctx, &ps, &spec, NULL, 10000) && pu_finish(&ps, 10000))
            CASE_CHECK(ctx, ps.exit_code == codes[i], "ExitEvent exit_code as the process exited",
                       "exit_code %d for `exit %d`", (int)ps.exit_code, codes[i]);
        pu_free(&ps);
    }
}
SBX_CASE(start_exit_codes, .id = "P2-002",
         .title = "Start's ExitEvent reports exit codes as the process exited", .clauses = "P2,P7",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 40,
         .catches = "exit codes masked or mapped in the ExitEvent",
         .how = "starts `sh -c 'exit N'` for 0, 5, 127, 128, 255 and compares the ExitEvent");
