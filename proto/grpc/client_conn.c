/* The client connection: one nghttp2 client session over a transport, the
 * calls multiplexed on it, and the pump that drives both. Received DATA is
 * acknowledged to the peer only once its messages were read (manual flow
 * control), so unread calls cannot grow without bound. */
#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_inbox.h"
#include "client_transport.h"

#define READ_CHUNK 65536
#define OUT_HIGH_WATER 65536
#define DEFAULT_STREAM_WINDOW (1u << 20)
#define DEFAULT_CONN_WINDOW (16u << 20)
#define DEFAULT_MAX_HEADER_LIST 65536u
#define HEADER_ENTRY_OVERHEAD 32 /* RFC 7541 4.1 */
/* A stream the server refused before processing it is sent again on the same
 * connection this many times at most (gRPC's transparent retry). */
#define MAX_REFUSED_RETRIES 3

struct sbx_grpc_call {
    struct sbx_grpc_conn *conn;
    struct sbx_grpc_call *prev, *next; /* conn->calls */
    int32_t stream_id;
    bool ended;
    bool stream_open; /* the nghttp2 stream exists and points at us */
    bool end_stream_seen;
    bool rst_received;
    bool response_headers_done;
    size_t header_bytes;
    struct sbx_grpc_result res;
    struct grpc_inbox inbox; /* received messages, read in place by next() */
    size_t unconsumed;       /* DATA bytes received and not yet acknowledged */
    uint8_t *body;           /* request DATA payload, kept until the server takes the
                                stream (response headers) so a refused stream can be
                                sent again */
    size_t body_len, body_off, max_frame;
    nghttp2_nv *nv; /* request headers (one block with their bytes), kept for a retry */
    size_t n_nv;
    unsigned retries;
    bool body_sent;     /* the last request DATA went out */
    bool retry_pending; /* refused; to be sent again on a new stream */
    bool no_half_close;
    int64_t deadline_ms;
};

struct sbx_grpc_conn {
    nghttp2_session *session;
    const struct sbx_grpc_transport_ops *ops;
    void *ctx;
    bool transport_open;
    bool broken;
    bool user_closed;
    char error[256];
    bool goaway;
    bool peer_settings; /* the server's first SETTINGS arrived */
    /* The start of the last bytes the server sent, for a message that says
     * what was observed when nghttp2 ends the session on bytes that are not
     * HTTP/2. */
    uint8_t first_in[16];
    size_t first_len;
    uint64_t bytes_in;
    int32_t goaway_last_id;
    uint32_t goaway_code;
    char *authority;
    size_t max_recv;
    uint32_t max_header_list;
    uint8_t *out;
    size_t out_len, out_off, out_cap;
    struct sbx_grpc_call *calls;
    size_t n_calls; /* handles not yet freed */
    size_t active;  /* calls whose stream is open */
};

int64_t sbx_grpc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* ---- call endings ------------------------------------------------------- */

static void free_queue(struct sbx_grpc_call *call)
{
    inbox_clear(&call->inbox);
}

static void end_call(struct sbx_grpc_call *call, enum sbx_grpc_end end, int code, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));
static void end_call(struct sbx_grpc_call *call, enum sbx_grpc_end end, int code, const char *fmt,
                     ...)
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

/* Acknowledges received bytes to the peer (stream and connection windows). */
static void consume(struct sbx_grpc_call *call)
{
    if (call->unconsumed == 0) return;
    nghttp2_session_consume(call->conn->session, call->stream_id, call->unconsumed);
    call->unconsumed = 0;
}

/* Resets the stream of a call that ends locally and detaches it. */
static void reset_stream(struct sbx_grpc_call *call, uint32_t code)
{
    if (!call->stream_open) return;
    nghttp2_submit_rst_stream(call->conn->session, NGHTTP2_FLAG_NONE, call->stream_id, code);
    consume(call);
}

