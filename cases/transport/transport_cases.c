/* SPDX-License-Identifier: Apache-2.0 */
/* The transport profile (T1-T4): run with --profile transport against a
 * proxy or router in front of a runtime (--grpc/--rest pointing at the
 * proxy). They check what a proxy can break: one sandbox behind both
 * surfaces, gRPC trailers, and streaming (no buffering to completion) of
 * Start output and of large file bodies in both directions. Proven in ctest
 * through nginx (cases/transport/run_nginx_profile.sh): a streaming
 * configuration passes, a buffering one fails T4, and through an HTTP/1.1-only
 * nginx (no http2 on its listener) T1-T3 fail: it cannot carry gRPC. */
#include "case_api.h"
#include "common/conf_util.h"
#include "common/pausable_download.h"
#include "common/payload.h"
#include "concurrency/conc_util.h"
#include "concurrency/raw_http.h"
#include "endpoint.h"
#include "process_client.h"
#include "rest_client.h"
#include "sbx_grpc_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* T1-T3 need gRPC through the proxy: a proxy that answers the HTTP/2
 * preface in HTTP/1.x cannot carry it, and that is the finding (the runner
 * goes on in that case instead of refusing the endpoint). */
static bool t_grpc_carried(struct case_ctx *ctx)
{
    char err[700];
    case_request(ctx, "HTTP/2 connection preface (h2c) to %s", case_grpc_addr(ctx));
    int rc = endpoint_check_grpc(case_grpc_addr(ctx), 10000, err, sizeof err);
    if (rc == ENDPOINT_HTTP1)
        case_fail(ctx, "the proxy carries gRPC (HTTP/2) on the gRPC address",
                  "the proxy answers HTTP/1.1 on the gRPC path: it cannot carry gRPC (%s)", err);
    else if (rc != 0)
        case_fail(ctx, "the proxy carries gRPC (HTTP/2) on the gRPC address", "%s", err);
    return rc == 0;
}

/* ---- T1: one sandbox behind both surfaces -------------------------------- */

static void t1_same_sandbox(struct case_ctx *ctx)
{
    if (!t_grpc_carried(ctx)) return;
    char from_rest[64], from_proc[64], why[300];
    snprintf(from_rest, sizeof from_rest, "via-rest-%016llx", (unsigned long long)case_rand(ctx));
    snprintf(from_proc, sizeof from_proc, "via-proc-%016llx", (unsigned long long)case_rand(ctx));
    char *rel = conf_xasprintf("%s/t1/from-rest.txt", case_dir(ctx));
    struct http_response resp = {0};
    if (rest_put_bytes(ctx, rel, from_rest, strlen(from_rest), NULL, &resp) != 0 ||
        resp.status != 204) {
        case_fail(ctx, "PUT through the proxy answers 204", "status %ld %s", resp.status,
                  resp.error);
        goto out;
    }
    char *out = NULL;
    int rc = conf_sh(ctx, "cat t1/from-rest.txt", &out, why, sizeof why);
    if (rc != 0 || !out || strcmp(out, from_rest) != 0)
        case_fail(ctx, "a process sees the file written through REST (P18)", "%s",
                  rc != 0 ? why : "different content");
    free(out);
    char *script = conf_xasprintf("printf %%s '%s' > t1/from-proc.txt", from_proc);
    rc = conf_sh(ctx, script, NULL, why, sizeof why);
    free(script);
    if (rc != 0) {
        case_fail(ctx, "Execute through the proxy writes a file", "%s", why);
        goto out;
    }
    char *rel2 = conf_xasprintf("%s/t1/from-proc.txt", case_dir(ctx));
    http_response_free(&resp);
    memset(&resp, 0, sizeof resp);
    if (rest_get_path(ctx, rel2, &resp) != 0 || resp.status != 200 ||
        resp.body_len != strlen(from_proc) || memcmp(resp.body, from_proc, resp.body_len) != 0)
        case_fail(ctx, "REST serves the file a process wrote (P18)", "status %ld, body %.80s",
                  resp.status, resp.body ? resp.body : "");
    free(rel2);
out:
    http_response_free(&resp);
    free(rel);
}
SBX_CASE(t1_same_sandbox, .id = "T1-001",
         .title = "REST and gRPC through the proxy reach the same sandbox", .clauses = "T1",
         .level = LEVEL_MUST, .tags = "transport", .needs = NEEDS_TRANSPORT, .timeout_s = 30,
         .catches = "a proxy that routes REST and gRPC to different sandboxes (or only one of "
                    "them), so files written on one surface are missing on the other",
         .how = "PUT a unique file through the REST endpoint and read it with Execute `cat` "
                "through the gRPC endpoint; write another with Execute and GET it through REST");

