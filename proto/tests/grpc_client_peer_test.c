/* SPDX-License-Identifier: Apache-2.0 */
/* The gRPC client against a scripted HTTP/2 server (a bare nghttp2 server
 * session wired to the client in memory): every response shape that other
 * conformant server stacks (grpc-go, grpcio, tonic/hyper, grpc-js, nginx,
 * envoy) may legally produce must come out as the status and messages they
 * carry, never as a protocol error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <nghttp2/nghttp2.h>

#include "client_transport.h"

#define MAX_STREAMS 16

struct reply; /* what the scripted server answers on one stream */

struct peer {
    nghttp2_session *s;
    uint8_t *out; /* server bytes not yet read by the client */
    size_t len, cap;
    bool eof; /* the server closed the connection once out drains */
    /* Streams whose request ended, in arrival order, not yet answered. */
    int32_t pending[MAX_STREAMS];
    size_t n_pending;
    int32_t seen[MAX_STREAMS]; /* every request stream id, in order */
    size_t n_seen;
    size_t pad; /* padding bytes added to every HEADERS and DATA frame */
    bool hold;  /* leave requests pending (the test answers them itself) */
    void (*answer)(struct peer *p, int32_t id);
    /* request headers seen, for checks of what the client advertises */
    bool saw_accept_encoding, saw_grpc_encoding;
    char extra_seen[8][96]; /* "name=value" of x-* and authorization request headers */
    size_t n_extra_seen;
    struct reply *replies[MAX_STREAMS];
};

/* ---- the server's response bodies -------------------------------------- */

struct reply {
    uint8_t body[70000];
    size_t len, off;
    size_t chunks[32]; /* DATA payload sizes in order (0 = an empty DATA frame); then rest */
    size_t n_chunks, next_chunk;
    nghttp2_nv trailers[4];
    size_t n_trailers;
};

static ssize_t reply_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
                          uint32_t *flags, nghttp2_data_source *src, void *user)
{
    (void)user;
    struct reply *r = src->ptr;
    size_t n = r->len - r->off;
    if (r->next_chunk < r->n_chunks) {
        size_t want = r->chunks[r->next_chunk];
        if (want <= length && want <= n) {
            n = want;
            r->next_chunk++;
        }
    }
    if (n > length) n = length;
    memcpy(buf, r->body + r->off, n);
    r->off += n;
    if (r->off == r->len && r->next_chunk >= r->n_chunks) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        if (r->n_trailers) {
            *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
            assert_int_equal(nghttp2_submit_trailer(s, id, r->trailers, r->n_trailers), 0);
        }
    }
    return (ssize_t)n;
}

static void put_message(struct reply *r, const void *msg, size_t len)
{
    sbx_grpc_frame_prefix(r->body + r->len, false, (uint32_t)len);
    if (len) memcpy(r->body + r->len + SBX_GRPC_PREFIX_LEN, msg, len);
    r->len += SBX_GRPC_PREFIX_LEN + len;
}

#define NV(n, v)                                                                                   \
    {                                                                                              \
        (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, NGHTTP2_NV_FLAG_NONE         \
    }

static void submit_reply(struct peer *p, int32_t id, const nghttp2_nv *hdrs, size_t n_hdrs,
                         struct reply *r)
{
    for (size_t i = 0; i < MAX_STREAMS; i++) {
        if (!p->replies[i]) {
            p->replies[i] = r;
            break;
        }
    }
    nghttp2_data_provider prd = {.source.ptr = r, .read_callback = reply_read};
    assert_int_equal(nghttp2_submit_response(p->s, id, hdrs, n_hdrs, &prd), 0);
}

/* ---- the scripted server session ---------------------------------------- */

static int srv_on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
                         size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags, void *user)
{
    (void)s;
    (void)f;
    (void)flags;
    struct peer *p = user;
    bool extra = (nlen > 2 && memcmp(name, "x-", 2) == 0) ||
                 (nlen == 13 && memcmp(name, "authorization", 13) == 0);
    if (extra && p->n_extra_seen < 8)
        snprintf(p->extra_seen[p->n_extra_seen++], sizeof p->extra_seen[0], "%.*s=%.*s", (int)nlen,
                 (const char *)name, (int)vlen, (const char *)value);
    if (nlen == 20 && memcmp(name, "grpc-accept-encoding", 20) == 0) p->saw_accept_encoding = true;
    if (nlen == 13 && memcmp(name, "grpc-encoding", 13) == 0) p->saw_grpc_encoding = true;
    return 0;
}

