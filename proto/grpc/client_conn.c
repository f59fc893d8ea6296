/* SPDX-License-Identifier: Apache-2.0 */
/* The client connection: one nghttp2 client session over a transport and
 * the pump that drives it (output to the transport, input to the session,
 * refused streams sent again). The calls multiplexed on it are in
 * client_call.c, the callbacks that receive their responses in
 * client_response.c. */
#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_internal.h"

int64_t sbx_grpc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sbx_grpc_client_set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* ---- connection I/O ------------------------------------------------------- */

void sbx_grpc_client_break(struct sbx_grpc_conn *c, const char *fmt, ...)
{
    if (!c->broken) {
        c->broken = true;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->error, sizeof c->error, fmt, ap);
        va_end(ap);
    }
    for (struct sbx_grpc_call *call = c->calls; call; call = call->next) {
        if (call->stream_open) {
            call->stream_open = false;
            c->active--;
        }
        sbx_grpc_client_call_end(call, SBX_GRPC_END_CONNECTION, SBX_GRPC_UNAVAILABLE,
                                 "connection broken: %s", c->error);
    }
    if (c->transport_open) {
        c->ops->close(c->ctx);
        c->transport_open = false;
    }
}

/* Moves nghttp2 output to the transport until it would block. */
int sbx_grpc_client_flush(struct sbx_grpc_conn *c)
{
    if (c->broken) return -1;
    for (;;) {
        while (c->out_len - c->out_off < OUT_HIGH_WATER) {
            const uint8_t *data;
            ssize_t n = nghttp2_session_mem_send(c->session, &data);
            if (n < 0) {
                sbx_grpc_client_break(c, "HTTP/2 send failed: %s", nghttp2_strerror((int)n));
                return -1;
            }
            if (n == 0) break;
            if (c->out_off > 0 && c->out_off == c->out_len) c->out_off = c->out_len = 0;
            if (c->out_len + (size_t)n > c->out_cap) {
                size_t cap = c->out_cap ? c->out_cap : OUT_HIGH_WATER;
                while (cap < c->out_len + (size_t)n)
                    cap *= 2;
                uint8_t *p = realloc(c->out, cap);
                if (!p) {
                    sbx_grpc_client_break(c, "out of memory");
                    return -1;
                }
                c->out = p;
                c->out_cap = cap;
            }
            memcpy(c->out + c->out_len, data, (size_t)n);
            c->out_len += (size_t)n;
        }
        if (c->out_off == c->out_len) return 0;
        ssize_t w = c->ops->write(c->ctx, c->out + c->out_off, c->out_len - c->out_off);
        if (w < 0) {
            sbx_grpc_client_break(c, "write failed: %s", strerror(errno));
            return -1;
        }
        if (w == 0) return 0;
        c->out_off += (size_t)w;
        if (c->out_off == c->out_len) c->out_off = c->out_len = 0;
    }
}

static bool output_pending(const struct sbx_grpc_conn *c)
{
    return c->out_off < c->out_len || nghttp2_session_want_write(c->session);
}

/* Reads what is available and feeds it to the session. */
static int read_input(struct sbx_grpc_conn *c)
{
    uint8_t buf[READ_CHUNK];
    for (int rounds = 0; rounds < 64 && !c->broken; rounds++) {
        ssize_t n = c->ops->read(c->ctx, buf, sizeof buf);
        if (n == 0) return 0;
        if (n == -2) {
            sbx_grpc_client_break(c, "connection closed by peer");
            return -1;
        }
        if (n < 0) {
            sbx_grpc_client_break(c, "read failed: %s", strerror(errno));
            return -1;
        }
        c->first_len = (size_t)n < sizeof c->first_in ? (size_t)n : sizeof c->first_in;
        memcpy(c->first_in, buf, c->first_len);
        c->bytes_in += (uint64_t)n;
        ssize_t rv = nghttp2_session_mem_recv(c->session, buf, (size_t)n);
        if (rv < 0) {
            /* Let the GOAWAY nghttp2 queued for the protocol error go out. */
            sbx_grpc_client_flush(c);
            sbx_grpc_client_break(c, "HTTP/2 protocol error from peer: %s",
                                  nghttp2_strerror((int)rv));
            return -1;
        }
    }
    return 0;
}

/* Sends refused calls again on new streams, or ends them when this
 * connection takes no new streams (GOAWAY); the caller may then retry on
 * another connection (result.refused). */
