/* SPDX-License-Identifier: Apache-2.0 */
/* A call's request as nghttp2 delivers it: the call is created with the
 * stream, its headers are checked (method, content-type, grpc-timeout, the
 * method table) and its messages deframed; the stream's end or reset ends
 * the request. */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_transport.h" /* sbx_grpc_now_ms */
#include "server_call.h"

static struct sbx_grpc_server_call *stream_call(nghttp2_session *s, int32_t id)
{
    return nghttp2_session_get_stream_user_data(s, id);
}

static int on_begin_headers(nghttp2_session *s, const nghttp2_frame *frame, void *user)
{
    struct sconn *c = user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    struct sbx_grpc_server_call *call = calloc(1, sizeof *call);
    if (!call) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    call->srv = c->srv;
    call->conn = c;
    call->stream_id = frame->hd.stream_id;
    call->refs = 1;
    call->stream_attached = true;
    call->low_water = c->srv->opts.writable_low_water;
    sbx_grpc_deframer_init(&call->deframer, c->srv->opts.max_recv_message);
    call->next = c->calls;
    if (c->calls) c->calls->prev = call;
    c->calls = call;
    c->srv->live_calls++;
    c->streams++;
    nghttp2_session_set_stream_user_data(s, frame->hd.stream_id, call);
    return 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name,
                     size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags, void *user)
{
    (void)flags;
    struct sconn *c = user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0; /* request trailers carry nothing we use */
    struct sbx_grpc_server_call *call = stream_call(s, frame->hd.stream_id);
    if (!call || call->headers_too_large) return 0;
    call->header_bytes += nlen + vlen + 32;
    if (call->header_bytes > c->srv->opts.max_header_list) {
        call->headers_too_large = true;
        return 0;
    }
    const char *n = (const char *)name, *v = (const char *)value;
    char **slot = NULL;
    if (nlen == 5 && memcmp(n, ":path", 5) == 0)
        slot = &call->path;
    else if (nlen == 7 && memcmp(n, ":method", 7) == 0)
        slot = &call->http_method;
    else if (nlen == 12 && memcmp(n, "content-type", 12) == 0)
        slot = &call->content_type;
    else if (nlen == 12 && memcmp(n, "grpc-timeout", 12) == 0)
        slot = &call->timeout;
    if (slot) {
        free(*slot);
        *slot = strndup(v, vlen);
    }
    if (nlen > 0 && n[0] != ':') sbx_grpc_skv_add(&call->hdrs, &call->n_hdrs, n, nlen, v, vlen);
    return 0;
}

/* The request HEADERS are complete: accept or answer at once. */
static void request_headers_done(struct sbx_grpc_server_call *call)
{
    struct sconn *c = call->conn;
    if (call->headers_too_large) {
        char msg[96];
        snprintf(msg, sizeof msg, "request headers exceed %u bytes",
                 (unsigned)c->srv->opts.max_header_list);
        sbx_grpc_scall_library_status(call, SBX_GRPC_RESOURCE_EXHAUSTED, msg,
                                      SBX_GRPC_CANCEL_PROTOCOL);
        return;
    }
    if (!call->http_method || strcmp(call->http_method, "POST") != 0) {
        sbx_grpc_scall_http_reject(call, "405");
        return;
    }
    if (!call->content_type ||
        !sbx_grpc_content_type_ok(call->content_type, strlen(call->content_type))) {
        sbx_grpc_scall_http_reject(call, "415");
        return;
    }
    if (call->timeout) {
        uint64_t ns;
        if (sbx_grpc_timeout_parse(call->timeout, strlen(call->timeout), &ns) < 0) {
            sbx_grpc_scall_library_status(call, SBX_GRPC_INTERNAL, "malformed grpc-timeout",
                                          SBX_GRPC_CANCEL_PROTOCOL);
            return;
        }
        uint64_t ms = ns / 1000000u + (ns % 1000000u ? 1 : 0);
        if (ms > (uint64_t)INT64_MAX / 2) ms = (uint64_t)INT64_MAX / 2;
        call->deadline_ms = sbx_grpc_now_ms() + (int64_t)ms;
        if (call->deadline_ms == 0) call->deadline_ms = 1;
    }
    call->method =
        call->path ? sbx_grpc_server_find_method(c->srv, call->path, strlen(call->path)) : NULL;
    if (call->method && call->method->m.kind != SBX_GRPC_METHOD_BIDI_STREAMING &&
        c->srv->opts.request_timeout_ms) {
        call->request_deadline_ms = sbx_grpc_now_ms() + c->srv->opts.request_timeout_ms;
    }
    if (!call->method) {
        char msg[300];
        snprintf(msg, sizeof msg, "unknown method %.256s", call->path ? call->path : "(none)");
        int code = c->srv->opts.unknown_method_status
                       ? c->srv->opts.unknown_method_status(call->path ? call->path : "",
                                                            c->srv->opts.unknown_method_user)
                       : SBX_GRPC_UNIMPLEMENTED;
        sbx_grpc_scall_library_status(call, code, msg, SBX_GRPC_CANCEL_PROTOCOL);
    }
}