static int srv_on_frame(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
    (void)s;
    struct peer *p = user;
    if (f->hd.type == NGHTTP2_HEADERS && f->headers.cat == NGHTTP2_HCAT_REQUEST &&
        p->n_seen < MAX_STREAMS)
        p->seen[p->n_seen++] = f->hd.stream_id;
    if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) &&
        (f->hd.flags & NGHTTP2_FLAG_END_STREAM) && p->n_pending < MAX_STREAMS)
        p->pending[p->n_pending++] = f->hd.stream_id;
    return 0;
}

static ssize_t srv_padding(nghttp2_session *s, const nghttp2_frame *f, size_t max, void *user)
{
    (void)s;
    struct peer *p = user;
    size_t want = f->hd.length + p->pad;
    return (ssize_t)(want < max ? want : max);
}

static void peer_flush(struct peer *p)
{
    for (;;) {
        const uint8_t *d;
        ssize_t n = nghttp2_session_mem_send(p->s, &d);
        assert_true(n >= 0);
        if (n == 0) break;
        if (p->len + (size_t)n > p->cap) {
            p->cap = (p->len + (size_t)n) * 2;
            p->out = realloc(p->out, p->cap);
            assert_non_null(p->out);
        }
        memcpy(p->out + p->len, d, (size_t)n);
        p->len += (size_t)n;
    }
}

/* Answers the requests that ended, unless the test holds them. */
static void peer_serve(struct peer *p)
{
    while (!p->hold && p->n_pending > 0) {
        int32_t id = p->pending[0];
        memmove(p->pending, p->pending + 1, --p->n_pending * sizeof p->pending[0]);
        p->answer(p, id);
    }
    peer_flush(p);
}

static ssize_t peer_write(void *ctx, const uint8_t *buf, size_t len)
{
    struct peer *p = ctx;
    if (p->eof) return -1;
    ssize_t rv = nghttp2_session_mem_recv(p->s, buf, len);
    assert_true(rv >= 0);
    peer_serve(p);
    return (ssize_t)len;
}

static ssize_t peer_read(void *ctx, uint8_t *buf, size_t cap)
{
    struct peer *p = ctx;
    peer_serve(p);
    if (p->len == 0) return p->eof ? -2 : 0;
    size_t n = p->len < cap ? p->len : cap;
    memcpy(buf, p->out, n);
    memmove(p->out, p->out + n, p->len - n);
    p->len -= n;
    return (ssize_t)n;
}

static int peer_wait(void *ctx, int wait_ms, bool want_write)
{
    struct peer *p = ctx;
    (void)want_write;
    peer_serve(p);
    if (p->len || p->eof) return 1;
    if (wait_ms > 0) usleep(1000);
    return 0;
}

static void peer_close(void *ctx)
{
    (void)ctx;
}

static const struct sbx_grpc_transport_ops peer_ops = {peer_write, peer_read, peer_wait,
                                                       peer_close};

static void peer_init(struct peer *p, const nghttp2_settings_entry *iv, size_t niv)
{
    memset(p, 0, sizeof *p);
    nghttp2_session_callbacks *cbs;
    assert_int_equal(nghttp2_session_callbacks_new(&cbs), 0);
    nghttp2_session_callbacks_set_on_header_callback(cbs, srv_on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, srv_on_frame);
    nghttp2_session_callbacks_set_select_padding_callback(cbs, srv_padding);
    assert_int_equal(nghttp2_session_server_new(&p->s, cbs, p), 0);
    nghttp2_session_callbacks_del(cbs);
    assert_int_equal(nghttp2_submit_settings(p->s, NGHTTP2_FLAG_NONE, iv, niv), 0);
}