/* ---- T2: gRPC statuses in trailers ---------------------------------------- */

static void expect_code(struct case_ctx *ctx, const char *what, int got, int want)
{
    CASE_CHECK(ctx, got == want, "the gRPC status the runtime sends, intact through the proxy",
               "%s: status %d, expected %d", what, got, want);
}

static void t2_trailers(struct case_ctx *ctx)
{
    if (!t_grpc_carried(ctx)) return;
    /* A cwd escaping the root (P4 MUST: PERMISSION_DENIED) whose text has
     * non-ASCII and '%': when the runtime echoes it in grpc-message, the
     * percent-encoding must survive the proxy. */
    char marker[64];
    snprintf(marker, sizeof marker, "\xc3\xbc%%41%%-%08llx",
             (unsigned long long)(case_rand(ctx) & 0xffffffffu));
    struct sbuf cwd = {0};
    for (int i = 0; i < conf_path_depth(case_dir(ctx)) + 40; i++)
        sbuf_puts(&cwd, "../");
    sbuf_puts(&cwd, marker);
    const char *argv[] = {"true", NULL};
    struct rpc_spec spec = {.argv = argv, .cwd = cwd.s, .timeout_ms = 10000};
    struct rpc_result r = {0};
    int code = rpc_execute(ctx, &spec, &r);
    expect_code(ctx, "Execute with a cwd escaping the root", code, SBX_GRPC_PERMISSION_DENIED);
    const char *hex = marker + strlen(marker) - 8;
    if (r.message && strstr(r.message, hex)) {
        CASE_CHECK(ctx, strstr(r.message, marker) != NULL,
                   "grpc-message arrives intact (UTF-8 and '%' percent-encoded end to end)",
                   "message \"%s\" does not contain \"%s\"", r.message, marker);
    } else {
        case_note(ctx, "the runtime's message does not echo the cwd; its text was not compared");
    }
    rpc_result_free(&r);
    sbuf_free(&cwd);

    expect_code(ctx, "WriteStdin to an unknown process", rpc_write_stdin(ctx, 2147480000, "x", 1),
                SBX_GRPC_NOT_FOUND);

    /* Statuses about a live process, then a stream that ends OK in trailers
     * after data. */
    const char *sleep_argv[] = {"sleep", "10", NULL};
    struct rpc_spec sp = {.argv = sleep_argv};
    struct rpc_stream *s = rpc_start(ctx, &sp, NULL);
    struct rpc_event ev;
    if (s) rpc_next(s, 10000, &ev);
    if (!s || ev.kind != PEV_INIT) {
        case_fail(ctx, "Start through the proxy delivers an InitEvent (P7)", "no InitEvent");
        if (s) rpc_stream_free(s);
        return;
    }
    int32_t pid = ev.process_id;
    expect_code(ctx, "SendSignal SIGNAL_UNSPECIFIED", rpc_signal(ctx, pid, 0),
                SBX_GRPC_INVALID_ARGUMENT);
    expect_code(ctx, "ResizeTTY on a process without a PTY", rpc_resize(ctx, pid, 80, 24),
                SBX_GRPC_FAILED_PRECONDITION);
    expect_code(ctx, "SendSignal SIGKILL", rpc_signal(ctx, pid, 9), SBX_GRPC_OK);
    struct rpc_result sr = {0};
    int end = rpc_collect(s, 10000, &sr, NULL);
    CASE_CHECK(ctx, end == 0 && sr.code == SBX_GRPC_OK,
               "the Start stream ends with status OK in trailers after the ExitEvent",
               "end %d, status %d", end, sr.code);
    rpc_result_free(&sr);
    rpc_stream_free(s);

    const char *out_argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    struct rpc_spec op = {.argv = out_argv};
    s = rpc_start(ctx, &op, NULL);
    memset(&sr, 0, sizeof sr);
    end = s ? rpc_collect(s, 10000, &sr, NULL) : -1;
    CASE_CHECK(ctx, end == 0 && sr.code == SBX_GRPC_OK && sr.exit_code == 3,
               "a Start stream with output ends OK in trailers, exit code 3",
               "end %d, status %d, exit %d", end, sr.code, sr.exit_code);
    rpc_result_free(&sr);
    if (s) rpc_stream_free(s);
}
SBX_CASE(t2_trailers, .id = "T2-001", .title = "gRPC statuses in trailers arrive intact",
         .clauses = "T2", .level = LEVEL_MUST, .tags = "transport", .needs = NEEDS_TRANSPORT,
         .timeout_s = 40,
         .catches = "a proxy that drops or rewrites HTTP/2 trailers (grpc-status, grpc-message), "
                    "turns trailers-only responses into errors, or mangles percent-encoded "
                    "messages",
         .how = "through the proxy: Execute with an escaping cwd (PERMISSION_DENIED; its message, "
                "when it echoes the cwd, must keep the UTF-8 and '%' marker), WriteStdin to an "
                "unknown id (NOT_FOUND), SendSignal UNSPECIFIED (INVALID_ARGUMENT) and ResizeTTY "
                "without PTY (FAILED_PRECONDITION) on a live process, and Start streams that end "
                "OK in trailers after their events");