/* The response ended with END_STREAM: decide the call's outcome. */
static void finish_response(struct sbx_grpc_call *call)
{
    struct sbx_grpc_result *r = &call->res;
    if (r->http_status != 200) {
        end_call(call, SBX_GRPC_END_PROTOCOL, sbx_grpc_code_from_http(r->http_status),
                 "HTTP status %d", r->http_status);
        return;
    }
    if (r->content_type && !sbx_grpc_content_type_ok(r->content_type, strlen(r->content_type))) {
        end_call(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                 "response content-type \"%s\" is not application/grpc", r->content_type);
        return;
    }
    if (!inbox_idle(&call->inbox)) {
        end_call(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                 "response ended inside a message (truncated frame)");
        return;
    }
    if (!r->has_grpc_status) {
        end_call(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                 "response ended without grpc-status");
        return;
    }
    end_call(call, SBX_GRPC_END_STATUS, r->code, NULL);
}

/* ---- nghttp2 callbacks ---------------------------------------------------- */

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
        end_call(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_RESOURCE_EXHAUSTED,
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
        end_call(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_RESOURCE_EXHAUSTED,
                 "response message larger than max (%zu bytes)", call->inbox.max_message);
        break;
    case SBX_GRPC_DEFRAME_COMPRESSED:
        end_call(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                 "compressed response message without negotiated grpc-encoding");
        break;
    default:
        end_call(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_INTERNAL,
                 "invalid message flag byte in response");
        break;
    }
    reset_stream(call, NGHTTP2_CANCEL);
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
        consume(call);
        return 0;
    }
    size_t done;
    int rv = inbox_feed(&call->inbox, data, len, &done);
    call->res.n_messages += done;
    if (rv == -1) {
        end_call(call, SBX_GRPC_END_PROTOCOL, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        reset_stream(call, NGHTTP2_CANCEL);
        return 0;
    }
    if (rv < 0) {
        deframe_error(call, -rv);
        return 0;
    }
    /* Bytes of a message still in reassembly, or of messages already read,
     * are acknowledged now; queued unread messages hold the window. */
    if (!call->inbox.ready) consume(call);
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
        end_call(call, SBX_GRPC_END_RESET, rst_to_code(call->res.rst_code),
                 "stream reset by peer (HTTP/2 error %u: %s)", call->res.rst_code,
                 nghttp2_http2_strerror(call->res.rst_code));
    else if (error_code == NGHTTP2_REFUSED_STREAM)
        end_call(call, SBX_GRPC_END_CONNECTION, SBX_GRPC_UNAVAILABLE,
                 "stream refused (GOAWAY or stream limit)");
    else if (call->end_stream_seen)
        finish_response(call);
    else
        end_call(call, SBX_GRPC_END_CONNECTION, SBX_GRPC_UNAVAILABLE,
                 "stream closed (HTTP/2 error %u: %s)", error_code,
                 nghttp2_http2_strerror(error_code));
    return 0;
}

static ssize_t read_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
                         uint32_t *data_flags, nghttp2_data_source *source, void *user)
{
    (void)source;
    (void)user;
    /* The handle may be gone (freed while its RST_STREAM is queued). */
    struct sbx_grpc_call *call = stream_call(s, id);
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

/* ---- connection I/O ------------------------------------------------------- */

static void break_conn(struct sbx_grpc_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void break_conn(struct sbx_grpc_conn *c, const char *fmt, ...)
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
        end_call(call, SBX_GRPC_END_CONNECTION, SBX_GRPC_UNAVAILABLE, "connection broken: %s",
                 c->error);
    }
    if (c->transport_open) {
        c->ops->close(c->ctx);
        c->transport_open = false;
    }
}