static void peer_free(struct peer *p)
{
    nghttp2_session_del(p->s);
    for (size_t i = 0; i < MAX_STREAMS; i++)
        free(p->replies[i]);
    free(p->out);
}

static struct sbx_grpc_conn *peer_connect(struct peer *p)
{
    char err[256] = "";
    struct sbx_grpc_conn *c = sbx_grpc_conn_new(&peer_ops, p, "peer", NULL, err, sizeof err);
    assert_non_null(c);
    return c;
}

static struct reply *new_reply(void)
{
    struct reply *r = calloc(1, sizeof *r);
    assert_non_null(r);
    return r;
}

/* Runs one unary call; returns the result (free it). */
static int unary(struct sbx_grpc_conn *c, const char *req, struct sbx_grpc_result *res)
{
    struct sbx_grpc_call_opts o = {.wait_ms = 5000};
    return sbx_grpc_unary(c, "/process.v1.ProcessService/Execute", req, strlen(req), &o, res);
}

/* ---- response shapes ------------------------------------------------------ */

/* Headers with content-type application/grpc+proto and a charset-like
 * parameter, grpc-encoding identity, an extra header; one message; trailers
 * with grpc-status, a percent-encoded grpc-message and status details. */
static void answer_full(struct peer *p, int32_t id)
{
    static const nghttp2_nv hdrs[] = {NV(":status", "200"),
                                      NV("content-type", "application/grpc+proto; x=y"),
                                      NV("grpc-encoding", "identity"),
                                      NV("grpc-accept-encoding", "identity,deflate,gzip"),
                                      NV("date", "Mon, 01 Jan 2024 00:00:00 GMT"),
                                      NV("server", "scripted")};
    struct reply *r = new_reply();
    put_message(r, "hello", 5);
    r->trailers[0] = (nghttp2_nv)NV("grpc-status", "5");
    r->trailers[1] = (nghttp2_nv)NV("grpc-message", "no %E2%9C%93 100%25 %zz");
    r->trailers[2] = (nghttp2_nv)NV("grpc-status-details-bin", "CAUSBm5vIHN1Y2g");
    r->trailers[3] = (nghttp2_nv)NV("x-extra", "1");
    r->n_trailers = 4;
    submit_reply(p, id, hdrs, sizeof hdrs / sizeof hdrs[0], r);
}

static void test_headers_message_trailers(void **state)
{
    (void)state;
    struct peer p;
    peer_init(&p, NULL, 0);
    p.answer = answer_full;
    struct sbx_grpc_conn *c = peer_connect(&p);
    struct sbx_grpc_result res;
    assert_int_equal(unary(c, "x", &res), SBX_GRPC_NOT_FOUND);
    assert_int_equal(res.end, SBX_GRPC_END_STATUS);
    assert_false(res.trailers_only);
    assert_int_equal(res.n_messages, 1);
    assert_int_equal(res.response_len, 5);
    assert_memory_equal(res.response, "hello", 5);
    /* Valid escapes decoded; an invalid one is kept as it came. */
    assert_string_equal(res.message, "no \xe2\x9c\x93 100% %zz");
    assert_non_null(sbx_grpc_md_get(res.trailers, res.n_trailers, "grpc-status-details-bin"));
    /* The client neither advertises nor uses message compression, so a
     * server never has a reason to compress what it sends. */
    assert_false(p.saw_accept_encoding);
    assert_false(p.saw_grpc_encoding);
    sbx_grpc_result_free(&res);
    sbx_grpc_conn_close(c);
    peer_free(&p);
}

/* Headers the connection sends on every call (what a router or a gateway in
 * front of the server needs) go out on each call, after the call's own; a
 * name the call sends itself is not sent twice. */