/* ---- T3: Start output is not buffered -------------------------------------- */

static void t3_start_streams(struct case_ctx *ctx)
{
    if (!t_grpc_carried(ctx)) return;
    const char *argv[] = {"sh", "-c", "echo early; sleep 6; echo late", NULL};
    struct rpc_spec spec = {.argv = argv};
    uint64_t t0 = case_now_ms();
    struct rpc_stream *s = rpc_start(ctx, &spec, NULL);
    if (!s) {
        case_fail(ctx, "Start through the proxy", "the call failed");
        return;
    }
    int32_t pid = 0;
    bool early = false;
    struct rpc_event ev;
    while (case_now_ms() - t0 < 3000 && !early) {
        rpc_next(s, 3000 - (unsigned)(case_now_ms() - t0), &ev);
        if (ev.kind == PEV_INIT)
            pid = ev.process_id;
        else if (ev.kind == PEV_STDOUT && ev.len > 0)
            early = true;
        else if (ev.kind != PEV_STDERR && ev.kind != PEV_OTHER)
            break;
    }
    uint64_t at = case_now_ms() - t0;
    case_request(ctx, "Start sh -c 'echo early; sleep 6; echo late'");
    if (!early)
        case_fail(ctx, "the early output arrives within 3 s while the process sleeps 6 s",
                  "nothing after %.1f s: the proxy buffers the stream", (double)at / 1000.0);
    else
        case_note(ctx, "early output after %.2f s", (double)at / 1000.0);
    if (pid > 0) rpc_signal(ctx, pid, 9);
    struct rpc_result r = {0};
    rpc_collect(s, 10000, &r, NULL);
    rpc_result_free(&r);
    rpc_stream_free(s);
}
SBX_CASE(t3_start_streams, .id = "T3-001", .title = "Start output streams through the proxy",
         .clauses = "T3", .level = LEVEL_MUST, .tags = "transport", .needs = NEEDS_TRANSPORT,
         .timeout_s = 30,
         .catches = "a proxy that buffers gRPC response messages until the stream ends, so a "
                    "long-running process shows no output",
         .how = "Start `echo early; sleep 6; echo late`: the stdout event of \"early\" must "
                "arrive within 3 s (the process is then killed)");

/* ---- T4: large GET streams ------------------------------------------------- */

#define T4_SIZE (128ull * 1024 * 1024)
#define T4_PAUSE_AT (1024 * 1024)
#define T4_MARK_LEN 16
#define T4_MARK_OFF (T4_SIZE - 4096)
#define T4_SCRATCH (64u * 1024)

