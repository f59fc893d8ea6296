/* SPDX-License-Identifier: Apache-2.0 */
/* The nghttp2 callbacks of a client connection: response headers and
 * trailers into the call's result, DATA into its inbox, GOAWAY, resets and
 * the stream's close, which decides the call's outcome (or a transparent
 * retry of a refused stream). */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

static int rst_to_code(uint32_t rst)
{
    switch (rst) {
    case NGHTTP2_REFUSED_STREAM:
        return SBX_GRPC_UNAVAILABLE;
    case NGHTTP2_CANCEL:
        return SBX_GRPC_CANCELLED;
    case NGHTTP2_ENHANCE_YOUR_CALM:
        return SBX_GRPC_RESOURCE_EXHAUSTED;
    case NGHTTP2_INADEQUATE_SECURITY:
        return SBX_GRPC_PERMISSION_DENIED;
    default:
        return SBX_GRPC_INTERNAL;
    }
}

/* The response ended with END_STREAM: decide the call's outcome. */
static void finish_response(struct sbx_grpc_call *call)
{
    struct sbx_grpc_result *r = &call->res;
    if (r->http_status != 200) {
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL,
                                 sbx_grpc_code_from_http(r->http_status), "HTTP status %d",
                                 r->http_status);
        return;
    }
    if (r->content_type && !sbx_grpc_content_type_ok(r->content_type, strlen(r->content_type))) {
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                                 "response content-type \"%s\" is not application/grpc",
                                 r->content_type);
        return;
    }
    if (!sbx_grpc_inbox_idle(&call->inbox)) {
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                                 "response ended inside a message (truncated frame)");
        return;
    }
    if (!r->has_grpc_status) {
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                                 "response ended without grpc-status");
        return;
    }
    sbx_grpc_client_call_end(call, SBX_GRPC_END_STATUS, r->code, NULL);
}

static struct sbx_grpc_call *stream_call(nghttp2_session *s, int32_t id)
{
    return nghttp2_session_get_stream_user_data(s, id);
}

static int add_md(struct sbx_grpc_md **arr, size_t *n, const uint8_t *name, size_t nlen,
                  const uint8_t *value, size_t vlen)
{
    struct sbx_grpc_md *a = realloc(*arr, (*n + 1) * sizeof **arr);
    if (!a) return -1;
    *arr = a;
    struct sbx_grpc_md *m = &a[*n];
    m->name = strndup((const char *)name, nlen);
    m->value = malloc(vlen + 1);
    if (!m->name || !m->value) {
        free(m->name);
        free(m->value);
        return -1;
    }
    memcpy(m->value, value, vlen);
    m->value[vlen] = '\0';
    m->value_len = vlen;
    (*n)++;
    return 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name,
                     size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags, void *user)
{
    (void)flags;
    struct sbx_grpc_conn *c = user;
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    struct sbx_grpc_call *call = stream_call(s, frame->hd.stream_id);
    if (!call || call->ended) return 0;
    call->header_bytes += nlen + vlen + HEADER_ENTRY_OVERHEAD;
    if (call->header_bytes > c->max_header_list) {
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_RESOURCE_EXHAUSTED,
                                 "response header list larger than %u bytes", c->max_header_list);
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    struct sbx_grpc_result *r = &call->res;
    bool first = frame->headers.cat == NGHTTP2_HCAT_RESPONSE;
    bool trailers_only = first && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
    if (nlen > 0 && name[0] == ':') {
        if (first && nlen == 7 && memcmp(name, ":status", 7) == 0) {
            r->http_status = 0;
            for (size_t i = 0; i < vlen && i < 3; i++)
                r->http_status = r->http_status * 10 + (value[i] - '0');
        }
        return 0;
    }
    if (first && nlen == 12 && memcmp(name, "content-type", 12) == 0) {
        free(r->content_type);
        r->content_type = strndup((const char *)value, vlen);
    }
    bool status_block = !first || trailers_only;
    if (status_block && nlen == 11 && memcmp(name, "grpc-status", 11) == 0) {
        int code = sbx_grpc_status_parse((const char *)value, vlen);
        r->has_grpc_status = code >= 0;
        r->code = code >= 0 ? code : SBX_GRPC_UNKNOWN;
    } else if (status_block && nlen == 12 && memcmp(name, "grpc-message", 12) == 0) {
        free(r->raw_message);
        free(r->message);
        r->raw_message = strndup((const char *)value, vlen);
        r->message = sbx_grpc_percent_decode((const char *)value, vlen, NULL);
    }
    if (status_block)
        add_md(&r->trailers, &r->n_trailers, name, nlen, value, vlen);
    else
        add_md(&r->headers, &r->n_headers, name, nlen, value, vlen);
    return 0;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *frame, void *user)
{
    struct sbx_grpc_conn *c = user;
    if (frame->hd.type == NGHTTP2_GOAWAY) {
        c->goaway = true;
        c->goaway_last_id = frame->goaway.last_stream_id;
        c->goaway_code = frame->goaway.error_code;
        return 0;
    }
    if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK))
        c->peer_settings = true;
    struct sbx_grpc_call *call = frame->hd.stream_id ? stream_call(s, frame->hd.stream_id) : NULL;
    if (!call) return 0;
    if (frame->hd.type == NGHTTP2_RST_STREAM) {
        call->rst_received = true;
        call->res.rst_code = frame->rst_stream.error_code;
        return 0;
    }
    if (frame->hd.type == NGHTTP2_HEADERS) {
        if (frame->headers.cat == NGHTTP2_HCAT_RESPONSE) {
            call->response_headers_done = true;
            call->res.trailers_only = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
            /* The server took the stream: no retry from here on. */
            if (call->body && call->body_sent) {
                free(call->body);
                call->body = NULL;
            }
        }
    }
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        call->end_stream_seen = true;
        if (!call->ended) finish_response(call);
    }
    return 0;
}