static void test_connection_headers_on_every_call(void **state)
{
    (void)state;
    struct peer p;
    peer_init(&p, NULL, 0);
    p.answer = answer_full;
    static const struct sbx_grpc_header_kv conn_hdrs[] = {{"x-sandbox-id", "from-conn"},
                                                          {"authorization", "Bearer t"}};
    struct sbx_grpc_conn_opts co = {.extra_headers = conn_hdrs, .n_extra_headers = 2};
    char err[256] = "";
    struct sbx_grpc_conn *c = sbx_grpc_conn_new(&peer_ops, &p, "peer", &co, err, sizeof err);
    assert_non_null(c);
    struct sbx_grpc_result res;
    assert_int_equal(unary(c, "x", &res), SBX_GRPC_NOT_FOUND);
    sbx_grpc_result_free(&res);
    assert_int_equal(p.n_extra_seen, 2);
    assert_string_equal(p.extra_seen[0], "x-sandbox-id=from-conn");
    assert_string_equal(p.extra_seen[1], "authorization=Bearer t");
    p.n_extra_seen = 0;
    static const struct sbx_grpc_header_kv call_hdrs[] = {{"x-sandbox-id", "from-call"}};
    struct sbx_grpc_call_opts o = {
        .wait_ms = 5000, .extra_headers = call_hdrs, .n_extra_headers = 1};
    assert_int_equal(sbx_grpc_unary(c, "/process.v1.ProcessService/Execute", "x", 1, &o, &res),
                     SBX_GRPC_NOT_FOUND);
    sbx_grpc_result_free(&res);
    assert_int_equal(p.n_extra_seen, 2);
    assert_string_equal(p.extra_seen[0], "x-sandbox-id=from-call");
    assert_string_equal(p.extra_seen[1], "authorization=Bearer t");
    sbx_grpc_conn_close(c);
    peer_free(&p);
}

/* Trailers-only, with and without grpc-message and content-type. */
static void answer_trailers_only(struct peer *p, int32_t id)
{
    static const nghttp2_nv with_ct[] = {
        NV(":status", "200"), NV("content-type", "application/grpc"), NV("grpc-status", "3")};
    static const nghttp2_nv bare[] = {NV(":status", "200"), NV("grpc-status", "0")};
    if (id == 1)
        assert_int_equal(nghttp2_submit_response(p->s, id, with_ct, 3, NULL), 0);
    else
        assert_int_equal(nghttp2_submit_response(p->s, id, bare, 2, NULL), 0);
}

static void test_trailers_only(void **state)
{
    (void)state;
    struct peer p;
    peer_init(&p, NULL, 0);
    p.answer = answer_trailers_only;
    struct sbx_grpc_conn *c = peer_connect(&p);
    struct sbx_grpc_result res;
    assert_int_equal(unary(c, "x", &res), SBX_GRPC_INVALID_ARGUMENT);
    assert_true(res.trailers_only);
    assert_null(res.message);
    sbx_grpc_result_free(&res);
    /* OK without a message is a status; whether a unary call may end so is
     * the caller's business (the status arrives intact). */
    assert_int_equal(unary(c, "x", &res), SBX_GRPC_OK);
    assert_int_equal(res.end, SBX_GRPC_END_STATUS);
    sbx_grpc_result_free(&res);
    sbx_grpc_conn_close(c);
    peer_free(&p);
}

/* Messages split over many DATA frames, empty DATA frames, several messages
 * (one zero-length) in one frame, padding, a PING and a SETTINGS change in
 * the middle, and a trailer block large enough to need CONTINUATION frames. */
static char big_details[30001];

static void answer_framing(struct peer *p, int32_t id)
{
    static const nghttp2_nv hdrs[] = {NV(":status", "200"), NV("content-type", "application/grpc")};
    struct reply *r = new_reply();
    uint8_t big[40000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    put_message(r, big, sizeof big); /* 40005 bytes: spread over the chunks below */
    put_message(r, "", 0);
    put_message(r, "ab", 2);
    put_message(r, "", 0);
    static const size_t chunks[] = {0, 1, 3, 0, 1, 100, 0, 16384, 7, 0};
    memcpy(r->chunks, chunks, sizeof chunks);
    r->n_chunks = sizeof chunks / sizeof chunks[0];
    r->trailers[0] = (nghttp2_nv)NV("grpc-status", "0");
    r->trailers[1] = (nghttp2_nv){(uint8_t *)"grpc-status-details-bin", (uint8_t *)big_details, 23,
                                  sizeof big_details - 1, NGHTTP2_NV_FLAG_NO_INDEX};
    r->n_trailers = 2;
    uint8_t ping[8] = "pingpong";
    assert_int_equal(nghttp2_submit_ping(p->s, NGHTTP2_FLAG_NONE, ping), 0);
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1000},
                                   {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 50}};
    assert_int_equal(nghttp2_submit_settings(p->s, NGHTTP2_FLAG_NONE, iv, 2), 0);
    submit_reply(p, id, hdrs, 2, r);
}