/* Checks the body as it streams in; the 16 bytes at T4_MARK_OFF are kept
 * aside (they may have been changed on disk during the pause). */
struct t4_check {
    uint64_t seed;
    uint8_t tail[T4_MARK_LEN];
    uint8_t expected_tail[T4_MARK_LEN];
    bool corrupt;
    uint64_t corrupt_at;
    uint8_t *scratch;
};

static bool t4_sink(void *ud, const char *buf, size_t n, uint64_t off)
{
    struct t4_check *d = ud;
    if (off + n > T4_SIZE) {
        d->corrupt = true;
        d->corrupt_at = off;
        return false;
    }
    for (size_t done = 0; done < n;) {
        size_t piece = n - done < T4_SCRATCH ? n - done : T4_SCRATCH;
        payload_fill(d->seed, T4_SIZE, off + done, d->scratch, piece);
        for (size_t i = 0; i < piece; i++) {
            uint64_t o = off + done + i;
            uint8_t got = (uint8_t)buf[done + i];
            if (o >= T4_MARK_OFF && o < T4_MARK_OFF + T4_MARK_LEN) {
                d->tail[o - T4_MARK_OFF] = got;
                d->expected_tail[o - T4_MARK_OFF] = d->scratch[i];
            } else if (got != d->scratch[i] && !d->corrupt) {
                d->corrupt = true;
                d->corrupt_at = o;
            }
        }
        done += piece;
    }
    return true;
}

static void t4_large_get(struct case_ctx *ctx)
{
    const char *addr = case_rest_addr(ctx);
    char *target = conc_target(case_dir(ctx), "t4-big.bin", NULL);
    uint64_t seed = case_rand(ctx);
    struct payload_source src = {.seed = seed, .total = T4_SIZE};
    static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
    struct http_request put = {.method = "PUT",
                               .target = target,
                               .headers = octet,
                               .timeout_ms = 120000,
                               .read_cb = payload_read_cb,
                               .read_ud = &src,
                               .upload_size = (long long)T4_SIZE};
    struct http_response presp = {0};
    case_request(ctx, "PUT %s (%llu MiB)", target, T4_SIZE >> 20);
    if (rest_do_at(addr, &put, &presp) != 0 || presp.status != 204) {
        case_fail(ctx, "PUT through the proxy answers 204", "status %ld %s", presp.status,
                  presp.error);
        http_response_free(&presp);
        free(target);
        return;
    }
    http_response_free(&presp);

    struct t4_check d = {.seed = seed};
    d.scratch = conf_xmalloc(T4_SCRATCH);
    struct pd_opts o = {.addr = addr,
                        .target = target,
                        .pause_at = T4_PAUSE_AT,
                        .max_pause_ms = 30000,
                        .timeout_ms = 120000,
                        .sink = t4_sink,
                        .sink_ud = &d};
    struct pausable_download *dl = pd_start(&o);
    if (!dl) {
        case_error(ctx, "could not start the download thread");
        free(d.scratch);
        free(target);
        return;
    }
    bool paused = pd_wait_paused(dl, 30000);

    char mark[T4_MARK_LEN + 1];
    snprintf(mark, sizeof mark, "SBXTAIL-%08llx", (unsigned long long)(seed & 0xffffffffu));
    if (paused) {
        /* Give a buffering proxy time to read the whole body, then change
         * the file's last bytes on disk: a streaming path reads them only
         * now and delivers the change. */
        sleep(2);
        char *script = conf_xasprintf("printf %%s '%s' | dd of=t4-big.bin bs=%d seek=%llu "
                                      "conv=notrunc 2>/dev/null",
                                      mark, T4_MARK_LEN, T4_MARK_OFF / T4_MARK_LEN);
        char why[300];
        int rc = conf_sh(ctx, script, NULL, why, sizeof why);
        free(script);
        if (rc != 0)
            case_error(ctx, "could not change the file's tail through Execute (dd): %s", why);
    }
    struct pd_result res;
    pd_finish(dl, &res);

    case_request(ctx, "GET %s (reading paused after 1 MiB for 2 s)", target);
    if (!paused)
        case_fail(ctx, "a 200 download that can be paused after its first MiB",
                  "the download ended before 1 MiB: status %ld %s", res.status, res.error);
    else if (res.status != 200 || res.received != T4_SIZE)
        case_fail(ctx, "the large download completes (200, every byte)",
                  "status %ld after %llu of %llu bytes %s", res.status,
                  (unsigned long long)res.received, T4_SIZE, res.error);
    else if (d.corrupt)
        case_fail(ctx, "the bytes are the file's", "byte %llu differs",
                  (unsigned long long)d.corrupt_at);
    else if (memcmp(d.tail, mark, T4_MARK_LEN) == 0)
        case_note(ctx,
                  "first byte after %.2f s; the tail changed on disk during the pause "
                  "arrived: the body streamed",
                  (double)(res.first_byte_ms - res.start_ms) / 1000.0);
    else if (memcmp(d.tail, d.expected_tail, T4_MARK_LEN) == 0)
        case_fail(ctx,
                  "the body streams: its last bytes are read from disk only as the client "
                  "gets there",
                  "the last bytes had been read before the client had taken its first MiB "
                  "(a change made on disk meanwhile did not arrive): the body was buffered "
                  "to completion");
    else
        case_fail(ctx, "the tail is either the original or the changed bytes", "neither arrived");
    free(d.scratch);
    free(target);
}
SBX_CASE(t4_large_get, .id = "T4-001",
         .title = "A large GET streams: its last bytes are read only as the client gets there",
         .clauses = "T4", .level = LEVEL_MUST, .tags = "transport", .needs = NEEDS_TRANSPORT,
         .timeout_s = 120,
         .catches = "a proxy that reads a whole response body (into memory or a temporary file) "
                    "before or regardless of the client, instead of streaming it",
         .how = "PUTs a 128 MiB self-verifying payload, GETs it and pauses reading after 1 MiB "
                "for 2 s, changes 16 bytes near the end of the file on disk through Execute "
                "(dd), then resumes: the changed bytes must arrive (a streaming path reads the "
                "tail only now); every other byte must match the payload");

