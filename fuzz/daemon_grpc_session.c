/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's gRPC server session (the sans-I/O HTTP/2 core under
 * ProcessService) fed arbitrary client bytes, with handlers of every kind
 * the service registers: unary (answers at once), server streaming (sends
 * several messages, then a status), bidirectional (echoes each message) and
 * one that holds its call until cancelled.
 *
 * Oracle: beyond no crash, no leak and no hang, every call the session
 * handed to a handler ends: once the connection is lost, no call is left.
 *
 * Input: byte 0 says whether the HTTP/2 client preface is prepended and
 * where the input is split into reads; the rest is what the client sent. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "server_internal.h"

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
static struct sbx_grpc_server_call *held[8];
static size_t n_held;

static void on_unary(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *u)
{
    (void)u;
    sbx_grpc_server_call_add_metadata(call, "x-seen", "1");
    sbx_grpc_server_call_send_message(call, msg, len);
    sbx_grpc_server_call_finish(call, len ? SBX_GRPC_OK : SBX_GRPC_INVALID_ARGUMENT, "100% done");
}

static void on_stream(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *u)
{
    (void)u;
    for (int i = 0; i < 4; i++)
        sbx_grpc_server_call_send_message(call, msg, len);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

static void on_bidi(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *u)
{
    (void)u;
    sbx_grpc_server_call_send_message(call, msg, len);
}

static void on_bidi_end(struct sbx_grpc_server_call *call, void *u)
{
    (void)u;
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

static void on_cancel(struct sbx_grpc_server_call *call, void *u, enum sbx_grpc_cancel_reason why)
{
    (void)u;
    (void)why;
    for (size_t i = 0; i < n_held; i++)
        if (held[i] == call) held[i] = held[--n_held];
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

static void on_bidi_cancel(struct sbx_grpc_server_call *call, void *u,
                           enum sbx_grpc_cancel_reason why)
{
    (void)u;
    (void)why;
    sbx_grpc_server_call_release(call);
}

static void on_hold(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *u)
{
    (void)msg;
    (void)len;
    (void)u;
    if (n_held == sizeof held / sizeof held[0]) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_RESOURCE_EXHAUSTED, "busy");
        return;
    }
    held[n_held++] = call;
    sbx_grpc_server_call_on_cancel(call, on_cancel, NULL);
}

/* Bidi calls learn of their end only through on_cancel or on_half_close. */
static void on_bidi_first(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                          void *u)
{
    if (!sbx_grpc_server_call_get_user(call)) {
        sbx_grpc_server_call_set_user(call, call);
        sbx_grpc_server_call_on_cancel(call, on_bidi_cancel, NULL);
    }
    on_bidi(call, msg, len, u);
}

static struct sbx_grpc_server *make_server(void)
{
    struct sbx_grpc_server_opts so = {.max_recv_message = 64 * 1024, .max_call_queue = 256 * 1024};
    struct sbx_grpc_server *s = sbx_grpc_server_new(NULL, &so);
    FUZZ_CHECK(s != NULL, "server");
    const struct sbx_grpc_method ms[] = {
        {"/process.v1.ProcessService/Execute", SBX_GRPC_METHOD_UNARY, on_unary, NULL, NULL},
        {"/process.v1.ProcessService/Start", SBX_GRPC_METHOD_SERVER_STREAMING, on_stream, NULL,
         NULL},
        {"/process.v1.ProcessService/WriteStdin", SBX_GRPC_METHOD_BIDI_STREAMING, on_bidi_first,
         on_bidi_end, NULL},
        {"/process.v1.ProcessService/SendSignal", SBX_GRPC_METHOD_UNARY, on_hold, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        FUZZ_CHECK(sbx_grpc_server_add_method(s, &ms[i]) == 0, "add method");
    return s;
}

/* Reads and drops what the session wants to send, as a peer would. */
static void drain(struct sbx_grpc_server *s, struct sconn *c)
{
    sbx_grpc_server_dispatch(s);
    for (int i = 0; i < 10000; i++) {
        const uint8_t *out;
        ssize_t n = sbx_grpc_sconn_send(c, &out);
        if (n <= 0) return;
        sbx_grpc_server_dispatch(s);
    }
    FUZZ_CHECK(0, "the session never stops sending");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    struct sbx_grpc_server *s = make_server();
    struct sconn *c = sbx_grpc_sconn_new(s, NULL, NULL);
    FUZZ_CHECK(c != NULL, "session");
    n_held = 0;
    bool dead = false;
    if (mode & 1) dead = sbx_grpc_sconn_recv(c, (const uint8_t *)preface, sizeof preface - 1) < 0;
    drain(s, c);
    size_t chunk = (mode >> 1) ? (size_t)(mode >> 1) * 7 : size;
    for (size_t off = 0; off < size && !dead; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        dead = sbx_grpc_sconn_recv(c, data + off, n) < 0;
        drain(s, c);
        sbx_grpc_sconn_expire(c, INT64_MAX);
        drain(s, c);
    }
    if (!dead) {
        sbx_grpc_sconn_goaway(c);
        drain(s, c);
    }
    sbx_grpc_sconn_lost(c, SBX_GRPC_CANCEL_CONNECTION);
    sbx_grpc_server_dispatch(s);
    sbx_grpc_sconn_free(c);
    sbx_grpc_server_dispatch(s);
    FUZZ_CHECK(n_held == 0, "%zu held calls were never cancelled", n_held);
    FUZZ_CHECK(sbx_grpc_server_active_calls(s) == 0, "%zu calls left after the connection went",
               sbx_grpc_server_active_calls(s));
    sbx_grpc_server_free(s);
    return 0;
}