static void test_framing_variants(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof big_details - 1; i++)
        big_details[i] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(i * 31) % 64];
    for (int padded = 0; padded < 2; padded++) {
        struct peer p;
        peer_init(&p, NULL, 0);
        p.answer = answer_framing;
        p.pad = padded ? 200 : 0;
        struct sbx_grpc_conn *c = peer_connect(&p);
        for (int round = 0; round < 3; round++) {
            char err[256] = "";
            struct sbx_grpc_call_opts o = {.wait_ms = 5000};
            struct sbx_grpc_call *call = sbx_grpc_call_start(c, "/process.v1.ProcessService/Start",
                                                             "x", 1, &o, err, sizeof err);
            assert_non_null(call);
            size_t lens[8], n = 0;
            const uint8_t *msg;
            size_t len;
            int rv;
            while ((rv = sbx_grpc_call_next(call, 1000, &msg, &len)) != SBX_GRPC_NEXT_END) {
                assert_int_equal(rv, SBX_GRPC_NEXT_MESSAGE);
                assert_true(n < 8);
                if (len == 40000) {
                    for (size_t i = 0; i < len; i++)
                        assert_int_equal(msg[i], (uint8_t)(i * 7));
                }
                lens[n++] = len;
            }
            const struct sbx_grpc_result *r = sbx_grpc_call_result(call);
            assert_int_equal(r->end, SBX_GRPC_END_STATUS);
            assert_int_equal(r->code, SBX_GRPC_OK);
            assert_int_equal(n, 4);
            assert_int_equal(lens[0], 40000);
            assert_int_equal(lens[1], 0);
            assert_int_equal(lens[2], 2);
            assert_int_equal(lens[3], 0);
            const char *d = sbx_grpc_md_get(r->trailers, r->n_trailers, "grpc-status-details-bin");
            assert_non_null(d);
            assert_int_equal(strlen(d), sizeof big_details - 1);
            sbx_grpc_call_free(call);
        }
        /* Padding and flow control stayed in step: the connection still works. */
        assert_true(sbx_grpc_conn_usable(c));
        sbx_grpc_conn_close(c);
        peer_free(&p);
    }
}

/* A server whose SETTINGS allow one stream at a time and tiny windows at
 * their minimum frame size: eight calls queue and all complete. */
static void answer_echo(struct peer *p, int32_t id)
{
    static const nghttp2_nv hdrs[] = {NV(":status", "200"), NV("content-type", "application/grpc")};
    struct reply *r = new_reply();
    put_message(r, "ok", 2);
    r->trailers[0] = (nghttp2_nv)NV("grpc-status", "0");
    r->n_trailers = 1;
    submit_reply(p, id, hdrs, 2, r);
}