/* Moves nghttp2 output to the transport until it would block. */
static int flush(struct sbx_grpc_conn *c)
{
    if (c->broken) return -1;
    for (;;) {
        while (c->out_len - c->out_off < OUT_HIGH_WATER) {
            const uint8_t *data;
            ssize_t n = nghttp2_session_mem_send(c->session, &data);
            if (n < 0) {
                break_conn(c, "HTTP/2 send failed: %s", nghttp2_strerror((int)n));
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
                    break_conn(c, "out of memory");
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
            break_conn(c, "write failed: %s", strerror(errno));
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
            break_conn(c, "connection closed by peer");
            return -1;
        }
        if (n < 0) {
            break_conn(c, "read failed: %s", strerror(errno));
            return -1;
        }
        c->first_len = (size_t)n < sizeof c->first_in ? (size_t)n : sizeof c->first_in;
        memcpy(c->first_in, buf, c->first_len);
        c->bytes_in += (uint64_t)n;
        ssize_t rv = nghttp2_session_mem_recv(c->session, buf, (size_t)n);
        if (rv < 0) {
            /* Let the GOAWAY nghttp2 queued for the protocol error go out. */
            flush(c);
            break_conn(c, "HTTP/2 protocol error from peer: %s", nghttp2_strerror((int)rv));
            return -1;
        }
    }
    return 0;
}

static int submit_stream(struct sbx_grpc_call *call);

/* Sends refused calls again on new streams, or ends them when this
 * connection takes no new streams (GOAWAY); the caller may then retry on
 * another connection (result.refused). */
static void resend_refused(struct sbx_grpc_conn *c)
{
    for (struct sbx_grpc_call *call = c->calls; call; call = call->next) {
        if (!call->retry_pending) continue;
        call->retry_pending = false;
        if (call->ended) continue;
        if (c->goaway || c->broken || submit_stream(call) < 0)
            end_call(call, SBX_GRPC_END_CONNECTION, SBX_GRPC_UNAVAILABLE,
                     "stream refused by the server (%s)",
                     c->goaway ? "GOAWAY" : "cannot open another stream");
    }
}

int sbx_grpc_conn_pump(struct sbx_grpc_conn *c, int wait_ms)
{
    if (c->broken) return -1;
    if (flush(c) < 0) return -1;
    int ready = c->ops->wait(c->ctx, wait_ms < 0 ? 0 : wait_ms, output_pending(c));
    if (ready < 0) {
        break_conn(c, "poll failed: %s", strerror(errno));
        return -1;
    }
    if (ready > 0 && read_input(c) < 0) return -1;
    resend_refused(c);
    if (flush(c) < 0) return -1;
    resend_refused(c);
    if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session) &&
        c->out_off == c->out_len) {
        if (c->goaway) {
            break_conn(c, "connection closed after the server's GOAWAY (error code %u)",
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
            break_conn(c,
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
        set_err(err, err_len, "out of memory");
        return NULL;
    }
    c->ops = ops;
    c->ctx = ctx;
    c->transport_open = true;
    c->authority = strdup(o.authority ? o.authority : authority);
    c->max_recv = o.max_recv_message ? o.max_recv_message : SBX_GRPC_DEFAULT_MAX_RECV_MESSAGE;
    c->max_header_list = o.max_header_list ? o.max_header_list : DEFAULT_MAX_HEADER_LIST;
    uint32_t stream_window =
        o.initial_stream_window ? o.initial_stream_window : DEFAULT_STREAM_WINDOW;
    uint32_t conn_window = o.initial_conn_window ? o.initial_conn_window : DEFAULT_CONN_WINDOW;
    if (stream_window > NGHTTP2_MAX_WINDOW_SIZE) stream_window = NGHTTP2_MAX_WINDOW_SIZE;
    if (conn_window > NGHTTP2_MAX_WINDOW_SIZE) conn_window = NGHTTP2_MAX_WINDOW_SIZE;

    nghttp2_session_callbacks *cbs;
    nghttp2_option *opt;
    if (!c->authority || nghttp2_session_callbacks_new(&cbs) != 0) {
        sbx_grpc_conn_close(c);
        set_err(err, err_len, "out of memory");
        return NULL;
    }
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    nghttp2_option_new(&opt);
    nghttp2_option_set_no_auto_window_update(opt, 1);
    int rv = nghttp2_session_client_new2(&c->session, cbs, c, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0) {
        c->session = NULL;
        sbx_grpc_conn_close(c);
        set_err(err, err_len, "nghttp2 session: %s", nghttp2_strerror(rv));
        return NULL;
    }
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, stream_window},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, c->max_header_list},
    };
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]);
    nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, (int32_t)conn_window);
    if (flush(c) < 0) {
        set_err(err, err_len, "%s", c->error);
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
            set_err(err, err_len, "%s", c->error);
            sbx_grpc_conn_close(c);
            return NULL;
        }
    }
    return c;
}

