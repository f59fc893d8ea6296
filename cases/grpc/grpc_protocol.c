/* SPDX-License-Identifier: Apache-2.0 */
/* G1-G6: gRPC protocol behaviour of the ProcessService endpoint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"
#include "grpc_dial.h"
#include "process.pb-c.h"
#include "sbx_grpc_client.h"

static struct sbx_grpc_conn *conn_or_fail(struct case_ctx *ctx)
{
    const char *why = NULL;
    struct sbx_grpc_conn *c = rpc_conn(ctx, &why);
    if (!c) case_fail(ctx, "a gRPC connection to the endpoint", "%s", why ? why : "failed");
    return c;
}

static const char *end_name(enum sbx_grpc_end e)
{
    switch (e) {
    case SBX_GRPC_END_STATUS:
        return "status";
    case SBX_GRPC_END_PROTOCOL:
        return "protocol violation";
    case SBX_GRPC_END_RESET:
        return "stream reset";
    case SBX_GRPC_END_CONNECTION:
        return "connection failure";
    case SBX_GRPC_END_TIMEOUT:
        return "no answer in time";
    default:
        return "other";
    }
}

/* One failing unary call: status well-formed and in the trailers (or a
 * trailers-only response), no message, and the expected code. */
static void expect_error_status(struct case_ctx *ctx, const char *what, const char *path,
                                const uint8_t *req, size_t len, int want)
{
    struct sbx_grpc_conn *c = conn_or_fail(ctx);
    if (!c) return;
    case_request(ctx, "%s", what);
    struct sbx_grpc_call_opts o = {.wait_ms = 15000};
    struct sbx_grpc_result r = {0};
    sbx_grpc_unary(c, path, req, len, &o, &r);
    if (!CASE_CHECK(ctx, r.end == SBX_GRPC_END_STATUS && r.has_grpc_status,
                    "the call ending with a grpc-status", "%s: %s (%s)", what, end_name(r.end),
                    r.error)) {
        sbx_grpc_result_free(&r);
        return;
    }
    CASE_CHECK(ctx, r.http_status == 200, "HTTP :status 200 on a gRPC error", "%s: :status %d",
               what, r.http_status);
    CASE_CHECK(ctx, r.n_messages == 0, "no response message with an error status",
               "%s: %zu messages", what, r.n_messages);
    bool in_headers = sbx_grpc_md_get(r.headers, r.n_headers, "grpc-status") != NULL;
    CASE_CHECK(ctx, r.trailers_only || !in_headers,
               "grpc-status in the trailers (or a trailers-only response)",
               "%s: grpc-status in the initial headers of a response with trailers", what);
    CASE_CHECK(ctx, r.code == want, "the status code named by the contract", "%s: %s (%d), want %s",
               what, sbx_grpc_code_name(r.code), r.code, sbx_grpc_code_name(want));
    if (r.raw_message)
        for (const char *p = r.raw_message; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) {
                case_fail(ctx, "grpc-message percent-encoded (printable ASCII only)",
                          "%s: byte 0x%02x in grpc-message", what, (unsigned char)*p);
                break;
            }
    sbx_grpc_result_free(&r);
}