static void test_one_stream_at_a_time(void **state)
{
    (void)state;
    static const nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1},
                                                {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 16},
                                                {NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 16384}};
    struct peer p;
    peer_init(&p, iv, 3);
    p.answer = answer_echo;
    p.hold = true; /* all eight are sent before the server answers any */
    struct sbx_grpc_conn *c = peer_connect(&p);
    struct sbx_grpc_call *calls[8];
    char req[3000];
    memset(req, 'r', sizeof req);
    for (int i = 0; i < 8; i++) {
        char err[256] = "";
        struct sbx_grpc_call_opts o = {.wait_ms = 5000};
        calls[i] = sbx_grpc_call_start(c, "/process.v1.ProcessService/Execute", req, sizeof req, &o,
                                       err, sizeof err);
        assert_non_null(calls[i]);
    }
    const uint8_t *msg;
    size_t len;
    for (int i = 0; i < 20; i++)
        assert_int_equal(sbx_grpc_call_next(calls[0], 5, &msg, &len), SBX_GRPC_NEXT_TIMEOUT);
    p.hold = false;
    for (int i = 0; i < 8; i++) {
        int rv;
        while ((rv = sbx_grpc_call_next(calls[i], 1000, &msg, &len)) == SBX_GRPC_NEXT_MESSAGE ||
               rv == SBX_GRPC_NEXT_TIMEOUT)
            ;
        const struct sbx_grpc_result *r = sbx_grpc_call_result(calls[i]);
        assert_int_equal(r->end, SBX_GRPC_END_STATUS);
        assert_int_equal(r->code, SBX_GRPC_OK);
        assert_int_equal(r->n_messages, 1);
        sbx_grpc_call_free(calls[i]);
    }
    sbx_grpc_conn_close(c);
    peer_free(&p);
}

/* A complete response before the request ended, then RST_STREAM NO_ERROR
 * (RFC 9113 section 8.1): the call ends with the response's status. */
static void test_rst_no_error_after_response(void **state)
{
    (void)state;
    struct peer p;
    peer_init(&p, NULL, 0);
    p.answer = answer_echo;
    p.hold = true;
    struct sbx_grpc_conn *c = peer_connect(&p);
    char err[256] = "";
    struct sbx_grpc_call_opts o = {.wait_ms = 5000, .no_half_close = true};
    struct sbx_grpc_call *call =
        sbx_grpc_call_start(c, "/process.v1.ProcessService/Start", "x", 1, &o, err, sizeof err);
    assert_non_null(call);
    const uint8_t *msg;
    size_t len;
    for (int i = 0; i < 20 && p.n_seen < 1; i++)
        assert_int_equal(sbx_grpc_call_next(call, 10, &msg, &len), SBX_GRPC_NEXT_TIMEOUT);
    assert_int_equal(p.n_seen, 1);
    answer_echo(&p, p.seen[0]);
    peer_flush(&p);
    assert_int_equal(nghttp2_submit_rst_stream(p.s, NGHTTP2_FLAG_NONE, p.seen[0], NGHTTP2_NO_ERROR),
                     0);
    peer_flush(&p);
    int rv;
    size_t n = 0;
    while ((rv = sbx_grpc_call_next(call, 1000, &msg, &len)) == SBX_GRPC_NEXT_MESSAGE)
        n++;
    assert_int_equal(rv, SBX_GRPC_NEXT_END);
    assert_int_equal(n, 1);
    const struct sbx_grpc_result *r = sbx_grpc_call_result(call);
    assert_int_equal(r->end, SBX_GRPC_END_STATUS);
    assert_int_equal(r->code, SBX_GRPC_OK);
    sbx_grpc_call_free(call);
    assert_true(sbx_grpc_conn_usable(c));
    sbx_grpc_conn_close(c);
    peer_free(&p);
}

/* RST_STREAM REFUSED_STREAM (the server did not process the request, e.g. a
 * proxy under load): the call is sent again and completes. */
