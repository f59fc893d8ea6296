/* SPDX-License-Identifier: Apache-2.0 */
/* A call's response through nghttp2: headers, the status as trailers or a
 * trailers-only response, and DATA served from the call's queue by a
 * deferred data provider, so data leaves only as the peer's window allows
 * and without a copy into nghttp2. */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_transport.h" /* sbx_grpc_now_ms */
#include "server_call.h"

static void nv_add(nghttp2_nv *nv, size_t *n, const char *name, const char *value)
{
    nv[*n] = (nghttp2_nv){(uint8_t *)(uintptr_t)name, (uint8_t *)(uintptr_t)value, strlen(name),
                          strlen(value), NGHTTP2_NV_FLAG_NONE};
    (*n)++;
}

static ssize_t read_response(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
                             uint32_t *flags, nghttp2_data_source *src, void *user);

static const char *response_content_type(const struct sbx_grpc_server_call *call)
{
    return call->srv->opts.content_type ? call->srv->opts.content_type : "application/grpc";
}

/* Builds and submits the status: trailers, or a trailers-only response. */
void sbx_grpc_scall_submit_status(struct sbx_grpc_server_call *call, int code, const char *message)
{
    struct sconn *c = call->conn;
    if (!c || call->status_submitted || !call->stream_attached) return;
    call->status_submitted = true;
    char codebuf[16];
    snprintf(codebuf, sizeof codebuf, "%d", code);
    if (call->srv->opts.omit_status_message) message = NULL;
    char *enc = (message && *message) ? sbx_grpc_percent_encode(message, strlen(message)) : NULL;
    nghttp2_nv *nv = calloc(4 + call->n_md, sizeof *nv);
    if (!nv) {
        free(enc);
        nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                  NGHTTP2_INTERNAL_ERROR);
        return;
    }
    size_t n = 0;
    if (!call->headers_sent) {
        nv_add(nv, &n, ":status", "200");
        nv_add(nv, &n, "content-type", response_content_type(call));
    }
    nv_add(nv, &n, "grpc-status", codebuf);
    if (enc) nv_add(nv, &n, "grpc-message", enc);
    for (size_t i = 0; i < call->n_md; i++)
        nv_add(nv, &n, call->md[i].name, call->md[i].value);
    if (!call->headers_sent) {
        call->headers_sent = true;
        nghttp2_submit_response(c->session, call->stream_id, nv, n, NULL);
    } else {
        nghttp2_submit_trailer(c->session, call->stream_id, nv, n);
    }
    free(nv);
    free(enc);
    sbx_grpc_skv_free(call->md, call->n_md);
    call->md = NULL;
    call->n_md = 0;
    sbx_grpc_sconn_kick(c);
}

/* Ends a call from the library side (reject, deadline, protocol error). */
void sbx_grpc_scall_library_status(struct sbx_grpc_server_call *call, int code, const char *message,
                                   enum sbx_grpc_cancel_reason reason)
{
    call->rejected = true;
    sbx_grpc_scall_drop_queue(call);
    sbx_grpc_scall_drop_requests(call);
    if (call->headers_sent && !call->status_submitted) {
        /* Messages may be in flight: the trailers follow at once. */
        call->finish_pending = false;
        sbx_grpc_scall_submit_status(call, code, message);
        if (call->data_deferred && call->conn) {
            call->data_deferred = false;
            nghttp2_session_resume_data(call->conn->session, call->stream_id);
        }
    } else {
        sbx_grpc_scall_submit_status(call, code, message);
    }
    sbx_grpc_scall_cancel(call, reason);
}

void sbx_grpc_scall_http_reject(struct sbx_grpc_server_call *call, const char *status)
{
    struct sconn *c = call->conn;
    call->rejected = true;
    call->status_submitted = true;
    call->headers_sent = true;
    nghttp2_nv nv[1];
    size_t n = 0;
    nv_add(nv, &n, ":status", status);
    nghttp2_submit_response(c->session, call->stream_id, nv, n, NULL);
    sbx_grpc_sconn_kick(c);
}

