/* SPDX-License-Identifier: Apache-2.0 */
/* The calls of a client connection: starting one (its headers and body,
 * kept until the server takes the stream so a refused stream can be sent
 * again), reading its messages, cancelling it, its end and its handle. */
#include <nghttp2/nghttp2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client_internal.h"

/* ---- call endings ------------------------------------------------------- */

static void free_queue(struct sbx_grpc_call *call)
{
    sbx_grpc_inbox_clear(&call->inbox);
}

void sbx_grpc_client_call_end(struct sbx_grpc_call *call, enum sbx_grpc_end end, int code,
                              const char *fmt, ...)
{
    if (call->ended) return;
    call->ended = true;
    call->res.end = end;
    call->res.code = code;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(call->res.error, sizeof call->res.error, fmt, ap);
        va_end(ap);
    }
}

/* Acknowledges received bytes to the peer (stream and connection windows). */
void sbx_grpc_client_call_consume(struct sbx_grpc_call *call)
{
    if (call->unconsumed == 0) return;
    nghttp2_session_consume(call->conn->session, call->stream_id, call->unconsumed);
    call->unconsumed = 0;
}

/* Resets the stream of a call that ends locally and detaches it. */
void sbx_grpc_client_call_reset_stream(struct sbx_grpc_call *call, uint32_t code)
{
    if (!call->stream_open) return;
    nghttp2_submit_rst_stream(call->conn->session, NGHTTP2_FLAG_NONE, call->stream_id, code);
    sbx_grpc_client_call_consume(call);
}

static ssize_t read_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
                         uint32_t *data_flags, nghttp2_data_source *source, void *user)
{
    (void)source;
    (void)user;
    /* The handle may be gone (freed while its RST_STREAM is queued). */
    struct sbx_grpc_call *call = nghttp2_session_get_stream_user_data(s, id);
    if (!call || !call->body) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    size_t n = call->body_len - call->body_off;
    if (n > length) n = length;
    if (call->max_frame && n > call->max_frame) n = call->max_frame;
    if (n) memcpy(buf, call->body + call->body_off, n);
    call->body_off += n;
    if (call->body_off == call->body_len) {
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
        if (call->no_half_close) *data_flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
        call->body_sent = true;
        if (call->response_headers_done) {
            free(call->body);
            call->body = NULL;
        }
    }
    return (ssize_t)n;
}

/* ---- calls ---------------------------------------------------------------- */

struct nv_text {
    const char *name, *value;
};

/* The request headers in one block (array, then the bytes), so a refused
 * stream can be sent again after the caller's strings are gone. */
static nghttp2_nv *copy_headers(const struct nv_text *h, size_t n)
{
    size_t bytes = n * sizeof(nghttp2_nv);
    for (size_t i = 0; i < n; i++)
        bytes += strlen(h[i].name) + strlen(h[i].value) + 2;
    nghttp2_nv *nv = malloc(bytes);
    if (!nv) return NULL;
    char *p = (char *)(nv + n);
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(h[i].name), vl = strlen(h[i].value);
        memcpy(p, h[i].name, nl + 1);
        nv[i].name = (uint8_t *)p;
        nv[i].namelen = nl;
        p += nl + 1;
        memcpy(p, h[i].value, vl + 1);
        nv[i].value = (uint8_t *)p;
        nv[i].valuelen = vl;
        p += vl + 1;
        nv[i].flags = NGHTTP2_NV_FLAG_NONE;
    }
    return nv;
}

static bool header_sent(const struct nv_text *h, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(h[i].name, name) == 0) return true;
    return false;
}

/* Opens a stream for the call and queues its headers and body. */
int sbx_grpc_client_call_submit(struct sbx_grpc_call *call)
{
    struct sbx_grpc_conn *c = call->conn;
    nghttp2_data_provider prd = {.source.ptr = call, .read_callback = read_body};
    int32_t id = nghttp2_submit_request(c->session, NULL, call->nv, call->n_nv, &prd, call);
    if (id < 0) return id;
    if (call->stream_id) call->retries++;
    call->stream_id = id;
    call->res.stream_id = id;
    call->stream_open = true;
    call->body_off = 0;
    call->body_sent = false;
    call->rst_received = false;
    call->end_stream_seen = false;
    call->header_bytes = 0;
    c->active++;
    return 0;
}

