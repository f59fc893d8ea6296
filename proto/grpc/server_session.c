/* One gRPC server connection as a sans-I/O nghttp2 server session: request
 * validation and dispatch, response framing through a deferred data
 * provider (data leaves only as the peer's window allows), trailers,
 * deadlines and cancellation. Handler callbacks are queued and delivered by
 * sconn_dispatch, never from inside nghttp2. */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_transport.h" /* sbx_grpc_now_ms */
#include "server_internal.h"

struct kv {
    char *name;
    char *value;
};

struct req_msg {
    struct req_msg *next;
    uint8_t *data;
    size_t len;
};

enum notify {
    N_REQUEST = 1,
    N_HALF_CLOSE = 2,
    N_CANCEL = 4,
    N_WRITABLE = 8,
};

struct sbx_grpc_server_call {
    struct sconn *conn; /* NULL once detached from the connection */
    struct sbx_grpc_server_call *prev, *next;
    int32_t stream_id;
    int refs;              /* stream + handler + pending notification */
    bool stream_attached;  /* the nghttp2 stream points at us */
    bool handler_owned;    /* the handler received the call */
    bool handler_done;     /* finish/release called */
    bool rejected;         /* the library answered; ignore further input */
    bool status_submitted; /* trailers (or trailers-only) submitted */
    bool half_closed;
    bool rst_received;
    bool cancelled;
    bool cancel_notified;
    enum sbx_grpc_cancel_reason cancel_reason;
    const struct method_entry *method;
    char *path;
    char *http_method;
    char *content_type;
    char *timeout;
    struct kv *hdrs;
    size_t n_hdrs;
    size_t header_bytes;
    bool headers_too_large;
    int64_t deadline_ms;         /* 0 = none */
    int64_t request_deadline_ms; /* the request must be complete by then; 0 = none */
    int64_t stall_since_ms;      /* queued response bytes last moved then; 0 = queue empty */
    struct sbx_grpc_deframer deframer;
    struct req_msg *req_head, *req_tail; /* complete requests not yet delivered */
    size_t n_requests;
    /* response */
    bool headers_sent;
    bool data_deferred;
    struct msg_queue q; /* framed messages the peer's window has not taken yet */
    size_t reserved;    /* bytes of the last sbx_grpc_server_call_reserve */
    size_t low_water;
    bool writable_armed;
    bool finish_pending;
    int status_code;
    char *status_message;
    struct kv *md; /* metadata added by the handler, not yet sent */
    size_t n_md;
    /* notifications */
    unsigned pending;
    struct sbx_grpc_server_call *pend_next;
    bool in_pending;
    void (*on_cancel)(struct sbx_grpc_server_call *, void *, enum sbx_grpc_cancel_reason);
    void *on_cancel_user;
    void (*on_writable)(struct sbx_grpc_server_call *, void *);
    void *on_writable_user;
    void *user;
    struct sbx_grpc_server *srv;
};

struct sconn {
    struct sbx_grpc_server *srv;
    nghttp2_session *session;
    void (*want_write)(void *io);
    void *io;
    struct sbx_grpc_server_call *calls;
    size_t streams;
    bool fatal;
    bool handshaken;     /* the client's SETTINGS arrived (after its preface) */
    struct out_list out; /* serialised output waiting for the socket */
    size_t fill_want;    /* sconn_fill stops serialising at this many unsent bytes */
    size_t pulled;       /* sconn_send: bytes handed out by the previous call */
};

/* ---- call memory ------------------------------------------------------- */

static void kv_free(struct kv *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(a[i].name);
        free(a[i].value);
    }
    free(a);
}

static int kv_add(struct kv **a, size_t *n, const char *name, size_t nlen, const char *value,
                  size_t vlen)
{
    struct kv *p = realloc(*a, (*n + 1) * sizeof **a);
    if (!p) return -1;
    *a = p;
    p[*n].name = strndup(name, nlen);
    p[*n].value = strndup(value, vlen);
    if (!p[*n].name || !p[*n].value) {
        free(p[*n].name);
        free(p[*n].value);
        return -1;
    }
    (*n)++;
    return 0;
}

static void drop_queue(struct sbx_grpc_server_call *call)
{
    msg_queue_clear(&call->q, &call->srv->out_pool);
}

static void drop_requests(struct sbx_grpc_server_call *call)
{
    while (call->req_head) {
        struct req_msg *m = call->req_head;
        call->req_head = m->next;
        free(m->data);
        free(m);
    }
    call->req_tail = NULL;
}