/* ---- T4: a slow PUT is accepted while it trickles in ----------------------- */

#define T4P_HEAD (16u * 1024 * 1024)
#define T4P_TAIL 4096u
#define T4P_CHUNKS 8
#define T4P_GAP_MS 400

/* Where an upload in progress can be seen on disk. The runtime may keep its
 * temporary file beside the target or anywhere else in the root (F6 only
 * asks that none remains in the directory): the case directory and
 * everything in the root outside the run's directory (other cases never
 * write there) are measured, in KiB. (Free space of the file system would
 * see a buffering proxy's own temporary file too, so it is not used; a
 * temporary file kept outside the root is not seen.) */
struct t4_space {
    long case_kib, other_kib;
};

static bool t4_measure(struct case_ctx *ctx, struct t4_space *sp)
{
    const char *cd = case_dir(ctx);
    size_t run_len = strcspn(cd, "/");
    struct sbuf up = {0};
    for (int i = conf_path_depth(cd); i > 0; i--)
        sbuf_puts(&up, "../");
    char *script =
        conf_xasprintf("c=$(du -sk . | cut -f1); cd ./%s || exit 1; o=0\n"
                       "for e in * .[!.]* ..?*; do\n"
                       "  [ -e \"$e\" ] || continue; [ \"$e\" = '%.*s' ] && continue\n"
                       "  k=$(du -sk -- \"$e\" 2>/dev/null | cut -f1); o=$((o + ${k:-0}))\n"
                       "done\n"
                       "echo \"$c $o\"\n",
                       up.s ? up.s : "", (int)run_len, cd);
    sbuf_free(&up);
    char *out = NULL;
    char why[200];
    int rc = conf_sh(ctx, script, &out, why, sizeof why);
    free(script);
    long kib[2];
    bool ok = rc == 0 && out && conf_parse_longs(out, ' ', kib, 2);
    if (ok) {
        sp->case_kib = kib[0];
        sp->other_kib = kib[1];
    }
    free(out);
    return ok;
}

/* KiB that arrived in the root between two measurements. */
static long t4_grown(const struct t4_space *a, const struct t4_space *b)
{
    return (b->case_kib + b->other_kib) - (a->case_kib + a->other_kib);
}

