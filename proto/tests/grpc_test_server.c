/* SPDX-License-Identifier: Apache-2.0 */
/* A process.v1 test service on the library's server side, with canned
 * behaviour for the interop tests (not the daemon):
 *   Execute ["echo", args...]         stdout = args joined by ' ' + "\n"
 *   Execute ["fail", code, message]   ends with that status
 *   Execute ["sleep", ms]             answers after ms (from the loop)
 *   Execute ["stats"]                 stdout = "cancels=<n> deadlines=<n>"
 *   Start   ["count", n, size]        InitEvent 42, n stdout events of size bytes, exit 0
 *   Start   ["forever"]               stdout events until cancelled (backpressured)
 *   WriteStdin / SendSignal / ResizeTTY: empty response
 * Invalid request bytes: INVALID_ARGUMENT. Prints "PORT <n>" once listening.
 * Usage: grpc_test_server [--port N] [--unix PATH]; stops on SIGTERM/SIGINT. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "process.pb-c.h"
#include "process_descriptor.h"
#include "sbx_grpc_reflection.h"
#include "sbx_grpc_server.h"

#define SVC "/process.v1.ProcessService/"

static uv_loop_t *loop;
static struct sbx_grpc_server *server;
static int cancels, deadlines;

static void send_proto(struct sbx_grpc_server_call *call, const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    protobuf_c_message_pack(m, buf);
    sbx_grpc_server_call_send_message(call, buf, len);
    free(buf);
}

static void count_cancel(struct sbx_grpc_server_call *call, void *user,
                         enum sbx_grpc_cancel_reason reason)
{
    (void)user;
    cancels++;
    if (reason == SBX_GRPC_CANCEL_DEADLINE) deadlines++;
    uv_timer_t *t = sbx_grpc_server_call_get_user(call);
    if (t) uv_timer_stop(t);
    /* The timer is closed after release; the call is ours until then. */
    sbx_grpc_server_call_release(call);
    if (t) uv_close((uv_handle_t *)t, (uv_close_cb)free);
}

/* A whole decimal argument within [min, max]. */
static bool arg_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < min || v > max) return false;
    *out = v;
    return true;
}

/* ---- Execute -------------------------------------------------------------- */

static void reply_execute(struct sbx_grpc_server_call *call, const char *out)
{
    Process__V1__ExecuteResponse r = PROCESS__V1__EXECUTE_RESPONSE__INIT;
    r.stdout.data = (uint8_t *)(uintptr_t)out;
    r.stdout.len = strlen(out);
    send_proto(call, &r.base);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

static void sleep_done(uv_timer_t *t)
{
    struct sbx_grpc_server_call *call = t->data;
    sbx_grpc_server_call_set_user(call, NULL);
    reply_execute(call, "slept\n");
    uv_close((uv_handle_t *)t, (uv_close_cb)free);
}

static void on_execute(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                       void *user)
{
    (void)user;
    Process__V1__ExecuteRequest *req = process__v1__execute_request__unpack(NULL, len, msg);
    if (!req) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "invalid ExecuteRequest");
        return;
    }
    char **argv = req->config ? req->config->command : NULL;
    size_t argc = req->config ? req->config->n_command : 0;
    long num = 0;
    if (argc >= 1 && strcmp(argv[0], "echo") == 0) {
        char out[4096] = "";
        for (size_t i = 1; i < argc; i++) {
            strncat(out, argv[i], sizeof out - strlen(out) - 2);
            if (i + 1 < argc) strncat(out, " ", sizeof out - strlen(out) - 2);
        }
        strcat(out, "\n");
        reply_execute(call, out);
    } else if (argc >= 3 && strcmp(argv[0], "fail") == 0 && arg_long(argv[1], 0, 16, &num)) {
        sbx_grpc_server_call_finish(call, (int)num, argv[2]);
    } else if (argc >= 2 && strcmp(argv[0], "sleep") == 0 && arg_long(argv[1], 0, LONG_MAX, &num)) {
        uv_timer_t *t = malloc(sizeof *t);
        if (!t) {
            sbx_grpc_server_call_finish(call, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory");
            process__v1__execute_request__free_unpacked(req, NULL);
            return;
        }
        uv_timer_init(loop, t);
        t->data = call;
        sbx_grpc_server_call_set_user(call, t);
        sbx_grpc_server_call_on_cancel(call, count_cancel, NULL);
        uv_timer_start(t, sleep_done, (uint64_t)num, 0);
    } else if (argc >= 1 && strcmp(argv[0], "stats") == 0) {
        char out[64];
        snprintf(out, sizeof out, "cancels=%d deadlines=%d", cancels, deadlines);
        reply_execute(call, out);
    } else {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "unknown test command");
    }
    process__v1__execute_request__free_unpacked(req, NULL);
}

/* ---- Start ------------------------------------------------------------------ */

struct stream {
    long left; /* events still to send; < 0 = forever */
    size_t size;
};