static void unlink_call(struct sbx_grpc_server_call *call)
{
    struct sconn *c = call->conn;
    if (!c) return;
    if (call->prev)
        call->prev->next = call->next;
    else
        c->calls = call->next;
    /* A listed call has conn set, so call_unref unlinks it before freeing. */
    // NOLINTNEXTLINE(clang-analyzer-unix.Malloc)
    if (call->next) call->next->prev = call->prev;
    call->prev = call->next = NULL;
    call->conn = NULL;
}

static void call_unref(struct sbx_grpc_server_call *call)
{
    if (--call->refs > 0) return;
    unlink_call(call);
    drop_queue(call);
    drop_requests(call);
    sbx_grpc_deframer_free(&call->deframer);
    kv_free(call->hdrs, call->n_hdrs);
    kv_free(call->md, call->n_md);
    free(call->path);
    free(call->http_method);
    free(call->content_type);
    free(call->timeout);
    free(call->status_message);
    struct sbx_grpc_server *srv = call->srv;
    free(call);
    srv->live_calls--;
    server_call_gone(srv);
}

static void schedule(struct sbx_grpc_server_call *call, unsigned what)
{
    struct sbx_grpc_server *s = call->srv;
    call->pending |= what;
    if (!call->in_pending) {
        call->in_pending = true;
        call->refs++;
        call->pend_next = NULL;
        if (s->pend_tail)
            s->pend_tail->pend_next = call;
        else
            s->pend_head = call;
        s->pend_tail = call;
    }
    if (s->kick_dispatch) s->kick_dispatch(s);
}

static void kick(struct sconn *c)
{
    if (c && c->want_write) c->want_write(c->io);
}

/* Marks a call cancelled and, if the handler holds it, queues on_cancel. */
static void cancel_call(struct sbx_grpc_server_call *call, enum sbx_grpc_cancel_reason reason)
{
    if (call->cancelled || call->handler_done) return;
    call->cancelled = true;
    call->cancel_reason = reason;
    drop_queue(call);
    if (call->handler_owned) schedule(call, N_CANCEL);
}

/* ---- sending ------------------------------------------------------------ */

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
static void submit_status(struct sbx_grpc_server_call *call, int code, const char *message)
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
    kv_free(call->md, call->n_md);
    call->md = NULL;
    call->n_md = 0;
    kick(c);
}

/* Ends a call from the library side (reject, deadline, protocol error). */
static void library_status(struct sbx_grpc_server_call *call, int code, const char *message,
                           enum sbx_grpc_cancel_reason reason)
{
    call->rejected = true;
    drop_queue(call);
    drop_requests(call);
    if (call->headers_sent && !call->status_submitted) {
        /* Messages may be in flight: the trailers follow at once. */
        call->finish_pending = false;
        submit_status(call, code, message);
        if (call->data_deferred && call->conn) {
            call->data_deferred = false;
            nghttp2_session_resume_data(call->conn->session, call->stream_id);
        }
    } else {
        submit_status(call, code, message);
    }
    cancel_call(call, reason);
}

static void http_reject(struct sbx_grpc_server_call *call, const char *status)
{
    struct sconn *c = call->conn;
    call->rejected = true;
    call->status_submitted = true;
    call->headers_sent = true;
    nghttp2_nv nv[1];
    size_t n = 0;
    nv_add(nv, &n, ":status", status);
    nghttp2_submit_response(c->session, call->stream_id, nv, n, NULL);
    kick(c);
}

static void ensure_headers(struct sbx_grpc_server_call *call)
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
    kv_free(call->md, call->n_md);
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
            submit_status(call, call->status_code, call->status_message);
        }
        return (ssize_t)n;
    }
    if (n > 0) return (ssize_t)n;
    call->data_deferred = true;
    return NGHTTP2_ERR_DEFERRED;
}