static void resend_refused(struct sbx_grpc_conn *c)
{
    for (struct sbx_grpc_call *call = c->calls; call; call = call->next) {
        if (!call->retry_pending) continue;
        call->retry_pending = false;
        if (call->ended) continue;
        if (c->goaway || c->broken || sbx_grpc_client_call_submit(call) < 0)
            sbx_grpc_client_call_end(call, SBX_GRPC_END_CONNECTION, SBX_GRPC_UNAVAILABLE,
                                     "stream refused by the server (%s)",
                                     c->goaway ? "GOAWAY" : "cannot open another stream");
    }
}

int sbx_grpc_conn_pump(struct sbx_grpc_conn *c, int wait_ms)
{
    if (c->broken) return -1;
    if (sbx_grpc_client_flush(c) < 0) return -1;
    int ready = c->ops->wait(c->ctx, wait_ms < 0 ? 0 : wait_ms, output_pending(c));
    if (ready < 0) {
        sbx_grpc_client_break(c, "poll failed: %s", strerror(errno));
        return -1;
    }
    if (ready > 0 && read_input(c) < 0) return -1;
    resend_refused(c);
    if (sbx_grpc_client_flush(c) < 0) return -1;
    resend_refused(c);
    if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session) &&
        c->out_off == c->out_len) {
        if (c->goaway) {
            sbx_grpc_client_break(c, "connection closed after the server's GOAWAY (error code %u)",
                                  c->goaway_code);
        } else {
            /* nghttp2 ended the session itself: the server's bytes broke the protocol. */
            char shown[3 * sizeof c->first_in + 1] = "", text[sizeof c->first_in + 1];
            for (size_t i = 0; i < c->first_len; i++) {
                snprintf(shown + 3 * i, sizeof shown - 3 * i, "%02x ", c->first_in[i]);
                text[i] =
                    c->first_in[i] >= 0x20 && c->first_in[i] < 0x7f ? (char)c->first_in[i] : '.';
            }
            text[c->first_len] = '\0';
            if (c->first_len) shown[3 * c->first_len - 1] = '\0';
            sbx_grpc_client_break(
                c,
                "the server's bytes are not valid HTTP/2 (%s; %llu bytes received, "
                "the last read starting \"%s\" = %s): the HTTP/2 library ended the "
                "session",
                c->peer_settings ? "after its SETTINGS" : "no SETTINGS frame first",
                (unsigned long long)c->bytes_in, text, shown);
        }
        return -1;
    }
    return 0;
}

/* ---- connection lifecycle ---------------------------------------------- */

/* The connection's own copy of the headers for every call: the array, then
 * the strings, in one allocation. */
static struct sbx_grpc_header_kv *copy_extra_headers(const struct sbx_grpc_header_kv *h, size_t n)
{
    size_t bytes = n * sizeof *h;
    for (size_t i = 0; i < n; i++)
        bytes += strlen(h[i].name) + strlen(h[i].value) + 2;
    struct sbx_grpc_header_kv *copy = malloc(bytes ? bytes : 1);
    if (!copy) return NULL;
    char *p = (char *)(copy + n);
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(h[i].name) + 1, vl = strlen(h[i].value) + 1;
        copy[i].name = memcpy(p, h[i].name, nl);
        p += nl;
        copy[i].value = memcpy(p, h[i].value, vl);
        p += vl;
    }
    return copy;
}