struct sbx_grpc_call *sbx_grpc_call_start(struct sbx_grpc_conn *c, const char *path,
                                          const void *req, size_t req_len,
                                          const struct sbx_grpc_call_opts *opts, char *err,
                                          size_t err_len)
{
    struct sbx_grpc_call_opts o = {0};
    if (opts) o = *opts;
    if (!c || c->broken || c->goaway) {
        sbx_grpc_client_set_err(err, err_len, "connection not usable: %s", sbx_grpc_conn_error(c));
        return NULL;
    }
    if (req_len > UINT32_MAX || (req_len && !req)) {
        sbx_grpc_client_set_err(err, err_len, "invalid request");
        return NULL;
    }
    struct sbx_grpc_call *call = calloc(1, sizeof *call);
    if (!call) {
        sbx_grpc_client_set_err(err, err_len, "out of memory");
        return NULL;
    }
    call->conn = c;
    sbx_grpc_inbox_init(&call->inbox, c->max_recv);
    call->max_frame = o.max_data_frame;
    call->no_half_close = o.no_half_close;
    call->body_len = o.raw_body ? req_len : req_len + SBX_GRPC_PREFIX_LEN;
    call->body = malloc(call->body_len ? call->body_len : 1);
    if (!call->body) {
        free(call);
        sbx_grpc_client_set_err(err, err_len, "out of memory");
        return NULL;
    }
    if (o.raw_body) {
        if (req_len) memcpy(call->body, req, req_len);
    } else {
        sbx_grpc_frame_prefix(call->body, o.compressed_flag, (uint32_t)req_len);
        if (req_len) memcpy(call->body + SBX_GRPC_PREFIX_LEN, req, req_len);
    }
    unsigned wait = o.wait_ms ? o.wait_ms : (o.timeout_ms ? o.timeout_ms + 5000 : 60000);
    call->deadline_ms = sbx_grpc_now_ms() + wait;

    char tbuf[SBX_GRPC_TIMEOUT_BUFSZ];
    size_t max_nv = 8 + o.n_extra_headers + c->n_extra_headers;
    struct nv_text *h = calloc(max_nv, sizeof *h);
    size_t n = 0;
    if (h) {
        h[n++] = (struct nv_text){":method", o.method ? o.method : "POST"};
        h[n++] = (struct nv_text){":scheme", "http"};
        h[n++] = (struct nv_text){":path", path};
        h[n++] = (struct nv_text){":authority", c->authority};
        if (!o.omit_content_type)
            h[n++] = (struct nv_text){"content-type",
                                      o.content_type ? o.content_type : "application/grpc"};
        if (!o.omit_te) h[n++] = (struct nv_text){"te", "trailers"};
        if (o.grpc_timeout_raw) {
            h[n++] = (struct nv_text){"grpc-timeout", o.grpc_timeout_raw};
        } else if (o.timeout_ms) {
            sbx_grpc_timeout_format((uint64_t)o.timeout_ms * 1000000ULL, tbuf);
            h[n++] = (struct nv_text){"grpc-timeout", tbuf};
        }
        for (size_t i = 0; i < o.n_extra_headers; i++)
            h[n++] = (struct nv_text){o.extra_headers[i].name, o.extra_headers[i].value};
        /* The connection's headers never replace what the call sends. */
        for (size_t i = 0; i < c->n_extra_headers; i++)
            if (!header_sent(h, n, c->extra_headers[i].name))
                h[n++] = (struct nv_text){c->extra_headers[i].name, c->extra_headers[i].value};
        call->nv = copy_headers(h, n);
        call->n_nv = n;
    }
    free(h);
    int rv = call->nv ? sbx_grpc_client_call_submit(call) : NGHTTP2_ERR_NOMEM;
    if (rv < 0) {
        free(call->nv);
        free(call->body);
        free(call);
        sbx_grpc_client_set_err(err, err_len, "cannot start stream: %s", nghttp2_strerror(rv));
        return NULL;
    }
    c->n_calls++;
    call->next = c->calls;
    if (c->calls) c->calls->prev = call;
    c->calls = call;
    if (sbx_grpc_client_flush(c) < 0)
        sbx_grpc_client_set_err(err, err_len, "%s", c->error); /* the call reports END_CONNECTION */
    return call;
}