/* Emits a DATA frame whose payload read_response left in the call's queue:
 * the frame header is copied, the payload becomes spans of the queue's
 * blocks. Pauses serialising once sconn_fill has what it asked for. */
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
    if (out_list_copy(&c->out, pool, framehd, 9) < 0 ||
        (pad && out_list_copy(&c->out, pool, &padlen, 1) < 0) ||
        out_list_take(&c->out, &call->q, pool, length) < 0 ||
        (pad > 1 && out_list_copy(&c->out, pool, zeros, pad - 1) < 0))
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    call->stall_since_ms = call->q.bytes ? sbx_grpc_now_ms() : 0;
    if (call->writable_armed && call->q.bytes < call->low_water && !call->cancelled) {
        call->writable_armed = false;
        schedule(call, N_WRITABLE);
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

/* ---- receiving ---------------------------------------------------------- */

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
    if (nlen > 0 && n[0] != ':') kv_add(&call->hdrs, &call->n_hdrs, n, nlen, v, vlen);
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
        library_status(call, SBX_GRPC_RESOURCE_EXHAUSTED, msg, SBX_GRPC_CANCEL_PROTOCOL);
        return;
    }
    if (!call->http_method || strcmp(call->http_method, "POST") != 0) {
        http_reject(call, "405");
        return;
    }
    if (!call->content_type ||
        !sbx_grpc_content_type_ok(call->content_type, strlen(call->content_type))) {
        http_reject(call, "415");
        return;
    }
    if (call->timeout) {
        uint64_t ns;
        if (sbx_grpc_timeout_parse(call->timeout, strlen(call->timeout), &ns) < 0) {
            library_status(call, SBX_GRPC_INTERNAL, "malformed grpc-timeout",
                           SBX_GRPC_CANCEL_PROTOCOL);
            return;
        }
        uint64_t ms = ns / 1000000u + (ns % 1000000u ? 1 : 0);
        if (ms > (uint64_t)INT64_MAX / 2) ms = (uint64_t)INT64_MAX / 2;
        call->deadline_ms = sbx_grpc_now_ms() + (int64_t)ms;
        if (call->deadline_ms == 0) call->deadline_ms = 1;
    }
    call->method = call->path ? server_find_method(c->srv, call->path, strlen(call->path)) : NULL;
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
        library_status(call, code, msg, SBX_GRPC_CANCEL_PROTOCOL);
    }
}