static void status_in_trailers(struct case_ctx *ctx)
{
    size_t len;
    struct rpc_spec empty = {.argv = PU_ARGV(NULL)};
    uint8_t *req = rpc_pack_execute(&empty, &len);
    expect_error_status(ctx, "Execute with an empty command", PROC_PATH_EXECUTE, req, len, 3);
    free(req);
    struct rpc_spec esc = {.argv = PU_ARGV("true"), .cwd = ".."};
    req = rpc_pack_execute(&esc, &len);
    expect_error_status(ctx, "Execute with cwd \"..\"", PROC_PATH_EXECUTE, req, len, 7);
    free(req);

    Process__V1__WriteStdinRequest w;
    process__v1__write_stdin_request__init(&w);
    w.process_id = 2147480011;
    w.payload_case = PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_INPUT;
    w.input.data = (uint8_t *)"x";
    w.input.len = 1;
    uint8_t buf[64];
    len = process__v1__write_stdin_request__pack(&w, buf);
    expect_error_status(ctx, "WriteStdin to an unknown process_id", PROC_PATH_WRITE_STDIN, buf, len,
                        5);
    Process__V1__SendSignalRequest sg = PROCESS__V1__SEND_SIGNAL_REQUEST__INIT;
    sg.process_id = 2147480012;
    sg.signal = PROCESS__V1__SIGNAL__SIGNAL_SIGTERM;
    len = process__v1__send_signal_request__pack(&sg, buf);
    expect_error_status(ctx, "SendSignal to an unknown process_id", PROC_PATH_SEND_SIGNAL, buf, len,
                        5);

    /* FAILED_PRECONDITION on a live process without PTY. */
    struct rpc_spec sl = {.argv = PU_ARGV("sleep", "30"), .cwd = case_dir(ctx)};
    struct pu_stream ps = {.label = "sleep 30"};
    if (pu_start(ctx, &ps, &sl, NULL, 10000)) {
        Process__V1__ResizeTTYRequest rz = PROCESS__V1__RESIZE_TTYREQUEST__INIT;
        rz.process_id = ps.pid;
        rz.cols = 100;
        rz.rows = 30;
        len = process__v1__resize_ttyrequest__pack(&rz, buf);
        expect_error_status(ctx, "ResizeTTY on a process without PTY", PROC_PATH_RESIZE_TTY, buf,
                            len, 9);
    }
    pu_free(&ps);

    /* A successful call: one message, then grpc-status 0 in trailers. */
    struct sbx_grpc_conn *c = conn_or_fail(ctx);
    if (!c) return;
    struct rpc_spec ok = {.argv = PU_ARGV("true"), .cwd = case_dir(ctx)};
    req = rpc_pack_execute(&ok, &len);
    case_request(ctx, "Execute {command: [\"true\"]}");
    struct sbx_grpc_call_opts o = {.wait_ms = 15000};
    struct sbx_grpc_result r = {0};
    sbx_grpc_unary(c, PROC_PATH_EXECUTE, req, len, &o, &r);
    free(req);
    if (CASE_CHECK(ctx, r.end == SBX_GRPC_END_STATUS && r.code == SBX_GRPC_OK,
                   "a successful call ending with grpc-status 0", "%s (%s), code %d",
                   end_name(r.end), r.error, r.code)) {
        CASE_CHECK(ctx, !r.trailers_only && r.n_messages == 1,
                   "headers, one message, then trailers with the status", "%s, %zu messages",
                   r.trailers_only ? "trailers-only" : "with trailers", r.n_messages);
        CASE_CHECK(ctx, sbx_grpc_md_get(r.trailers, r.n_trailers, "grpc-status") != NULL,
                   "grpc-status in the trailers", "not in the trailers");
    }
    sbx_grpc_result_free(&r);
}
SBX_CASE(status_in_trailers, .id = "G1-001",
         .title = "Failures carry standard gRPC status codes in trailers (or trailers-only)",
         .clauses = "G1,P4,P5,P12,P13,P14", .level = LEVEL_MUST, .tags = "grpc,errors",
         .timeout_s = 30,
         .catches = "statuses sent as HTTP errors, in a message body, in the initial headers, "
                    "or with non-standard codes",
         .how = "provokes INVALID_ARGUMENT, PERMISSION_DENIED, NOT_FOUND (two RPCs) and "
                "FAILED_PRECONDITION; each response must be :status 200 with no message and "
                "grpc-status in trailers or trailers-only with the contract's code; a "
                "success must send its status in trailers after the message");

static void unknown_method(struct case_ctx *ctx)
{
    static const char *const paths[] = {"/process.v1.ProcessService/NoSuchMethod",
                                        "/process.v1.NoSuchService/Execute",
                                        "/no.such.v1.Service/Start"};
    size_t len;
    struct rpc_spec spec = {.argv = PU_ARGV("true")};
    uint8_t *req = rpc_pack_execute(&spec, &len);
    for (size_t i = 0; i < 3; i++) {
        char what[128];
        snprintf(what, sizeof what, "POST %s", paths[i]);
        expect_error_status(ctx, what, paths[i], req, len, 12);
    }
    free(req);
}
SBX_CASE(unknown_method, .id = "G2-001", .title = "An unknown method fails with UNIMPLEMENTED",
         .clauses = "G2", .level = LEVEL_MUST, .tags = "grpc,errors", .timeout_s = 20,
         .catches = "unknown methods answered with INTERNAL, NOT_FOUND, HTTP 404 or a reset",
         .how = "calls an unknown method of ProcessService, an unknown service and an unknown "
                "package; each must end with grpc-status UNIMPLEMENTED");

