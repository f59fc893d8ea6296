/* SPDX-License-Identifier: Apache-2.0 */
/* One gRPC server connection as a sans-I/O nghttp2 server session: bytes
 * in (sbx_grpc_sconn_recv), bytes out (sbx_grpc_sconn_fill, sbx_grpc_sconn_next_output,
 * sbx_grpc_sconn_written), the deadlines of its calls, GOAWAY and the connection's end. What a call
 * receives and sends is in server_request.c and server_response.c; handler
 * callbacks are delivered by sbx_grpc_server_dispatch (server_call.c), never from
 * inside nghttp2. */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_transport.h" /* sbx_grpc_now_ms */
#include "server_call.h"

struct sconn *sbx_grpc_sconn_new(struct sbx_grpc_server *srv, void (*want_write)(void *io),
                                 void *io)
{
    struct sconn *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->srv = srv;
    c->want_write = want_write;
    c->io = io;
    nghttp2_session_callbacks *cbs;
    if (nghttp2_session_callbacks_new(&cbs) != 0) {
        free(c);
        return NULL;
    }
    sbx_grpc_server_request_callbacks(cbs);
    sbx_grpc_server_response_callbacks(cbs);
    int rv = nghttp2_session_server_new(&c->session, cbs, c);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0) {
        free(c);
        return NULL;
    }
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, srv->opts.max_concurrent_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, srv->opts.initial_stream_window},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, srv->opts.max_header_list},
    };
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]);
    return c;
}

int sbx_grpc_sconn_recv(struct sconn *c, const uint8_t *data, size_t len)
{
    if (c->fatal) return -1;
    ssize_t rv = nghttp2_session_mem_recv(c->session, data, len);
    if (rv < 0) {
        c->fatal = true;
        return -1;
    }
    return 0;
}

ssize_t sbx_grpc_sconn_fill(struct sconn *c, size_t want)
{
    c->fill_want = want ? want : 1;
    while (c->out.unsent < c->fill_want) {
        const uint8_t *d;
        ssize_t n = nghttp2_session_mem_send(c->session, &d);
        if (n < 0 ||
            (n > 0 && sbx_grpc_out_list_copy(&c->out, &c->srv->out_pool, d, (size_t)n) < 0)) {
            c->fatal = true;
            return -1;
        }
        if (n == 0) break; /* nothing more, or a DATA frame paused at fill_want */
    }
    return (ssize_t)c->out.unsent;
}

size_t sbx_grpc_sconn_next_output(struct sconn *c, struct iovec *iov, size_t max_iov,
                                  size_t max_bytes, size_t *bytes)
{
    return sbx_grpc_out_list_next(&c->out, iov, max_iov, max_bytes, bytes);
}

void sbx_grpc_sconn_written(struct sconn *c, size_t len)
{
    sbx_grpc_out_list_written(&c->out, &c->srv->out_pool, len);
}

ssize_t sbx_grpc_sconn_send(struct sconn *c, const uint8_t **data)
{
    sbx_grpc_sconn_written(c, c->pulled);
    c->pulled = 0;
    if (sbx_grpc_sconn_fill(c, 1) < 0) return -1;
    struct iovec iov;
    size_t n;
    if (sbx_grpc_sconn_next_output(c, &iov, 1, SIZE_MAX, &n) == 0) return 0;
    *data = iov.iov_base;
    c->pulled = n;
    return (ssize_t)n;
}

/* A request still arriving: its deadline (0 when none). */
static int64_t request_deadline(const struct sbx_grpc_server_call *call)
{
    return call->half_closed || call->rejected || !call->stream_attached
               ? 0
               : call->request_deadline_ms;
}

/* A response the peer takes none of: when it counts as stalled (0 when
 * there is no bound or nothing waits). */
static int64_t stall_deadline(const struct sbx_grpc_server_call *call)
{
    unsigned t = call->srv->opts.send_stall_timeout_ms;
    if (!t || !call->stall_since_ms || !call->q.bytes || !call->stream_attached || call->rejected)
        return 0;
    return call->stall_since_ms + t;
}

bool sbx_grpc_sconn_handshaken(const struct sconn *c)
{
    return c->handshaken;
}