static void conn_release(struct sbx_grpc_conn *c)
{
    if (!c->user_closed || c->n_calls > 0) return;
    if (c->session) nghttp2_session_del(c->session);
    free(c->out);
    free(c->authority);
    free(c);
}

void sbx_grpc_conn_close(struct sbx_grpc_conn *c)
{
    if (!c) return;
    if (c->session && !c->broken) {
        nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR);
        flush(c);
    }
    if (!c->broken) break_conn(c, "connection closed locally");
    c->user_closed = true;
    conn_release(c);
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
        if (flush(c) < 0) return -1;
        if (c->out_off < c->out_len) {
            if (sbx_grpc_now_ms() > deadline || c->ops->wait(c->ctx, 100, true) < 0) return -1;
        }
    }
    while (len > 0) {
        ssize_t w = c->ops->write(c->ctx, p, len);
        if (w < 0) {
            break_conn(c, "write failed: %s", strerror(errno));
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

/* Opens a stream for the call and queues its headers and body. */
static int submit_stream(struct sbx_grpc_call *call)
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
        set_err(err, err_len, "connection not usable: %s", sbx_grpc_conn_error(c));
        return NULL;
    }
    if (req_len > UINT32_MAX || (req_len && !req)) {
        set_err(err, err_len, "invalid request");
        return NULL;
    }
    struct sbx_grpc_call *call = calloc(1, sizeof *call);
    if (!call) {
        set_err(err, err_len, "out of memory");
        return NULL;
    }
    call->conn = c;
    inbox_init(&call->inbox, c->max_recv);
    call->max_frame = o.max_data_frame;
    call->no_half_close = o.no_half_close;
    call->body_len = o.raw_body ? req_len : req_len + SBX_GRPC_PREFIX_LEN;
    call->body = malloc(call->body_len ? call->body_len : 1);
    if (!call->body) {
        free(call);
        set_err(err, err_len, "out of memory");
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
    size_t max_nv = 8 + o.n_extra_headers;
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
        call->nv = copy_headers(h, n);
        call->n_nv = n;
    }
    free(h);
    int rv = call->nv ? submit_stream(call) : NGHTTP2_ERR_NOMEM;
    if (rv < 0) {
        free(call->nv);
        free(call->body);
        free(call);
        set_err(err, err_len, "cannot start stream: %s", nghttp2_strerror(rv));
        return NULL;
    }
    c->n_calls++;
    call->next = c->calls;
    if (c->calls) c->calls->prev = call;
    c->calls = call;
    if (flush(c) < 0) set_err(err, err_len, "%s", c->error); /* the call reports END_CONNECTION */
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
        end_call(call, end, SBX_GRPC_DEADLINE_EXCEEDED,
                 "no end of call within the local wait bound; call cancelled");
    else
        end_call(call, end, SBX_GRPC_CANCELLED, "cancelled locally");
    free_queue(call);
    reset_stream(call, rst);
    flush(call->conn);
}

int sbx_grpc_call_next(struct sbx_grpc_call *call, int wait_ms, const uint8_t **msg, size_t *len)
{
    inbox_release(&call->inbox);
    int64_t until = sbx_grpc_now_ms() + (wait_ms > 0 ? wait_ms : 0);
    bool pumped = false;
    for (;;) {
        if (inbox_next(&call->inbox, msg, len)) {
            if (!call->inbox.ready && call->stream_open) {
                consume(call);
                flush(call->conn);
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
        consume(call);
        nghttp2_session_set_stream_user_data(c->session, call->stream_id, NULL);
        call->stream_open = false;
        c->active--;
        flush(c);
    }
    if (call->prev)
        call->prev->next = call->next;
    else
        c->calls = call->next;
    if (call->next) call->next->prev = call->prev;
    free_queue(call);
    free(call->body);
    free(call->nv);
    inbox_free(&call->inbox);
    sbx_grpc_result_free(&call->res);
    free(call);
    c->n_calls--;
    conn_release(c);
}