static void t4_slow_put(struct case_ctx *ctx)
{
    const char *addr = case_rest_addr(ctx);
    uint64_t seed = case_rand(ctx);
    const uint64_t total = T4P_HEAD + T4P_TAIL;
    char *target = conc_target(case_dir(ctx), "t4-slow.bin", NULL);
    struct t4_space before, during;
    bool measured = t4_measure(ctx, &before);
    struct raw_conn *fd = raw_connect(addr, 30000);
    if (!fd || !measured) {
        case_error(ctx, "could not connect to %s or measure the case directory", addr);
        raw_close(fd);
        free(target);
        return;
    }
    case_request(ctx, "PUT %s (16 MiB at once, then 4 KiB over %.1f s)", target,
                 T4P_CHUNKS * T4P_GAP_MS / 1000.0);
    bool ok = raw_send_head(fd, addr, "PUT", target, (long long)total,
                            "Content-Type: application/octet-stream\r\n");
    uint8_t *buf = conf_xmalloc(1024 * 1024);
    for (uint64_t off = 0; ok && off < T4P_HEAD; off += 1024 * 1024) {
        payload_fill(seed, total, off, buf, 1024 * 1024);
        ok = raw_send_all(fd, buf, 1024 * 1024);
    }
    bool have_during = false;
    bool answered_early = false;
    const size_t step = T4P_TAIL / T4P_CHUNKS;
    for (int i = 0; ok && i < T4P_CHUNKS; i++) {
        if (raw_peer_spoke(fd, T4P_GAP_MS)) {
            answered_early = true;
            break;
        }
        if (i == T4P_CHUNKS / 2) have_during = t4_measure(ctx, &during);
        payload_fill(seed, total, T4P_HEAD + i * step, buf, step);
        ok = raw_send_all(fd, buf, step);
    }
    free(buf);
    long status = raw_read_status(fd, 30000);
    raw_close(fd);
    long grown = have_during ? t4_grown(&before, &during) : -1;
    bool reached = grown >= (long)(T4P_HEAD / 2048); /* half the head, in KiB */
    if (!ok && !answered_early)
        case_fail(ctx, "the slow upload can be sent", "sending failed (status %ld)", status);
    else if (answered_early)
        case_fail(ctx, "the slow PUT is accepted while it trickles in",
                  "the request was answered (%ld) before its body was complete", status);
    else if (status != 204)
        case_fail(ctx, "the slow PUT completes with 204", "status %ld", status);
    else if (!reached)
        case_fail(ctx,
                  "the upload reaches the runtime while it trickles in (its bytes land on "
                  "disk before the body is complete)",
                  "the root (case directory and the root outside the run's directory) grew "
                  "by %ld KiB of 16 MiB sent while the last 4 KiB "
                  "trickled: the body was held back (buffered) before the runtime",
                  grown);
    else
        case_note(ctx, "the sandbox held %ld KiB more while the upload trickled", grown);
    if (status == 204) {
        bool complete;
        uint64_t got = 0;
        char why[200] = "";
        case_request(ctx, "GET %s", target);
        long s = conc_get_payload(addr, target, &complete, &got, why, sizeof why);
        if (s != 200 || !complete || got != seed)
            case_fail(ctx, "the slowly uploaded file is stored byte-exact", "status %ld %s", s,
                      why);
    }
    free(target);
}
SBX_CASE(t4_slow_put, .id = "T4-002",
         .title = "A slow PUT streams to the runtime as it trickles in", .clauses = "T4",
         .level = LEVEL_MUST, .tags = "transport", .needs = NEEDS_TRANSPORT, .timeout_s = 60,
         .catches = "a proxy that holds a request body until it is complete (request buffering), "
                    "or rejects or times out an upload that trickles in",
         .how = "over a raw socket, PUTs 16 MiB at once and then the last 4 KiB in 8 pieces "
                "400 ms apart; halfway through the trickle, Execute `du` must show at least "
                "8 MiB more in the case directory or in the root outside the run's directory "
                "(the runtime writes the body as it arrives, its temporary file wherever it "
                "keeps it in the root); the PUT must then answer 204 and the file read back "
                "byte-exact");