bool sbx_grpc_call_ready(const struct sbx_grpc_call *call)
{
    return call->inbox.ready || call->ended;
}

const struct sbx_grpc_result *sbx_grpc_call_result(const struct sbx_grpc_call *call)
{
    return &call->res;
}

static int end_result(const struct sbx_grpc_call *call)
{
    return (call->res.end == SBX_GRPC_END_STATUS || call->res.end == SBX_GRPC_END_PROTOCOL)
               ? SBX_GRPC_NEXT_END
               : SBX_GRPC_NEXT_ERROR;
}

static void cancel_with(struct sbx_grpc_call *call, enum sbx_grpc_end end, uint32_t rst)
{
    if (call->ended) return;
    if (end == SBX_GRPC_END_TIMEOUT)
        sbx_grpc_client_call_end(call, end, SBX_GRPC_DEADLINE_EXCEEDED,
                                 "no end of call within the local wait bound; call cancelled");
    else
        sbx_grpc_client_call_end(call, end, SBX_GRPC_CANCELLED, "cancelled locally");
    free_queue(call);
    sbx_grpc_client_call_reset_stream(call, rst);
    sbx_grpc_client_flush(call->conn);
}

int sbx_grpc_call_next(struct sbx_grpc_call *call, int wait_ms, const uint8_t **msg, size_t *len)
{
    sbx_grpc_inbox_release(&call->inbox);
    int64_t until = sbx_grpc_now_ms() + (wait_ms > 0 ? wait_ms : 0);
    bool pumped = false;
    for (;;) {
        if (sbx_grpc_inbox_next(&call->inbox, msg, len)) {
            if (!call->inbox.ready && call->stream_open) {
                sbx_grpc_client_call_consume(call);
                sbx_grpc_client_flush(call->conn);
            }
            return SBX_GRPC_NEXT_MESSAGE;
        }
        if (call->ended) return end_result(call);
        int64_t now = sbx_grpc_now_ms();
        if (now >= call->deadline_ms) {
            cancel_with(call, SBX_GRPC_END_TIMEOUT, NGHTTP2_CANCEL);
            continue;
        }
        if (now >= until && pumped) return SBX_GRPC_NEXT_TIMEOUT;
        int64_t left = until > now ? until - now : 0;
        if (call->deadline_ms - now < left) left = call->deadline_ms - now;
        pumped = true;
        sbx_grpc_conn_pump(call->conn, (int)left);
    }
}

void sbx_grpc_call_cancel(struct sbx_grpc_call *call)
{
    cancel_with(call, SBX_GRPC_END_CANCELLED, NGHTTP2_CANCEL);
}

void sbx_grpc_call_reset(struct sbx_grpc_call *call, uint32_t http2_error_code)
{
    cancel_with(call, SBX_GRPC_END_CANCELLED, http2_error_code);
}

void sbx_grpc_call_free(struct sbx_grpc_call *call)
{
    if (!call) return;
    struct sbx_grpc_conn *c = call->conn;
    if (!call->ended) sbx_grpc_call_cancel(call);
    if (call->stream_open) {
        /* The stream outlives the handle until the peer confirms; detach. */
        sbx_grpc_client_call_consume(call);
        nghttp2_session_set_stream_user_data(c->session, call->stream_id, NULL);
        call->stream_open = false;
        c->active--;
        sbx_grpc_client_flush(c);
    }
    if (call->prev)
        call->prev->next = call->next;
    else
        c->calls = call->next;
    if (call->next) call->next->prev = call->prev;
    free_queue(call);
    free(call->body);
    free(call->nv);
    sbx_grpc_inbox_free(&call->inbox);
    sbx_grpc_result_free(&call->res);
    free(call);
    c->n_calls--;
    sbx_grpc_client_conn_release(c);
}