void sbx_grpc_scall_ensure_headers(struct sbx_grpc_server_call *call)
{
    if (call->headers_sent) return;
    struct sconn *c = call->conn;
    nghttp2_nv *nv = calloc(2 + call->n_md, sizeof *nv);
    if (!nv) return;
    size_t n = 0;
    nv_add(nv, &n, ":status", "200");
    nv_add(nv, &n, "content-type", response_content_type(call));
    for (size_t i = 0; i < call->n_md; i++)
        nv_add(nv, &n, call->md[i].name, call->md[i].value);
    nghttp2_data_provider prd = {.source.ptr = NULL, .read_callback = read_response};
    if (nghttp2_submit_response(c->session, call->stream_id, nv, n, &prd) == 0)
        call->headers_sent = true;
    free(nv);
    sbx_grpc_skv_free(call->md, call->n_md);
    call->md = NULL;
    call->n_md = 0;
}

static ssize_t read_response(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
                             uint32_t *flags, nghttp2_data_source *src, void *user)
{
    (void)src;
    (void)user;
    (void)buf;
    struct sbx_grpc_server_call *call = nghttp2_session_get_stream_user_data(s, id);
    if (!call) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    /* The bytes stay in the call's queue: send_data_frame takes them right
     * after this returns, without copying them into nghttp2's buffer. */
    size_t n = call->q.bytes < length ? call->q.bytes : length;
    if (n > 0) *flags |= NGHTTP2_DATA_FLAG_NO_COPY;
    if (call->q.bytes > n) return (ssize_t)n;
    if (call->status_submitted || call->finish_pending) {
        *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
        if (call->finish_pending) {
            call->finish_pending = false;
            sbx_grpc_scall_submit_status(call, call->status_code, call->status_message);
        }
        return (ssize_t)n;
    }
    if (n > 0) return (ssize_t)n;
    call->data_deferred = true;
    return NGHTTP2_ERR_DEFERRED;
}

/* Emits a DATA frame whose payload read_response left in the call's queue:
 * the frame header is copied, the payload becomes spans of the queue's
 * blocks. Pauses serialising once sbx_grpc_sconn_fill has what it asked for. */
static int send_data_frame(nghttp2_session *s, nghttp2_frame *frame, const uint8_t *framehd,
                           size_t length, nghttp2_data_source *src, void *user)
{
    (void)src;
    struct sconn *c = user;
    struct sbx_grpc_server_call *call =
        nghttp2_session_get_stream_user_data(s, frame->hd.stream_id);
    if (!call || call->q.bytes < length) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    struct out_pool *pool = &c->srv->out_pool;
    static const uint8_t zeros[256];
    size_t pad = frame->data.padlen;
    uint8_t padlen = (uint8_t)(pad ? pad - 1 : 0);
    if (sbx_grpc_out_list_copy(&c->out, pool, framehd, 9) < 0 ||
        (pad && sbx_grpc_out_list_copy(&c->out, pool, &padlen, 1) < 0) ||
        sbx_grpc_out_list_take(&c->out, &call->q, pool, length) < 0 ||
        (pad > 1 && sbx_grpc_out_list_copy(&c->out, pool, zeros, pad - 1) < 0))
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    call->stall_since_ms = call->q.bytes ? sbx_grpc_now_ms() : 0;
    if (call->writable_armed && call->q.bytes < call->low_water && !call->cancelled) {
        call->writable_armed = false;
        sbx_grpc_scall_schedule(call, N_WRITABLE);
    }
    return c->out.unsent >= c->fill_want ? NGHTTP2_ERR_PAUSE : 0;
}

/* DATA frames as large as the peer accepts (up to MAX_DATA_FRAME): fewer
 * frames per byte streamed. */
#define MAX_DATA_FRAME (256 * 1024)

static ssize_t data_frame_length(nghttp2_session *s, uint8_t type, int32_t id,
                                 int32_t session_window, int32_t stream_window,
                                 uint32_t remote_max_frame, void *user)
{
    (void)s;
    (void)type;
    (void)id;
    (void)user;
    ssize_t n = remote_max_frame < MAX_DATA_FRAME ? (ssize_t)remote_max_frame : MAX_DATA_FRAME;
    if (session_window < n) n = session_window;
    if (stream_window < n) n = stream_window;
    return n > 0 ? n : 1;
}

void sbx_grpc_server_response_callbacks(nghttp2_session_callbacks *cbs)
{
    nghttp2_session_callbacks_set_send_data_callback(cbs, send_data_frame);
    nghttp2_session_callbacks_set_data_source_read_length_callback(cbs, data_frame_length);
}