struct sbx_grpc_conn *sbx_grpc_conn_new(const struct sbx_grpc_transport_ops *ops, void *ctx,
                                        const char *authority,
                                        const struct sbx_grpc_conn_opts *opts, char *err,
                                        size_t err_len)
{
    struct sbx_grpc_conn_opts o = {0};
    if (opts) o = *opts;
    struct sbx_grpc_conn *c = calloc(1, sizeof *c);
    if (!c) {
        ops->close(ctx);
        sbx_grpc_client_set_err(err, err_len, "out of memory");
        return NULL;
    }
    c->ops = ops;
    c->ctx = ctx;
    c->transport_open = true;
    c->authority = strdup(o.authority ? o.authority : authority);
    c->extra_headers = copy_extra_headers(o.extra_headers, o.n_extra_headers);
    c->n_extra_headers = o.n_extra_headers;
    c->max_recv = o.max_recv_message ? o.max_recv_message : SBX_GRPC_DEFAULT_MAX_RECV_MESSAGE;
    c->max_header_list = o.max_header_list ? o.max_header_list : DEFAULT_MAX_HEADER_LIST;
    uint32_t stream_window =
        o.initial_stream_window ? o.initial_stream_window : DEFAULT_STREAM_WINDOW;
    uint32_t conn_window = o.initial_conn_window ? o.initial_conn_window : DEFAULT_CONN_WINDOW;
    if (stream_window > NGHTTP2_MAX_WINDOW_SIZE) stream_window = NGHTTP2_MAX_WINDOW_SIZE;
    if (conn_window > NGHTTP2_MAX_WINDOW_SIZE) conn_window = NGHTTP2_MAX_WINDOW_SIZE;

    nghttp2_session_callbacks *cbs;
    nghttp2_option *opt;
    if (!c->authority || !c->extra_headers || nghttp2_session_callbacks_new(&cbs) != 0) {
        sbx_grpc_conn_close(c);
        sbx_grpc_client_set_err(err, err_len, "out of memory");
        return NULL;
    }
    sbx_grpc_client_response_callbacks(cbs);
    nghttp2_option_new(&opt);
    nghttp2_option_set_no_auto_window_update(opt, 1);
    int rv = nghttp2_session_client_new2(&c->session, cbs, c, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0) {
        c->session = NULL;
        sbx_grpc_conn_close(c);
        sbx_grpc_client_set_err(err, err_len, "nghttp2 session: %s", nghttp2_strerror(rv));
        return NULL;
    }
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, stream_window},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, c->max_header_list},
    };
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]);
    nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, (int32_t)conn_window);
    if (sbx_grpc_client_flush(c) < 0) {
        sbx_grpc_client_set_err(err, err_len, "%s", c->error);
        sbx_grpc_conn_close(c);
        return NULL;
    }
    /* Wait for the server's SETTINGS, as gRPC clients do before the first
     * call, so its stream limit is known: streams beyond it then queue here
     * instead of being refused. A server that stays silent is given the
     * calls anyway once the bound passes. */
    int64_t until = sbx_grpc_now_ms() + (o.connect_timeout_ms ? o.connect_timeout_ms : 5000);
    for (int64_t now = sbx_grpc_now_ms(); !c->peer_settings && now < until;
         now = sbx_grpc_now_ms()) {
        if (sbx_grpc_conn_pump(c, (int)(until - now)) < 0) {
            sbx_grpc_client_set_err(err, err_len, "%s", c->error);
            sbx_grpc_conn_close(c);
            return NULL;
        }
    }
    return c;
}

void sbx_grpc_client_conn_release(struct sbx_grpc_conn *c)
{
    if (!c->user_closed || c->n_calls > 0) return;
    if (c->session) nghttp2_session_del(c->session);
    free(c->out);
    free(c->authority);
    free(c->extra_headers);
    free(c);
}

void sbx_grpc_conn_close(struct sbx_grpc_conn *c)
{
    if (!c) return;
    if (c->session && !c->broken) {
        nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR);
        sbx_grpc_client_flush(c);
    }
    if (!c->broken) sbx_grpc_client_break(c, "connection closed locally");
    c->user_closed = true;
    sbx_grpc_client_conn_release(c);
}

bool sbx_grpc_conn_usable(const struct sbx_grpc_conn *c)
{
    return c && !c->broken && !c->goaway;
}

const char *sbx_grpc_conn_error(const struct sbx_grpc_conn *c)
{
    if (!c) return "no connection";
    if (!c->broken && c->goaway) return "GOAWAY received";
    return c->error;
}

bool sbx_grpc_conn_goaway(const struct sbx_grpc_conn *c, int32_t *last_stream_id,
                          uint32_t *error_code)
{
    if (c->goaway) {
        if (last_stream_id) *last_stream_id = c->goaway_last_id;
        if (error_code) *error_code = c->goaway_code;
    }
    return c->goaway;
}

size_t sbx_grpc_conn_active_calls(const struct sbx_grpc_conn *c)
{
    return c->active;
}

int sbx_grpc_conn_send_raw(struct sbx_grpc_conn *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    int64_t deadline = sbx_grpc_now_ms() + 10000;
    if (c->broken) return -1;
    while (c->out_off < c->out_len) {
        if (sbx_grpc_client_flush(c) < 0) return -1;
        if (c->out_off < c->out_len) {
            if (sbx_grpc_now_ms() > deadline || c->ops->wait(c->ctx, 100, true) < 0) return -1;
        }
    }
    while (len > 0) {
        ssize_t w = c->ops->write(c->ctx, p, len);
        if (w < 0) {
            sbx_grpc_client_break(c, "write failed: %s", strerror(errno));
            return -1;
        }
        p += w;
        len -= (size_t)w;
        if (len > 0) {
            /* Keep reading so a peer that answers while we write cannot
             * deadlock us; give up after the bound. */
            if (sbx_grpc_now_ms() > deadline) return -1;
            if (c->ops->wait(c->ctx, 100, true) > 0 && read_input(c) < 0) return -1;
        }
    }
    return 0;
}