static void invalid_message(struct case_ctx *ctx)
{
    struct sbx_grpc_conn *c = conn_or_fail(ctx);
    if (!c) return;
    /* Each malformed payload on Execute; then one on every other method
     * (each decodes its own request type). */
    static const struct {
        const char *what;
        const char *method;
        const char *path;
        uint8_t bytes[8];
        size_t len;
    } bad[] = {
        {"an unterminated varint", "Execute", PROC_PATH_EXECUTE, {0xff, 0xff, 0xff, 0xff}, 4},
        {"a length-delimited field longer than the message",
         "Execute",
         PROC_PATH_EXECUTE,
         {0x0a, 0x10, 0x0a, 0x02},
         4},
        {"wire type 7", "Execute", PROC_PATH_EXECUTE, {0x0f, 0x01}, 2},
        {"field number 0", "Execute", PROC_PATH_EXECUTE, {0x00, 0x01}, 2},
        {"an unterminated varint", "Start", PROC_PATH_START, {0xff, 0xff, 0xff, 0xff}, 4},
        {"an unterminated varint", "WriteStdin", PROC_PATH_WRITE_STDIN, {0xff, 0xff, 0xff}, 3},
        {"an unterminated varint", "SendSignal", PROC_PATH_SEND_SIGNAL, {0xff, 0xff, 0xff}, 3},
        {"an unterminated varint", "ResizeTTY", PROC_PATH_RESIZE_TTY, {0xff, 0xff, 0xff}, 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[160];
        snprintf(what, sizeof what, "%s whose message bytes are %s", bad[i].method, bad[i].what);
        case_request(ctx, "%s", what);
        struct sbx_grpc_call_opts o = {.wait_ms = 15000};
        struct sbx_grpc_result r = {0};
        sbx_grpc_unary(c, bad[i].path, bad[i].bytes, bad[i].len, &o, &r);
        CASE_CHECK(ctx,
                   r.end == SBX_GRPC_END_STATUS &&
                       (r.code == SBX_GRPC_INTERNAL || r.code == SBX_GRPC_INVALID_ARGUMENT),
                   "a status INTERNAL or INVALID_ARGUMENT", "%s: %s, code %s (%s)", what,
                   end_name(r.end), sbx_grpc_code_name(r.code), r.error);
        sbx_grpc_result_free(&r);
        if (!CASE_CHECK(ctx, sbx_grpc_conn_usable(c), "the connection still usable", "after %s: %s",
                        what, sbx_grpc_conn_error(c)))
            return;
        /* A valid call on the same connection must still work. */
        struct rpc_spec spec = {.argv = PU_ARGV("echo", "still-works"), .cwd = case_dir(ctx)};
        size_t len;
        uint8_t *req = rpc_pack_execute(&spec, &len);
        case_request(ctx, "Execute echo still-works on the same connection");
        struct sbx_grpc_result ok = {0};
        sbx_grpc_unary(c, PROC_PATH_EXECUTE, req, len, &o, &ok);
        free(req);
        struct rpc_result pr = {0};
        bool good = ok.end == SBX_GRPC_END_STATUS && ok.code == SBX_GRPC_OK && ok.response &&
                    rpc_unpack_execute(ok.response, ok.response_len, &pr) == 0 &&
                    pr.out_len == 12 && memcmp(pr.out, "still-works\n", 12) == 0;
        CASE_CHECK(ctx, good, "a following valid call on the same connection to succeed",
                   "after %s: %s, code %d (%s)", what, end_name(ok.end), ok.code, ok.error);
        rpc_result_free(&pr);
        sbx_grpc_result_free(&ok);
        if (!good) return;
    }
}
SBX_CASE(invalid_message, .id = "G3-001",
         .title = "Invalid message bytes fail with a status and the connection stays usable",
         .clauses = "G3", .level = LEVEL_MUST, .tags = "grpc,errors", .timeout_s = 30,
         .catches = "undecodable requests closing the connection (GOAWAY), resetting the "
                    "stream or crashing the daemon",
         .how = "sends four malformed ExecuteRequest payloads and one malformed request to each "
                "of Start, WriteStdin, SendSignal and ResizeTTY; each must end with INTERNAL or "
                "INVALID_ARGUMENT, and a valid Execute on the same connection must then work");

/* Appends raw bytes to a buffer (bounded, caller sized). */
static size_t put(uint8_t *dst, size_t at, const void *src, size_t n)
{
    memcpy(dst + at, src, n);
    return at + n;
}

static void unknown_fields(struct case_ctx *ctx)
{
    struct sbx_grpc_conn *c = conn_or_fail(ctx);
    if (!c) return;
    /* ProcessConfig {command: [sh, -c, "echo g4-ok"], cwd} + unknown field
     * 100 (bytes), wrapped as ExecuteRequest.config, + unknown field 99
     * (varint) and field 98 (fixed32) on the request. */
    Process__V1__ProcessConfig cfg = PROCESS__V1__PROCESS_CONFIG__INIT;
    char *argv[] = {"sh", "-c", "echo g4-ok", NULL};
    cfg.n_command = 3;
    cfg.command = argv;
    cfg._cwd_case = PROCESS__V1__PROCESS_CONFIG___CWD_CWD;
    cfg.cwd = (char *)case_dir(ctx);
    size_t clen = process__v1__process_config__get_packed_size(&cfg);
    if (clen > 900) {
        case_error(ctx, "case directory name too long");
        return;
    }
    uint8_t inner[1024], req[1100];
    size_t n = process__v1__process_config__pack(&cfg, inner);
    static const uint8_t f100[] = {0xa2, 0x06, 0x03, 'x', 'y', 'z'};
    n = put(inner, n, f100, sizeof f100);
    size_t m = 0;
    req[m++] = 0x0a;
    /* Length as a varint (n < 16384). */
    if (n < 128) {
        req[m++] = (uint8_t)n;
    } else {
        req[m++] = (uint8_t)(0x80 | (n & 0x7f));
        req[m++] = (uint8_t)(n >> 7);
    }
    m = put(req, m, inner, n);
    static const uint8_t f99[] = {0x98, 0x06, 0x01};
    static const uint8_t f98[] = {0x95, 0x06, 0xde, 0xad, 0xbe, 0xef};
    m = put(req, m, f99, sizeof f99);
    m = put(req, m, f98, sizeof f98);
    case_request(ctx, "Execute echo g4-ok with unknown fields 98, 99 (request) and 100 (config)");
    struct sbx_grpc_call_opts o = {.wait_ms = 15000};
    struct sbx_grpc_result r = {0};
    sbx_grpc_unary(c, PROC_PATH_EXECUTE, req, m, &o, &r);
    struct rpc_result pr = {0};
    bool good = r.end == SBX_GRPC_END_STATUS && r.code == SBX_GRPC_OK && r.response &&
                rpc_unpack_execute(r.response, r.response_len, &pr) == 0;
    if (CASE_CHECK(ctx, good, "the request served as if the unknown fields were absent",
                   "%s, code %s (%s) %s", end_name(r.end), sbx_grpc_code_name(r.code),
                   r.message ? r.message : "", r.error))
        CASE_CHECK(ctx, pr.exit_code == 0 && pr.out_len == 6 && memcmp(pr.out, "g4-ok\n", 6) == 0,
                   "the command run as requested", "exit %d, stdout %.*s", (int)pr.exit_code,
                   (int)pr.out_len, (const char *)pr.out);
    rpc_result_free(&pr);
    sbx_grpc_result_free(&r);

    /* Start with an unknown field too. */
    struct rpc_spec spec = {.argv = PU_ARGV("echo", "g4-start"), .cwd = case_dir(ctx)};
    size_t slen;
    uint8_t *sreq = rpc_pack_start(&spec, NULL, &slen);
    uint8_t *sreq2 = sreq ? realloc(sreq, slen + sizeof f99) : NULL;
    if (!sreq2) {
        free(sreq);
        case_error(ctx, "out of memory");
        return;
    }
    memcpy(sreq2 + slen, f99, sizeof f99);
    case_request(ctx, "Start echo g4-start with unknown field 99");
    char err[200] = "";
    struct sbx_grpc_call *call =
        sbx_grpc_call_start(c, PROC_PATH_START, sreq2, slen + sizeof f99, &o, err, sizeof err);
    free(sreq2);
    /* Output may come in events of any size: collect it (bounded). */
    char out[256];
    size_t out_len = 0;
    bool saw_init = false, saw_exit = false, concluded = false;
    int32_t pid = 0;
    for (int k = 0; call && k < 2000 && !concluded; k++) {
        const uint8_t *msg;
        size_t mlen;
        int x = sbx_grpc_call_next(call, 10000, &msg, &mlen);
        if (x == SBX_GRPC_NEXT_MESSAGE) {
            Process__V1__StartResponse *ev = process__v1__start_response__unpack(NULL, mlen, msg);
            if (ev && ev->event_case == PROCESS__V1__START_RESPONSE__EVENT_INIT && ev->init) {
                saw_init = true;
                pid = ev->init->process_id;
                case_track_process(ctx, pid);
            }
            if (ev && ev->event_case == PROCESS__V1__START_RESPONSE__EVENT_STDOUT) {
                size_t take = ev->stdout.len;
                if (take > sizeof out - 1 - out_len) take = sizeof out - 1 - out_len;
                if (take) memcpy(out + out_len, ev->stdout.data, take);
                out_len += take;
            }
            if (ev && ev->event_case == PROCESS__V1__START_RESPONSE__EVENT_EXIT) {
                saw_exit = true;
                if (saw_init) case_untrack_process(ctx, pid); /* the id may be reused now */
            }
            if (ev) process__v1__start_response__free_unpacked(ev, NULL);
        } else {
            const struct sbx_grpc_result *res = sbx_grpc_call_result(call);
            bool saw_out = out_len == 9 && memcmp(out, "g4-start\n", 9) == 0;
            CASE_CHECK(ctx,
                       x == SBX_GRPC_NEXT_END && res->code == SBX_GRPC_OK && saw_init && saw_out &&
                           saw_exit,
                       "Start with an unknown field served normally (InitEvent, \"g4-start\\n\", "
                       "ExitEvent, OK)",
                       "init %d, stdout %.*s, exit %d, end %s code %d", saw_init, (int)out_len, out,
                       saw_exit, end_name(res->end), res->code);
            concluded = true;
        }
    }
    if (!call)
        case_fail(ctx, "the Start call to begin", "%s", err);
    else if (!concluded)
        case_fail(ctx, "Start with an unknown field to end", "more than 2000 messages");
    sbx_grpc_call_free(call);
}
SBX_CASE(unknown_fields, .id = "G4-001", .title = "Unknown fields in requests are ignored",
         .clauses = "G4", .level = LEVEL_MUST, .tags = "grpc", .timeout_s = 30,
         .catches = "strict decoding that rejects messages from newer clients",
         .how = "an ExecuteRequest with unknown fields 98 (fixed32) and 99 (varint) and an "
                "unknown field 100 inside its config, and a StartRequest with field 99; both "
                "must run the command normally");

static void deadline_honoured(struct case_ctx *ctx)
{
    struct sbx_grpc_conn *c = conn_or_fail(ctx);
    if (!c) return;
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "echo $$ > procs.pid; exec sleep 30"),
                            .cwd = case_dir(ctx)};
    size_t len;
    uint8_t *req = rpc_pack_execute(&spec, &len);
    case_request(ctx, "Execute sleep 30 with grpc-timeout 1 s (client waits up to 7 s)");
    struct sbx_grpc_call_opts o = {.timeout_ms = 1000, .wait_ms = 7000};
    struct sbx_grpc_result r = {0};
    uint64_t t0 = case_now_ms();
    sbx_grpc_unary(c, PROC_PATH_EXECUTE, req, len, &o, &r);
    uint64_t took = case_now_ms() - t0;
    free(req);
    /* A gRPC client fails the call with DEADLINE_EXCEEDED at its deadline
     * whatever the server does then; what the server must do is end the
     * call itself: with DEADLINE_EXCEEDED, or (as grpc-go servers do) with
     * RST_STREAM CANCEL, or a CANCELLED status, which clients map to
     * DEADLINE_EXCEEDED once their deadline passed. Not before it, though. */
    bool after_deadline = took >= 900;
    bool status_ok = r.end == SBX_GRPC_END_STATUS &&
                     (r.code == SBX_GRPC_DEADLINE_EXCEEDED || r.code == SBX_GRPC_CANCELLED);
    bool server_ended = after_deadline && (status_ok || r.end == SBX_GRPC_END_RESET);
    CASE_CHECK(ctx, server_ended,
               "the server ending the call at the deadline (DEADLINE_EXCEEDED, or a reset)",
               "%s, code %s after %llu ms%s", end_name(r.end), sbx_grpc_code_name(r.code),
               (unsigned long long)took,
               r.end == SBX_GRPC_END_TIMEOUT ? " (the server ignored grpc-timeout)"
               : !after_deadline             ? " (before the 1 s deadline)"
                                             : "");
    if (server_ended && r.end == SBX_GRPC_END_RESET)
        case_note(ctx, "the deadline ended with RST_STREAM (code %u) rather than a status",
                  (unsigned)r.rst_code);
    else if (server_ended && r.code == SBX_GRPC_CANCELLED)
        case_note(ctx, "the deadline ended with status CANCELLED rather than DEADLINE_EXCEEDED");
    sbx_grpc_result_free(&r);
    if (server_ended) {
        int gone = pu_wait_pids_gone(ctx, "procs.pid", 5000);
        pu_expect_pids_gone(ctx, "procs.pid", gone, "the process gone after the deadline",
                            "sleep 30 still runs 5 s after the deadline");
    } else {
        pu_kill_pidfile(ctx, "procs.pid");
    }
}
SBX_CASE(deadline_honoured, .id = "G5-001",
         .title = "A grpc-timeout deadline ends Execute with DEADLINE_EXCEEDED and kills it",
         .clauses = "G5,P17", .level = LEVEL_SHOULD, .tags = "grpc", .timeout_s = 30,
         .catches = "grpc-timeout ignored by the server (the call runs on), the process left "
                    "running after the deadline",
         .how = "Execute of `sleep 30` with grpc-timeout 1 s while the client itself waits 7 s; "
                "the server must end it after 1 s with DEADLINE_EXCEEDED (or RST_STREAM / "
                "CANCELLED, which gRPC clients report as DEADLINE_EXCEEDED past their "
                "deadline) and the process (pidfile) must be gone within 5 s");