static void test_refused_stream_is_sent_again(void **state)
{
    (void)state;
    struct peer p;
    peer_init(&p, NULL, 0);
    p.answer = answer_echo;
    p.hold = true;
    struct sbx_grpc_conn *c = peer_connect(&p);
    char err[256] = "";
    struct sbx_grpc_call_opts o = {.wait_ms = 5000};
    struct sbx_grpc_call *call =
        sbx_grpc_call_start(c, "/process.v1.ProcessService/Execute", "x", 1, &o, err, sizeof err);
    assert_non_null(call);
    const uint8_t *msg;
    size_t len;
    for (int i = 0; i < 20 && p.n_pending < 1; i++)
        assert_int_equal(sbx_grpc_call_next(call, 10, &msg, &len), SBX_GRPC_NEXT_TIMEOUT);
    assert_int_equal(p.n_pending, 1);
    p.n_pending = 0;
    assert_int_equal(
        nghttp2_submit_rst_stream(p.s, NGHTTP2_FLAG_NONE, p.seen[0], NGHTTP2_REFUSED_STREAM), 0);
    p.hold = false;
    int rv;
    while ((rv = sbx_grpc_call_next(call, 1000, &msg, &len)) == SBX_GRPC_NEXT_MESSAGE)
        ;
    const struct sbx_grpc_result *r = sbx_grpc_call_result(call);
    assert_int_equal(rv, SBX_GRPC_NEXT_END);
    assert_int_equal(r->code, SBX_GRPC_OK);
    assert_int_equal(r->n_messages, 1);
    assert_int_equal(p.n_seen, 2);
    assert_int_not_equal(r->stream_id, p.seen[0]);
    sbx_grpc_call_free(call);
    sbx_grpc_conn_close(c);
    peer_free(&p);
}

/* Graceful GOAWAY in two steps while calls are in flight: the calls the
 * server accepted finish normally; the connection takes no new calls. */
static void test_graceful_goaway(void **state)
{
    (void)state;
    struct peer p;
    peer_init(&p, NULL, 0);
    p.answer = answer_echo;
    p.hold = true;
    struct sbx_grpc_conn *c = peer_connect(&p);
    struct sbx_grpc_call *calls[3];
    for (int i = 0; i < 3; i++) {
        char err[256] = "";
        struct sbx_grpc_call_opts o = {.wait_ms = 5000};
        calls[i] = sbx_grpc_call_start(c, "/process.v1.ProcessService/Execute", "x", 1, &o, err,
                                       sizeof err);
        assert_non_null(calls[i]);
    }
    const uint8_t *msg;
    size_t len;
    for (int i = 0; i < 20 && p.n_pending < 3; i++)
        assert_int_equal(sbx_grpc_call_next(calls[0], 10, &msg, &len), SBX_GRPC_NEXT_TIMEOUT);
    assert_int_equal(p.n_pending, 3);
    /* Step one: GOAWAY with the largest id, then a PING round trip. */
    assert_int_equal(nghttp2_submit_shutdown_notice(p.s), 0);
    peer_flush(&p);
    assert_int_equal(sbx_grpc_call_next(calls[0], 50, &msg, &len), SBX_GRPC_NEXT_TIMEOUT);
    assert_false(sbx_grpc_conn_usable(c));
    /* Step two: the final GOAWAY names the last stream taken (the second);
     * the server answers those two and drops the third. */
    assert_int_equal(
        nghttp2_submit_goaway(p.s, NGHTTP2_FLAG_NONE, p.pending[1], NGHTTP2_NO_ERROR, NULL, 0), 0);
    p.n_pending = 2;
    p.hold = false;
    for (int i = 0; i < 3; i++) {
        int rv;
        while ((rv = sbx_grpc_call_next(calls[i], 1000, &msg, &len)) == SBX_GRPC_NEXT_MESSAGE ||
               rv == SBX_GRPC_NEXT_TIMEOUT)
            ;
        const struct sbx_grpc_result *r = sbx_grpc_call_result(calls[i]);
        if (i < 2) {
            assert_int_equal(r->end, SBX_GRPC_END_STATUS);
            assert_int_equal(r->code, SBX_GRPC_OK);
            assert_false(r->refused);
        } else {
            /* Not processed: the caller may send it again elsewhere. */
            assert_int_equal(r->end, SBX_GRPC_END_CONNECTION);
            assert_true(r->refused);
        }
        sbx_grpc_call_free(calls[i]);
    }
    sbx_grpc_conn_close(c);
    peer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_message_trailers),
        cmocka_unit_test(test_connection_headers_on_every_call),
        cmocka_unit_test(test_trailers_only),
        cmocka_unit_test(test_framing_variants),
        cmocka_unit_test(test_one_stream_at_a_time),
        cmocka_unit_test(test_rst_no_error_after_response),
        cmocka_unit_test(test_refused_stream_is_sent_again),
        cmocka_unit_test(test_graceful_goaway),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