static void pump_stream(struct sbx_grpc_server_call *call, void *user)
{
    struct stream *st = user;
    uint8_t chunk[4096];
    memset(chunk, 'x', sizeof chunk);
    /* Produce only while the peer keeps up (queue below 64 KiB). */
    while (st->left != 0 && sbx_grpc_server_call_queued(call) < 65536) {
        Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
        r.event_case = PROCESS__V1__START_RESPONSE__EVENT_STDOUT;
        r.stdout.data = chunk;
        r.stdout.len = st->size;
        send_proto(call, &r.base);
        if (st->left > 0) st->left--;
    }
    if (st->left == 0) {
        Process__V1__ExitEvent ex = PROCESS__V1__EXIT_EVENT__INIT;
        Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
        r.event_case = PROCESS__V1__START_RESPONSE__EVENT_EXIT;
        r.exit = &ex;
        send_proto(call, &r.base);
        free(st);
        sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
    }
}

static void stream_cancel(struct sbx_grpc_server_call *call, void *user,
                          enum sbx_grpc_cancel_reason reason)
{
    (void)reason;
    cancels++;
    free(user);
    sbx_grpc_server_call_release(call);
}

static void on_start(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *user)
{
    (void)user;
    Process__V1__StartRequest *req = process__v1__start_request__unpack(NULL, len, msg);
    if (!req) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "invalid StartRequest");
        return;
    }
    char **argv = req->config ? req->config->command : NULL;
    size_t argc = req->config ? req->config->n_command : 0;
    struct stream *st = calloc(1, sizeof *st);
    if (!st) {
        process__v1__start_request__free_unpacked(req, NULL);
        sbx_grpc_server_call_finish(call, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    st->size = 16;
    long n = 0, size = 0;
    if (argc >= 1 && strcmp(argv[0], "forever") == 0) {
        st->left = -1;
        st->size = 4096;
    } else if (argc >= 3 && strcmp(argv[0], "count") == 0 && arg_long(argv[1], 0, LONG_MAX, &n) &&
               arg_long(argv[2], 0, 4096, &size)) {
        st->left = n;
        st->size = (size_t)size;
    }
    process__v1__start_request__free_unpacked(req, NULL);
    Process__V1__InitEvent init = PROCESS__V1__INIT_EVENT__INIT;
    init.process_id = 42;
    Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
    r.event_case = PROCESS__V1__START_RESPONSE__EVENT_INIT;
    r.init = &init;
    send_proto(call, &r.base);
    sbx_grpc_server_call_on_cancel(call, stream_cancel, st);
    sbx_grpc_server_call_on_writable(call, 16384, pump_stream, st);
    pump_stream(call, st);
}

static void on_empty(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *user)
{
    (void)msg;
    (void)len;
    (void)user;
    send_proto(call,
               &(Process__V1__WriteStdinResponse)PROCESS__V1__WRITE_STDIN_RESPONSE__INIT.base);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

/* ---- main ------------------------------------------------------------------- */

static void on_closed(struct sbx_grpc_server *s, void *user)
{
    (void)s;
    (void)user;
}

static uv_signal_t sigterm, sigint;

static void on_signal(uv_signal_t *h, int sig)
{
    (void)h;
    (void)sig;
    sbx_grpc_server_shutdown(server, 2000, on_closed, NULL);
    uv_close((uv_handle_t *)&sigterm, NULL);
    uv_close((uv_handle_t *)&sigint, NULL);
}

int main(int argc, char **argv)
{
    long port = 0;
    const char *unix_path = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--port") == 0 && !arg_long(argv[i + 1], 0, 65535, &port)) {
            fprintf(stderr, "grpc_test_server: --port wants 0..65535, got '%s'\n", argv[i + 1]);
            return 2;
        } else if (strcmp(argv[i], "--unix") == 0) {
            unix_path = argv[i + 1];
        }
    }
    /* A peer closing mid-write must not kill the process. */
    signal(SIGPIPE, SIG_IGN);
    loop = uv_default_loop();
    server = sbx_grpc_server_new(loop, NULL);
    struct sbx_grpc_method methods[] = {
        {SVC "Execute", SBX_GRPC_METHOD_UNARY, on_execute, NULL, NULL},
        {SVC "Start", SBX_GRPC_METHOD_SERVER_STREAMING, on_start, NULL, NULL},
        {SVC "WriteStdin", SBX_GRPC_METHOD_UNARY, on_empty, NULL, NULL},
        {SVC "SendSignal", SBX_GRPC_METHOD_UNARY, on_empty, NULL, NULL},
        {SVC "ResizeTTY", SBX_GRPC_METHOD_UNARY, on_empty, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        sbx_grpc_server_add_method(server, &methods[i]);
    if (sbx_grpc_reflection_register(server, sbx_process_descriptor_set,
                                     sbx_process_descriptor_set_len) < 0) {
        fprintf(stderr, "reflection registration failed\n");
        return 1;
    }
    char err[256];
    int bound = 0;
    if (sbx_grpc_server_listen_tcp(server, "127.0.0.1", (int)port, &bound, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (unix_path && sbx_grpc_server_listen_unix(server, unix_path, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    uv_signal_init(loop, &sigterm);
    uv_signal_start(&sigterm, on_signal, SIGTERM);
    uv_signal_init(loop, &sigint);
    uv_signal_start(&sigint, on_signal, SIGINT);
    printf("PORT %d\n", bound);
    fflush(stdout);
    uv_run(loop, UV_RUN_DEFAULT);
    sbx_grpc_server_free(server);
    uv_loop_close(loop);
    return 0;
}
