/* SPDX-License-Identifier: Apache-2.0 */
/* The handler's side of a server call (sbx_grpc_server.h): sending
 * messages, metadata and the status, cancellation, and what the handler may
 * read of the request. */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_transport.h" /* sbx_grpc_now_ms */
#include "server_call.h"

/* Bytes were added to the call's queue: headers, flow and the socket. */
static void queued(struct sbx_grpc_server_call *call)
{
    if (!call->stall_since_ms) call->stall_since_ms = sbx_grpc_now_ms();
    if (call->q.bytes >= call->low_water) call->writable_armed = true;
    sbx_grpc_scall_ensure_headers(call);
    if (call->data_deferred) {
        call->data_deferred = false;
        nghttp2_session_resume_data(call->conn->session, call->stream_id);
    }
    sbx_grpc_sconn_kick(call->conn);
}

int sbx_grpc_server_call_send_messagev(struct sbx_grpc_server_call *call, const struct iovec *parts,
                                       size_t n_parts)
{
    size_t len = 0;
    for (size_t i = 0; i < n_parts; i++) {
        if (parts[i].iov_len && !parts[i].iov_base) return SBX_GRPC_SEND_INVALID;
        len += parts[i].iov_len;
        if (len > UINT32_MAX) return SBX_GRPC_SEND_INVALID;
    }
    if (!call->conn || !call->stream_attached || call->cancelled || call->handler_done ||
        call->rejected || call->status_submitted)
        return SBX_GRPC_SEND_CLOSED;
    if (call->q.bytes + len + SBX_GRPC_PREFIX_LEN > call->srv->opts.max_call_queue) {
        call->writable_armed = true;
        return SBX_GRPC_SEND_FULL;
    }
    if (sbx_grpc_msg_queue_push(&call->q, &call->srv->out_pool, parts, n_parts, len) < 0)
        return SBX_GRPC_SEND_FULL;
    queued(call);
    return SBX_GRPC_SEND_OK;
}

static bool can_send(const struct sbx_grpc_server_call *call)
{
    return call->conn && call->stream_attached && !call->cancelled && !call->handler_done &&
           !call->rejected && !call->status_submitted;
}

uint8_t *sbx_grpc_server_call_reserve(struct sbx_grpc_server_call *call, size_t cap)
{
    if (!can_send(call) || cap > UINT32_MAX || call->q.bytes + cap > call->srv->opts.max_call_queue)
        return NULL;
    call->reserved = cap;
    return sbx_grpc_msg_queue_reserve(&call->q, &call->srv->out_pool, cap);
}

int sbx_grpc_server_call_commit(struct sbx_grpc_server_call *call, size_t len)
{
    size_t cap = call->reserved;
    call->reserved = 0;
    if (len > cap) return SBX_GRPC_SEND_INVALID;
    if (!can_send(call)) return SBX_GRPC_SEND_CLOSED;
    if (len == 0) return SBX_GRPC_SEND_OK;
    sbx_grpc_msg_queue_commit(&call->q, len);
    queued(call);
    return SBX_GRPC_SEND_OK;
}

int sbx_grpc_server_call_send_message(struct sbx_grpc_server_call *call, const void *msg,
                                      size_t len)
{
    if (len > UINT32_MAX || (len && !msg)) return SBX_GRPC_SEND_INVALID;
    struct iovec part = {(void *)(uintptr_t)msg, len};
    return sbx_grpc_server_call_send_messagev(call, &part, 1);
}

size_t sbx_grpc_server_call_queued(const struct sbx_grpc_server_call *call)
{
    return call->q.bytes;
}

void sbx_grpc_server_call_on_writable(struct sbx_grpc_server_call *call, size_t low_water,
                                      void (*on_writable)(struct sbx_grpc_server_call *, void *),
                                      void *user)
{
    call->low_water = low_water ? low_water : call->srv->opts.writable_low_water;
    call->on_writable = on_writable;
    call->on_writable_user = user;
}

void sbx_grpc_server_call_on_cancel(struct sbx_grpc_server_call *call,
                                    void (*on_cancel)(struct sbx_grpc_server_call *, void *,
                                                      enum sbx_grpc_cancel_reason),
                                    void *user)
{
    call->on_cancel = on_cancel;
    call->on_cancel_user = user;
    if (on_cancel && call->cancelled && call->handler_owned && !call->handler_done &&
        !call->cancel_notified)
        sbx_grpc_scall_schedule(call, N_CANCEL);
}

int sbx_grpc_server_call_add_metadata(struct sbx_grpc_server_call *call, const char *name,
                                      const char *value)
{
    if (!name || !value || call->status_submitted || call->handler_done ||
        !sbx_grpc_header_name_ok(name, strlen(name)) || strncmp(name, "grpc-", 5) == 0)
        return -1;
    for (const char *p = value; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f) return -1;
    return sbx_grpc_skv_add(&call->md, &call->n_md, name, strlen(name), value, strlen(value));
}

static void handler_release(struct sbx_grpc_server_call *call)
{
    if (call->handler_done) return;
    call->handler_done = true;
    if (call->handler_owned) {
        call->handler_owned = false;
        sbx_grpc_scall_unref(call);
    }
}

void sbx_grpc_server_call_finish(struct sbx_grpc_server_call *call, int code, const char *message)
{
    if (!call || call->handler_done) return;
    if (call->conn && call->stream_attached && !call->cancelled && !call->status_submitted &&
        !call->rejected) {
        if (!call->headers_sent && call->srv->opts.never_trailers_only)
            sbx_grpc_scall_ensure_headers(call); /* then the status follows as trailers */
        if (!call->headers_sent) {
            sbx_grpc_scall_submit_status(call, code, message);
        } else {
            call->status_code = code;
            free(call->status_message);
            call->status_message = message ? strdup(message) : NULL;
            call->finish_pending = true;
            if (call->data_deferred) {
                call->data_deferred = false;
                nghttp2_session_resume_data(call->conn->session, call->stream_id);
            }
            sbx_grpc_sconn_kick(call->conn);
        }
    }
    handler_release(call);
}

void sbx_grpc_server_call_release(struct sbx_grpc_server_call *call)
{
    if (!call || call->handler_done) return;
    if (call->conn && call->stream_attached && !call->status_submitted) {
        nghttp2_submit_rst_stream(call->conn->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                  NGHTTP2_CANCEL);
        call->cancelled = true;
        sbx_grpc_sconn_kick(call->conn);
    }
    handler_release(call);
}

bool sbx_grpc_server_call_cancelled(const struct sbx_grpc_server_call *call)
{
    return call->cancelled;
}

const char *sbx_grpc_server_call_path(const struct sbx_grpc_server_call *call)
{
    return call->path;
}

const char *sbx_grpc_server_call_header(const struct sbx_grpc_server_call *call, const char *name)
{
    for (size_t i = 0; i < call->n_hdrs; i++)
        if (strcmp(call->hdrs[i].name, name) == 0) return call->hdrs[i].value;
    return NULL;
}

int64_t sbx_grpc_server_call_deadline_left_ms(const struct sbx_grpc_server_call *call)
{
    if (!call->deadline_ms) return -1;
    int64_t left = call->deadline_ms - sbx_grpc_now_ms();
    return left > 0 ? left : 0;
}

void sbx_grpc_server_call_set_user(struct sbx_grpc_server_call *call, void *user)
{
    call->user = user;
}

void *sbx_grpc_server_call_get_user(const struct sbx_grpc_server_call *call)
{
    return call->user;
}