int64_t sbx_grpc_sconn_next_deadline(const struct sconn *c)
{
    int64_t best = -1;
    for (const struct sbx_grpc_server_call *call = c->calls; call; call = call->next) {
        if (call->deadline_ms && call->stream_attached && !call->status_submitted &&
            (best < 0 || call->deadline_ms < best))
            best = call->deadline_ms;
        int64_t rd = request_deadline(call);
        if (rd && (best < 0 || rd < best)) best = rd;
        int64_t sd = stall_deadline(call);
        if (sd && (best < 0 || sd < best)) best = sd;
    }
    return best;
}

void sbx_grpc_sconn_expire(struct sconn *c, int64_t now_ms)
{
    for (struct sbx_grpc_server_call *call = c->calls; call; call = call->next) {
        int64_t sd = stall_deadline(call);
        if (sd && sd <= now_ms) {
            /* Neither the response nor its status can reach the peer: reset
             * the stream and free what waited for its window. */
            call->stall_since_ms = 0;
            call->rejected = true;
            call->status_submitted = true;
            call->finish_pending = false;
            sbx_grpc_scall_drop_queue(call);
            sbx_grpc_scall_drop_requests(call);
            nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                      NGHTTP2_CANCEL);
            sbx_grpc_scall_cancel(call, SBX_GRPC_CANCEL_STALLED);
            sbx_grpc_sconn_kick(c);
            continue;
        }
        int64_t rd = request_deadline(call);
        if (rd && rd <= now_ms) {
            /* A half-open request: nothing was delivered, nothing is owed. */
            call->request_deadline_ms = 0;
            call->rejected = true;
            call->status_submitted = true;
            sbx_grpc_scall_drop_requests(call);
            nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                      NGHTTP2_CANCEL);
            sbx_grpc_scall_cancel(call, SBX_GRPC_CANCEL_PROTOCOL);
            sbx_grpc_sconn_kick(c);
            continue;
        }
        if (call->deadline_ms && call->deadline_ms <= now_ms && call->stream_attached &&
            !call->status_submitted) {
            call->deadline_ms = 0;
            if (call->srv->opts.deadline_resets_stream) {
                /* Nothing more goes out on the stream: no status, a reset. */
                call->rejected = true;
                call->status_submitted = true;
                sbx_grpc_scall_drop_requests(call);
                nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                          NGHTTP2_CANCEL);
                sbx_grpc_scall_cancel(call, SBX_GRPC_CANCEL_DEADLINE);
                sbx_grpc_sconn_kick(c);
            } else {
                sbx_grpc_scall_library_status(call, SBX_GRPC_DEADLINE_EXCEEDED, "deadline exceeded",
                                              SBX_GRPC_CANCEL_DEADLINE);
            }
        }
    }
}

void sbx_grpc_sconn_goaway(struct sconn *c)
{
    nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(c->session), NGHTTP2_NO_ERROR,
                          NULL, 0);
    sbx_grpc_sconn_kick(c);
}

bool sbx_grpc_sconn_finished(const struct sconn *c)
{
    return c->fatal || (!nghttp2_session_want_read(c->session) &&
                        !nghttp2_session_want_write(c->session) && c->out.unsent == 0);
}

size_t sbx_grpc_sconn_streams(const struct sconn *c)
{
    return c->streams;
}

void sbx_grpc_sconn_lost(struct sconn *c, enum sbx_grpc_cancel_reason reason)
{
    struct sbx_grpc_server_call *call = c->calls;
    while (call) {
        struct sbx_grpc_server_call *next = call->next;
        if (call->stream_attached) {
            call->stream_attached = false;
            nghttp2_session_set_stream_user_data(c->session, call->stream_id, NULL);
            c->streams--;
            sbx_grpc_scall_cancel(call, reason);
            call->cancelled = true;
            sbx_grpc_scall_unref(call); /* the stream's reference */
        }
        call = next;
    }
}

void sbx_grpc_sconn_free(struct sconn *c)
{
    if (!c) return;
    sbx_grpc_sconn_lost(c, SBX_GRPC_CANCEL_CONNECTION);
    /* Handler-held calls outlive the connection, detached. */
    while (c->calls)
        /* a listed call has conn set: call_unref unlinked every freed one */
        // NOLINTNEXTLINE(clang-analyzer-unix.Malloc)
        sbx_grpc_scall_unlink(c->calls);
    nghttp2_session_del(c->session);
    sbx_grpc_out_list_clear(&c->out, &c->srv->out_pool);
    free(c);
}