static void request_complete(struct sbx_grpc_server_call *call)
{
    call->half_closed = true;
    if (call->rejected) return;
    if (!sbx_grpc_deframer_idle(&call->deframer)) {
        library_status(call, SBX_GRPC_INTERNAL, "request ended inside a message",
                       SBX_GRPC_CANCEL_PROTOCOL);
        return;
    }
    if (call->method->m.kind == SBX_GRPC_METHOD_BIDI_STREAMING) {
        schedule(call, N_HALF_CLOSE);
        return;
    }
    if (call->n_requests != 1) {
        library_status(call, SBX_GRPC_INTERNAL,
                       call->n_requests ? "more than one request message for a unary request"
                                        : "no request message",
                       SBX_GRPC_CANCEL_PROTOCOL);
        return;
    }
    schedule(call, N_REQUEST);
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
            library_status(call, SBX_GRPC_RESOURCE_EXHAUSTED, m, SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        if (rv == SBX_GRPC_DEFRAME_COMPRESSED) {
            library_status(call, SBX_GRPC_UNIMPLEMENTED,
                           "compressed request message but no grpc-encoding is supported",
                           SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        if (rv != SBX_GRPC_DEFRAME_MESSAGE) {
            library_status(call, SBX_GRPC_INTERNAL, "invalid message flag byte",
                           SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        call->n_requests++;
        bool bidi = call->method->m.kind == SBX_GRPC_METHOD_BIDI_STREAMING;
        if (!bidi && call->n_requests > 1) {
            free(msg);
            library_status(call, SBX_GRPC_INTERNAL,
                           "more than one request message for a unary request",
                           SBX_GRPC_CANCEL_PROTOCOL);
            return 0;
        }
        struct req_msg *m = calloc(1, sizeof *m);
        if (!m) {
            free(msg);
            library_status(call, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory",
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
        if (bidi) schedule(call, N_REQUEST);
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
        cancel_call(call, call->rst_received ? SBX_GRPC_CANCEL_RESET : SBX_GRPC_CANCEL_CONNECTION);
    /* The stream may close with the response complete but the handler
     * never told (it finished); nothing more to do then. */
    call->cancelled = call->cancelled || !clean;
    call_unref(call);
    return 0;
}

/* ---- session ------------------------------------------------------------ */

struct sconn *sconn_new(struct sbx_grpc_server *srv, void (*want_write)(void *io), void *io)
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
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    nghttp2_session_callbacks_set_send_data_callback(cbs, send_data_frame);
    nghttp2_session_callbacks_set_data_source_read_length_callback(cbs, data_frame_length);
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

int sconn_recv(struct sconn *c, const uint8_t *data, size_t len)
{
    if (c->fatal) return -1;
    ssize_t rv = nghttp2_session_mem_recv(c->session, data, len);
    if (rv < 0) {
        c->fatal = true;
        return -1;
    }
    return 0;
}

ssize_t sconn_fill(struct sconn *c, size_t want)
{
    c->fill_want = want ? want : 1;
    while (c->out.unsent < c->fill_want) {
        const uint8_t *d;
        ssize_t n = nghttp2_session_mem_send(c->session, &d);
        if (n < 0 || (n > 0 && out_list_copy(&c->out, &c->srv->out_pool, d, (size_t)n) < 0)) {
            c->fatal = true;
            return -1;
        }
        if (n == 0) break; /* nothing more, or a DATA frame paused at fill_want */
    }
    return (ssize_t)c->out.unsent;
}

size_t sconn_next_output(struct sconn *c, struct iovec *iov, size_t max_iov, size_t max_bytes,
                         size_t *bytes)
{
    return out_list_next(&c->out, iov, max_iov, max_bytes, bytes);
}

void sconn_written(struct sconn *c, size_t len)
{
    out_list_written(&c->out, &c->srv->out_pool, len);
}

ssize_t sconn_send(struct sconn *c, const uint8_t **data)
{
    sconn_written(c, c->pulled);
    c->pulled = 0;
    if (sconn_fill(c, 1) < 0) return -1;
    struct iovec iov;
    size_t n;
    if (sconn_next_output(c, &iov, 1, SIZE_MAX, &n) == 0) return 0;
    *data = iov.iov_base;
    c->pulled = n;
    return (ssize_t)n;
}

void server_dispatch(struct sbx_grpc_server *s)
{
    if (s->dispatching) return;
    s->dispatching = true;
    /* Bounded: each round delivers what was pending when it started. */
    for (int rounds = 0; rounds < 64 && s->pend_head; rounds++) {
        struct sbx_grpc_server_call *list = s->pend_head;
        s->pend_head = s->pend_tail = NULL;
        while (list) {
            struct sbx_grpc_server_call *call = list;
            list = call->pend_next;
            call->in_pending = false;
            unsigned what = call->pending;
            call->pending = 0;
            const struct sbx_grpc_method *m = call->method ? &call->method->m : NULL;
            if ((what & N_REQUEST) && m && !call->cancelled && !call->rejected) {
                if (!call->handler_owned) {
                    call->handler_owned = true;
                    call->refs++;
                }
                while (call->req_head && !call->handler_done && !call->cancelled) {
                    struct req_msg *r = call->req_head;
                    call->req_head = r->next;
                    if (!call->req_head) call->req_tail = NULL;
                    m->on_request(call, r->data ? r->data : (const uint8_t *)"", r->len, m->user);
                    free(r->data);
                    free(r);
                }
            }
            if ((what & N_HALF_CLOSE) && m && !call->cancelled && !call->rejected) {
                if (!call->handler_owned) {
                    call->handler_owned = true;
                    call->refs++;
                }
                if (m->on_half_close)
                    m->on_half_close(call, m->user);
                else if (!call->handler_done)
                    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
            }
            /* The pending list's reference (taken in schedule) keeps the call
             * alive through handler_release until the call_unref below. */
            // NOLINTBEGIN(clang-analyzer-unix.Malloc)
            if ((what & N_WRITABLE) && call->handler_owned && !call->handler_done &&
                !call->cancelled && call->on_writable)
                call->on_writable(call, call->on_writable_user);
            if (call->cancelled && call->handler_owned && !call->handler_done &&
                !call->cancel_notified && call->on_cancel) {
                call->cancel_notified = true;
                call->on_cancel(call, call->on_cancel_user, call->cancel_reason);
            }
            call_unref(call);
            // NOLINTEND(clang-analyzer-unix.Malloc)
        }
    }
    s->dispatching = false;
    if (s->pend_head && s->kick_dispatch) s->kick_dispatch(s);
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

bool sconn_handshaken(const struct sconn *c)
{
    return c->handshaken;
}

int64_t sconn_next_deadline(const struct sconn *c)
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

void sconn_expire(struct sconn *c, int64_t now_ms)
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
            drop_queue(call);
            drop_requests(call);
            nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                      NGHTTP2_CANCEL);
            cancel_call(call, SBX_GRPC_CANCEL_STALLED);
            kick(c);
            continue;
        }
        int64_t rd = request_deadline(call);
        if (rd && rd <= now_ms) {
            /* A half-open request: nothing was delivered, nothing is owed. */
            call->request_deadline_ms = 0;
            call->rejected = true;
            call->status_submitted = true;
            drop_requests(call);
            nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                      NGHTTP2_CANCEL);
            cancel_call(call, SBX_GRPC_CANCEL_PROTOCOL);
            kick(c);
            continue;
        }
        if (call->deadline_ms && call->deadline_ms <= now_ms && call->stream_attached &&
            !call->status_submitted) {
            call->deadline_ms = 0;
            if (call->srv->opts.deadline_resets_stream) {
                /* Nothing more goes out on the stream: no status, a reset. */
                call->rejected = true;
                call->status_submitted = true;
                drop_requests(call);
                nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                          NGHTTP2_CANCEL);
                cancel_call(call, SBX_GRPC_CANCEL_DEADLINE);
                kick(c);
            } else {
                library_status(call, SBX_GRPC_DEADLINE_EXCEEDED, "deadline exceeded",
                               SBX_GRPC_CANCEL_DEADLINE);
            }
        }
    }
}

void sconn_goaway(struct sconn *c)
{
    nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(c->session), NGHTTP2_NO_ERROR,
                          NULL, 0);
    kick(c);
}

bool sconn_finished(const struct sconn *c)
{
    return c->fatal || (!nghttp2_session_want_read(c->session) &&
                        !nghttp2_session_want_write(c->session) && c->out.unsent == 0);
}

size_t sconn_streams(const struct sconn *c)
{
    return c->streams;
}

void sconn_lost(struct sconn *c, enum sbx_grpc_cancel_reason reason)
{
    struct sbx_grpc_server_call *call = c->calls;
    while (call) {
        struct sbx_grpc_server_call *next = call->next;
        if (call->stream_attached) {
            call->stream_attached = false;
            nghttp2_session_set_stream_user_data(c->session, call->stream_id, NULL);
            c->streams--;
            cancel_call(call, reason);
            call->cancelled = true;
            call_unref(call); /* the stream's reference */
        }
        call = next;
    }
}

void sconn_free(struct sconn *c)
{
    if (!c) return;
    sconn_lost(c, SBX_GRPC_CANCEL_CONNECTION);
    /* Handler-held calls outlive the connection, detached. */
    while (c->calls)
        /* a listed call has conn set: call_unref unlinked every freed one */
        // NOLINTNEXTLINE(clang-analyzer-unix.Malloc)
        unlink_call(c->calls);
    nghttp2_session_del(c->session);
    out_list_clear(&c->out, &c->srv->out_pool);
    free(c);
}

/* ---- handler API -------------------------------------------------------- */

/* Bytes were added to the call's queue: headers, flow and the socket. */
static void queued(struct sbx_grpc_server_call *call)
{
    if (!call->stall_since_ms) call->stall_since_ms = sbx_grpc_now_ms();
    if (call->q.bytes >= call->low_water) call->writable_armed = true;
    ensure_headers(call);
    if (call->data_deferred) {
        call->data_deferred = false;
        nghttp2_session_resume_data(call->conn->session, call->stream_id);
    }
    kick(call->conn);
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
    if (msg_queue_push(&call->q, &call->srv->out_pool, parts, n_parts, len) < 0)
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
    return msg_queue_reserve(&call->q, &call->srv->out_pool, cap);
}

int sbx_grpc_server_call_commit(struct sbx_grpc_server_call *call, size_t len)
{
    size_t cap = call->reserved;
    call->reserved = 0;
    if (len > cap) return SBX_GRPC_SEND_INVALID;
    if (!can_send(call)) return SBX_GRPC_SEND_CLOSED;
    if (len == 0) return SBX_GRPC_SEND_OK;
    msg_queue_commit(&call->q, len);
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
        schedule(call, N_CANCEL);
}

int sbx_grpc_server_call_add_metadata(struct sbx_grpc_server_call *call, const char *name,
                                      const char *value)
{
    if (!name || !value || call->status_submitted || call->handler_done ||
        !sbx_grpc_header_name_ok(name, strlen(name)) || strncmp(name, "grpc-", 5) == 0)
        return -1;
    for (const char *p = value; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f) return -1;
    return kv_add(&call->md, &call->n_md, name, strlen(name), value, strlen(value));
}

static void handler_release(struct sbx_grpc_server_call *call)
{
    if (call->handler_done) return;
    call->handler_done = true;
    if (call->handler_owned) {
        call->handler_owned = false;
        call_unref(call);
    }
}

void sbx_grpc_server_call_finish(struct sbx_grpc_server_call *call, int code, const char *message)
{
    if (!call || call->handler_done) return;
    if (call->conn && call->stream_attached && !call->cancelled && !call->status_submitted &&
        !call->rejected) {
        if (!call->headers_sent && call->srv->opts.never_trailers_only)
            ensure_headers(call); /* then the status follows as trailers */
        if (!call->headers_sent) {
            submit_status(call, code, message);
        } else {
            call->status_code = code;
            free(call->status_message);
            call->status_message = message ? strdup(message) : NULL;
            call->finish_pending = true;
            if (call->data_deferred) {
                call->data_deferred = false;
                nghttp2_session_resume_data(call->conn->session, call->stream_id);
            }
            kick(call->conn);
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
        kick(call->conn);
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