static void request_complete(struct sbx_grpc_server_call *call)
{
    call->half_closed = true;
    if (call->rejected) return;
    if (!sbx_grpc_deframer_idle(&call->deframer)) {
        sbx_grpc_scall_library_status(call, SBX_GRPC_INTERNAL, "request ended inside a message",
                                      SBX_GRPC_CANCEL_PROTOCOL);
        return;
    }
    if (call->method->m.kind == SBX_GRPC_METHOD_BIDI_STREAMING) {
        sbx_grpc_scall_schedule(call, N_HALF_CLOSE);
        return;
    }
    if (call->n_requests != 1) {
        sbx_grpc_scall_library_status(call, SBX_GRPC_INTERNAL,
                                      call->n_requests
                                          ? "more than one request message for a unary request"
                                          : "no request message",
                                      SBX_GRPC_CANCEL_PROTOCOL);
        return;
    }
    sbx_grpc_scall_schedule(call, N_REQUEST);
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *frame, void *user)
{
    struct sconn *c = user;
    if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK))
        c->handshaken = true;
    struct sbx_grpc_server_call *call =
        frame->hd.stream_id ? stream_call(s, frame->hd.stream_id) : NULL;
    if (!call) return 0;
    if (frame->hd.type == NGHTTP2_RST_STREAM) {
        call->rst_received = true;
        return 0;
    }
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
        request_headers_done(call);
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        request_complete(call);
    return 0;
}

static int on_data_chunk(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data,
                         size_t len, void *user)
{
    (void)flags;
    (void)user;
    struct sbx_grpc_server_call *call = stream_call(s, id);
    if (!call || call->rejected || call->cancelled || !call->method) return 0;
    size_t pos = 0;
    while (pos < len) {
        size_t used;
        uint8_t *msg;
        size_t mlen;
        int rv = sbx_grpc_deframer_feed(&call->deframer, data + pos, len - pos, &used, &msg, &mlen);
        pos += used;
        if (rv == SBX_GRPC_DEFRAME_NEED_MORE) break;
        if (rv == SBX_GRPC_DEFRAME_TOO_LARGE) {
            char m[96];
            snprintf(m, sizeof m, "request message larger than max (%zu bytes)",
                     call->deframer.max_message);
            sbx_grpc_scall_library_status(call, SBX_GRPC_RESOURCE_EXHAUSTED, m,
                                          SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        if (rv == SBX_GRPC_DEFRAME_COMPRESSED) {
            sbx_grpc_scall_library_status(
                call, SBX_GRPC_UNIMPLEMENTED,
                "compressed request message but no grpc-encoding is supported",
                SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        if (rv != SBX_GRPC_DEFRAME_MESSAGE) {
            sbx_grpc_scall_library_status(call, SBX_GRPC_INTERNAL, "invalid message flag byte",
                                          SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        call->n_requests++;
        bool bidi = call->method->m.kind == SBX_GRPC_METHOD_BIDI_STREAMING;
        if (!bidi && call->n_requests > 1) {
            free(msg);
            sbx_grpc_scall_library_status(call, SBX_GRPC_INTERNAL,
                                          "more than one request message for a unary request",
                                          SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        struct req_msg *m = calloc(1, sizeof *m);
        if (!m) {
            free(msg);
            sbx_grpc_scall_library_status(call, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory",
                                          SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        m->data = msg;
        m->len = mlen;
        if (call->req_tail)
            call->req_tail->next = m;
        else
            call->req_head = m;
        call->req_tail = m;
        if (bidi) sbx_grpc_scall_schedule(call, N_REQUEST);
    }
    return 0;
}

static int on_frame_send(nghttp2_session *s, const nghttp2_frame *frame, void *user)
{
    (void)user;
    int32_t id = frame->hd.stream_id;
    /* Our response is complete; a client still sending is told to stop. */
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) &&
        nghttp2_session_get_stream_remote_close(s, id) == 0)
        nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, id, NGHTTP2_NO_ERROR);
    return 0;
}

static int on_stream_close(nghttp2_session *s, int32_t id, uint32_t error_code, void *user)
{
    struct sconn *c = user;
    struct sbx_grpc_server_call *call = stream_call(s, id);
    if (!call) return 0;
    nghttp2_session_set_stream_user_data(s, id, NULL);
    call->stream_attached = false;
    c->streams--;
    bool clean = call->status_submitted && error_code == NGHTTP2_NO_ERROR && !call->rst_received;
    if (!clean && !call->handler_done)
        sbx_grpc_scall_cancel(call, call->rst_received ? SBX_GRPC_CANCEL_RESET
                                                       : SBX_GRPC_CANCEL_CONNECTION);
    /* The stream may close with the response complete but the handler
     * never told (it finished); nothing more to do then. */
    call->cancelled = call->cancelled || !clean;
    sbx_grpc_scall_unref(call);
    return 0;
}

void sbx_grpc_server_request_callbacks(nghttp2_session_callbacks *cbs)
{
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
}