static void deframe_error(struct sbx_grpc_call *call, int rv)
{
    switch (rv) {
    case SBX_GRPC_DEFRAME_TOO_LARGE:
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_RESOURCE_EXHAUSTED,
                                 "response message larger than max (%zu bytes)",
                                 call->inbox.max_message);
        break;
    case SBX_GRPC_DEFRAME_COMPRESSED:
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                                 "compressed response message without negotiated grpc-encoding");
        break;
    default:
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                                 "invalid message flag byte in response");
        break;
    }
    sbx_grpc_client_call_reset_stream(call, NGHTTP2_CANCEL);
}

static int on_data_chunk(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data,
                         size_t len, void *user)
{
    (void)flags;
    (void)user;
    struct sbx_grpc_call *call = stream_call(s, id);
    if (!call) {
        nghttp2_session_consume(s, id, len);
        return 0;
    }
    call->unconsumed += len;
    if (call->ended) {
        sbx_grpc_client_call_consume(call);
        return 0;
    }
    size_t done;
    int rv = sbx_grpc_inbox_feed(&call->inbox, data, len, &done);
    call->res.n_messages += done;
    if (rv == -1) {
        sbx_grpc_client_call_end(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_RESOURCE_EXHAUSTED,
                                 "out of memory");
        sbx_grpc_client_call_reset_stream(call, NGHTTP2_CANCEL);
        return 0;
    }
    if (rv < 0) {
        deframe_error(call, -rv);
        return 0;
    }
    /* Bytes of a message still in reassembly, or of messages already read,
     * are acknowledged now; queued unread messages hold the window. */
    if (!call->inbox.ready) sbx_grpc_client_call_consume(call);
    return 0;
}

static int on_stream_close(nghttp2_session *s, int32_t id, uint32_t error_code, void *user)
{
    struct sbx_grpc_conn *c = user;
    struct sbx_grpc_call *call = stream_call(s, id);
    if (!call) return 0;
    if (call->unconsumed) {
        nghttp2_session_consume_connection(s, call->unconsumed);
        call->unconsumed = 0;
    }
    call->stream_open = false;
    nghttp2_session_set_stream_user_data(s, id, NULL);
    c->active--;
    if (call->ended) return 0;
    /* REFUSED_STREAM, from the peer or for a stream above a GOAWAY's last
     * stream id, means the server did not process the request: gRPC clients
     * send it again (transparent retry). Streams beyond the peer's
     * concurrency limit before its SETTINGS arrived end so. */
    bool refused = (call->rst_received ? call->res.rst_code : error_code) == NGHTTP2_REFUSED_STREAM;
    if (refused && !call->response_headers_done) {
        call->res.refused = true;
        if (call->body && !c->goaway && !c->broken && call->retries < MAX_REFUSED_RETRIES) {
            call->retry_pending = true;
            return 0;
        }
    }
    if (call->rst_received)
        sbx_grpc_client_call_end(call, SBX_GRPC_END_RESET, rst_to_code(call->res.rst_code),
                                 "stream reset by peer (HTTP/2 error %u: %s)", call->res.rst_code,
                                 nghttp2_http2_strerror(call->res.rst_code));
    else if (error_code == NGHTTP2_REFUSED_STREAM)
        sbx_grpc_client_call_end(call, SBX_GRPC_END_CONNECTION, SBX_GRPC_UNAVAILABLE,
                                 "stream refused (GOAWAY or stream limit)");
    else if (call->end_stream_seen)
        finish_response(call);
    else
        sbx_grpc_client_call_end(call, SBX_GRPC_END_CONNECTION, SBX_GRPC_UNAVAILABLE,
                                 "stream closed (HTTP/2 error %u: %s)", error_code,
                                 nghttp2_http2_strerror(error_code));
    return 0;
}

void sbx_grpc_client_response_callbacks(nghttp2_session_callbacks *cbs)
{
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
}