/* Echo check of one live `cat` stream: its own line in, eof, the line out. */
static void echo_through(struct case_ctx *ctx, struct pu_stream *ps, int i)
{
    char line[32];
    snprintf(line, sizeof line, "s%d\n", i);
    int c1 = rpc_write_stdin(ctx, ps->pid, line, strlen(line));
    int c2 = rpc_close_stdin(ctx, ps->pid);
    if (!CASE_CHECK(ctx, c1 == 0 && c2 == 0, "WriteStdin on every stream's process",
                    "stream %d: statuses %d, %d", i, c1, c2))
        return;
    if (pu_finish(ps, 15000))
        CASE_CHECK(ctx, ps->out_len == strlen(line) && memcmp(ps->out, line, ps->out_len) == 0,
                   "each stream carrying its own process's output", "stream %d: %.*s", i,
                   (int)ps->out_len, ps->out ? (const char *)ps->out : "");
}

static void many_streams(struct case_ctx *ctx)
{
    enum { N = 120, NEED = 100 };
    /* The streams get a connection of their own, so that the control calls
     * (WriteStdin, SendSignal) on the shared one never queue behind them
     * when the server's stream limit is exactly what G6 asks for. */
    char err[256] = "";
    struct sbx_grpc_conn_opts co = {0};
    if (!rpc_grpc_usable(ctx)) return;
    struct sbx_grpc_conn *sc = grpc_dial(case_grpc_addr(ctx), &co, err, sizeof err);
    if (!sc) {
        case_fail(ctx, "a gRPC connection to the endpoint", "%s", err);
        return;
    }
    /* Take in the server's SETTINGS (its stream limit) before opening streams. */
    sbx_grpc_conn_pump(sc, 500);
    struct pu_stream *ps = calloc(N, sizeof *ps);
    char(*labels)[24] = calloc(N, sizeof *labels);
    if (!ps || !labels) {
        free(ps);
        free(labels);
        sbx_grpc_conn_close(sc);
        case_error(ctx, "out of memory");
        return;
    }
    int begun = 0;
    for (int i = 0; i < N; i++) {
        snprintf(labels[i], sizeof labels[i], "cat #%d", i);
        ps[i].label = labels[i];
        ps[i].conn = sc;
        struct rpc_spec spec = {.argv = PU_ARGV("cat"), .cwd = case_dir(ctx)};
        if (!pu_begin(ctx, &ps[i], &spec, NULL)) break;
        begun++;
    }
    case_request(ctx, "%d Start {command: [\"cat\"]} streams on one connection", begun);
    /* Wait for InitEvents until all came, or nothing new came for a while:
     * 3 s once NEED are live (the rest may wait for the server's stream
     * limit, which a client queues behind), 10 s before. */
    int inited = 0, refused = 0, other_end = 0;
    uint64_t start = case_now_ms(), last = start;
    while (case_now_ms() - start < 40000) {
        sbx_grpc_conn_pump(sc, 100);
        int now_inited = 0;
        refused = other_end = 0;
        for (int i = 0; i < begun; i++) {
            while (!ps[i].have_init && !ps[i].ended && pu_pump(&ps[i], 0) != PEV_TIMEOUT)
                ;
            if (ps[i].have_init)
                now_inited++;
            else if (ps[i].ended && strstr(ps[i].end_msg, "refused"))
                refused++;
            else if (ps[i].ended)
                other_end++;
        }
        if (now_inited > inited) last = case_now_ms();
        inited = now_inited;
        if (inited + refused + other_end == begun) break;
        if (case_now_ms() - last > (inited >= NEED ? 3000u : 10000u)) break;
    }
    int live = 0;
    for (int i = 0; i < begun; i++)
        live += ps[i].have_init && !ps[i].have_exit && !ps[i].ended;
    if (live < N)
        case_note(ctx,
                  "%d of %d streams live at once (%d refused with REFUSED_STREAM, %d "
                  "waiting for a free stream slot)",
                  live, N, refused, begun - inited - refused - other_end);
    bool ok = CASE_CHECK(ctx, begun == N && live >= NEED,
                         "at least 100 Start streams live at once on one HTTP/2 connection",
                         "%d of %d streams got their InitEvent and stayed open", live, begun);
    for (int i = 0; i < begun && other_end; i++)
        if (!ps[i].have_init && ps[i].ended && !strstr(ps[i].end_msg, "refused")) {
            case_fail(ctx, "every Start stream served (or refused for the stream limit)",
                      "stream %d ended with status %d (%s) and no InitEvent", i, ps[i].end_code,
                      ps[i].end_msg);
            break;
        }
    if (ok && !case_failed(ctx)) {
        /* Each live stream gets its own line; then the ones that waited for
         * a free slot must start and work too. */
        for (int i = 0; i < begun && !case_failed(ctx); i++)
            if (ps[i].have_init) echo_through(ctx, &ps[i], i);
        for (int i = 0; i < begun && !case_failed(ctx); i++)
            if (!ps[i].have_init && !ps[i].ended && pu_wait_init(&ps[i], 15000))
                echo_through(ctx, &ps[i], i);
    }
    /* Cancel what is left before freeing: a cancelled stream ends its
     * process (P17) and the runner kills what is still tracked. */
    for (int i = 0; i < begun; i++)
        if (!ps[i].ended) {
            rpc_cancel(ps[i].s);
            ps[i].ended = true;
        }
    for (int i = 0; i < begun; i++)
        pu_free(&ps[i]);
    sbx_grpc_conn_close(sc);
    free(ps);
    free(labels);
}
SBX_CASE(many_streams, .id = "G6-001",
         .title = "At least 100 concurrent Start streams multiplex on one HTTP/2 connection",
         .clauses = "G6", .level = LEVEL_MUST, .tags = "grpc,concurrency", .timeout_s = 90,
         .catches = "a low concurrent-stream limit (fewer than 100 streams served at once), "
                    "streams crossed",
         .how = "opens 120 Start streams of `cat` on one connection of their own; at least 100 "
                "must get their InitEvent and stay open together (streams beyond the server's "
                "advertised limit may wait, as clients queue them); then every stream gets "
                "its own line and eof over the shared connection and must echo exactly that "
                "line");
