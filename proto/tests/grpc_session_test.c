/* SPDX-License-Identifier: Apache-2.0 */
/* Client and server sessions wired together in memory (the client's bytes
 * go straight into the server session and back): gRPC semantics, flow
 * control, cancellation both ways and bad input, without sockets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "client_transport.h"
#include "server_internal.h"

struct mem {
    struct sbx_grpc_server *srv;
    struct sconn *sc;
    bool fatal;
    uint8_t *out; /* server output not yet read by the client */
    size_t len, cap;
};

static void pull_server_output(struct mem *m)
{
    sbx_grpc_server_dispatch(m->srv);
    for (;;) {
        const uint8_t *d;
        ssize_t n = sbx_grpc_sconn_send(m->sc, &d);
        if (n <= 0) break;
        if (m->len + (size_t)n > m->cap) {
            m->cap = (m->len + (size_t)n) * 2;
            m->out = realloc(m->out, m->cap);
        }
        memcpy(m->out + m->len, d, (size_t)n);
        m->len += (size_t)n;
        sbx_grpc_server_dispatch(m->srv);
    }
}

static ssize_t mem_write(void *ctx, const uint8_t *buf, size_t len)
{
    struct mem *m = ctx;
    if (sbx_grpc_sconn_recv(m->sc, buf, len) < 0) m->fatal = true;
    pull_server_output(m);
    return (ssize_t)len;
}

static ssize_t mem_read(void *ctx, uint8_t *buf, size_t cap)
{
    struct mem *m = ctx;
    pull_server_output(m);
    if (m->len == 0) return (m->fatal || sbx_grpc_sconn_finished(m->sc)) ? -2 : 0;
    size_t n = m->len < cap ? m->len : cap;
    memcpy(buf, m->out, n);
    memmove(m->out, m->out + n, m->len - n);
    m->len -= n;
    return (ssize_t)n;
}

static int mem_wait(void *ctx, int wait_ms, bool want_write)
{
    struct mem *m = ctx;
    (void)want_write;
    sbx_grpc_sconn_expire(m->sc, sbx_grpc_now_ms());
    pull_server_output(m);
    if (m->len || m->fatal || sbx_grpc_sconn_finished(m->sc)) return 1;
    if (wait_ms > 0) usleep(wait_ms < 5 ? (useconds_t)wait_ms * 1000 : 5000);
    return 0;
}

static void mem_close(void *ctx)
{
    (void)ctx;
}

static const struct sbx_grpc_transport_ops mem_ops = {mem_write, mem_read, mem_wait, mem_close};

/* ---- test service -------------------------------------------------------- */

static int cancel_reason;
static size_t max_queued;
static int writable_calls;
static struct sbx_grpc_server_call *held;

static void on_echo(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *u)
{
    (void)u;
    sbx_grpc_server_call_add_metadata(call, "x-echo", "1");
    sbx_grpc_server_call_send_message(call, msg, len);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

static void on_fail(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *u)
{
    (void)msg;
    (void)len;
    (void)u;
    sbx_grpc_server_call_finish(call, SBX_GRPC_NOT_FOUND, "no such \xe2\x9c\x93 100%");
}

static void record_cancel(struct sbx_grpc_server_call *call, void *u,
                          enum sbx_grpc_cancel_reason reason)
{
    (void)u;
    cancel_reason = (int)reason;
    /* Sending after a cancellation fails harmlessly. */
    assert_int_equal(sbx_grpc_server_call_send_message(call, "x", 1), SBX_GRPC_SEND_CLOSED);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
    if (held == call) held = NULL;
}

static void on_hang(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *u)
{
    (void)msg;
    (void)len;
    (void)u;
    held = call;
    sbx_grpc_server_call_on_cancel(call, record_cancel, NULL);
}

struct producer {
    int left;
};

static void produce(struct sbx_grpc_server_call *call, void *u)
{
    struct producer *p = u;
    uint8_t chunk[1000];
    memset(chunk, 'p', sizeof chunk);
    writable_calls++;
    while (p->left > 0 && sbx_grpc_server_call_queued(call) < 8192) {
        assert_int_equal(sbx_grpc_server_call_send_message(call, chunk, sizeof chunk), 0);
        p->left--;
        if (sbx_grpc_server_call_queued(call) > max_queued)
            max_queued = sbx_grpc_server_call_queued(call);
    }
    if (p->left == 0) {
        p->left = -1;
        sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
    }
}

static struct producer producer;

static void on_stream(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *u)
{
    (void)msg;
    (void)len;
    (void)u;
    producer.left = 300;
    sbx_grpc_server_call_on_cancel(call, record_cancel, NULL);
    sbx_grpc_server_call_on_writable(call, 4096, produce, &producer);
    produce(call, &producer);
    writable_calls = 0;
}

struct fixture {
    struct mem mem;
    struct sbx_grpc_conn *conn;
};

#define STALL_MS 1000

static int setup_with(void **state, const struct sbx_grpc_conn_opts *co, bool stall_bound)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct sbx_grpc_server_opts so = {.max_recv_message = 1024,
                                      .send_stall_timeout_ms = stall_bound ? STALL_MS : 0};
    f->mem.srv = sbx_grpc_server_new(NULL, &so);
    const struct sbx_grpc_method ms[] = {
        {"/t.S/Echo", SBX_GRPC_METHOD_UNARY, on_echo, NULL, NULL},
        {"/t.S/Fail", SBX_GRPC_METHOD_UNARY, on_fail, NULL, NULL},
        {"/t.S/Hang", SBX_GRPC_METHOD_UNARY, on_hang, NULL, NULL},
        {"/t.S/Stream", SBX_GRPC_METHOD_SERVER_STREAMING, on_stream, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        assert_int_equal(sbx_grpc_server_add_method(f->mem.srv, &ms[i]), 0);
    assert_int_equal(sbx_grpc_server_add_method(f->mem.srv, &ms[0]), -1); /* duplicate */
    f->mem.sc = sbx_grpc_sconn_new(f->mem.srv, NULL, NULL);
    char err[128];
    f->conn = sbx_grpc_conn_new(&mem_ops, &f->mem, "test", co, err, sizeof err);
    assert_non_null(f->conn);
    cancel_reason = 0;
    max_queued = 0;
    held = NULL;
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_with(state, NULL, false);
}

static int setup_small_window(void **state)
{
    struct sbx_grpc_conn_opts co = {.initial_stream_window = 4096};
    return setup_with(state, &co, false);
}

static int setup_small_window_stall(void **state)
{
    struct sbx_grpc_conn_opts co = {.initial_stream_window = 4096};
    return setup_with(state, &co, true);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    sbx_grpc_conn_close(f->conn);
    sbx_grpc_sconn_free(f->mem.sc);
    sbx_grpc_server_dispatch(f->mem.srv);
    assert_int_equal(sbx_grpc_server_active_calls(f->mem.srv), 0);
    sbx_grpc_server_free(f->mem.srv);
    free(f->mem.out);
    free(f);
    return 0;
}

static void test_unary(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_result r;
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Echo", "ping", 4, NULL, &r), 0);
    assert_int_equal(r.end, SBX_GRPC_END_STATUS);
    assert_int_equal(r.response_len, 4);
    assert_memory_equal(r.response, "ping", 4);
    assert_int_equal(r.http_status, 200);
    assert_false(r.trailers_only);
    assert_string_equal(sbx_grpc_md_get(r.headers, r.n_headers, "x-echo"), "1");
    sbx_grpc_result_free(&r);
    /* Zero-length request and response. */
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Echo", "", 0, NULL, &r), 0);
    assert_int_equal(r.n_messages, 1);
    assert_int_equal(r.response_len, 0);
    sbx_grpc_result_free(&r);
}

static void test_status_trailers_only(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_result r;
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Fail", "", 0, NULL, &r), SBX_GRPC_NOT_FOUND);
    assert_true(r.trailers_only);
    assert_string_equal(r.message, "no such \xe2\x9c\x93 100%");
    assert_string_equal(r.raw_message, "no such %E2%9C%93 100%25");
    sbx_grpc_result_free(&r);
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Nope", "", 0, NULL, &r), SBX_GRPC_UNIMPLEMENTED);
    assert_true(r.trailers_only);
    sbx_grpc_result_free(&r);
}

static void test_bad_requests(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_result r;
    struct sbx_grpc_call_opts ct = {.content_type = "application/json"};
    sbx_grpc_unary(f->conn, "/t.S/Echo", "x", 1, &ct, &r);
    assert_int_equal(r.end, SBX_GRPC_END_PROTOCOL);
    assert_int_equal(r.http_status, 415);
    sbx_grpc_result_free(&r);

    struct sbx_grpc_call_opts get = {.method = "GET"};
    sbx_grpc_unary(f->conn, "/t.S/Echo", "x", 1, &get, &r);
    assert_int_equal(r.http_status, 405);
    sbx_grpc_result_free(&r);

    uint8_t big[1100] = {0};
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Echo", big, sizeof big, NULL, &r),
                     SBX_GRPC_RESOURCE_EXHAUSTED);
    sbx_grpc_result_free(&r);

    struct sbx_grpc_call_opts comp = {.compressed_flag = true};
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Echo", "x", 1, &comp, &r),
                     SBX_GRPC_UNIMPLEMENTED);
    sbx_grpc_result_free(&r);

    /* A prefix announcing 10 bytes, then END_STREAM after 3. */
    struct sbx_grpc_call_opts raw = {.raw_body = true};
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Echo",
                                    "\0\0\0\0\x0a"
                                    "abc",
                                    8, &raw, &r),
                     SBX_GRPC_INTERNAL);
    sbx_grpc_result_free(&r);

    /* Two messages to a unary method. */
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Echo", "\0\0\0\0\0\0\0\0\0\0", 10, &raw, &r),
                     SBX_GRPC_INTERNAL);
    sbx_grpc_result_free(&r);

    struct sbx_grpc_call_opts tmo = {.grpc_timeout_raw = "soon"};
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Echo", "x", 1, &tmo, &r), SBX_GRPC_INTERNAL);
    sbx_grpc_result_free(&r);

    /* Split into 1-byte DATA frames: reassembled. */
    struct sbx_grpc_call_opts split = {.max_data_frame = 1};
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Echo", "hello", 5, &split, &r), 0);
    assert_memory_equal(r.response, "hello", 5);
    sbx_grpc_result_free(&r);
    assert_true(sbx_grpc_conn_usable(f->conn));
}

static void test_deadline(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_result r;
    struct sbx_grpc_call_opts o = {.timeout_ms = 50};
    assert_int_equal(sbx_grpc_unary(f->conn, "/t.S/Hang", "x", 1, &o, &r),
                     SBX_GRPC_DEADLINE_EXCEEDED);
    assert_int_equal(r.end, SBX_GRPC_END_STATUS); /* sent by the server */
    sbx_grpc_result_free(&r);
    sbx_grpc_server_dispatch(f->mem.srv);
    assert_int_equal(cancel_reason, SBX_GRPC_CANCEL_DEADLINE);
    assert_null(held);
}

static void test_client_cancel(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_call *call = sbx_grpc_call_start(f->conn, "/t.S/Hang", "x", 1, NULL, NULL, 0);
    const uint8_t *m;
    size_t len;
    assert_int_equal(sbx_grpc_call_next(call, 20, &m, &len), SBX_GRPC_NEXT_TIMEOUT);
    assert_non_null(held);
    sbx_grpc_call_cancel(call);
    assert_int_equal(sbx_grpc_call_next(call, 0, &m, &len), SBX_GRPC_NEXT_ERROR);
    assert_int_equal(sbx_grpc_call_result(call)->end, SBX_GRPC_END_CANCELLED);
    sbx_grpc_conn_pump(f->conn, 0);
    sbx_grpc_server_dispatch(f->mem.srv);
    assert_int_equal(cancel_reason, SBX_GRPC_CANCEL_RESET);
    assert_null(held);
    sbx_grpc_call_free(call);
}

static void test_server_reset(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_call *call = sbx_grpc_call_start(f->conn, "/t.S/Hang", "x", 1, NULL, NULL, 0);
    const uint8_t *m;
    size_t len;
    assert_int_equal(sbx_grpc_call_next(call, 20, &m, &len), SBX_GRPC_NEXT_TIMEOUT);
    assert_non_null(held);
    struct sbx_grpc_server_call *sc = held;
    held = NULL;
    sbx_grpc_server_call_release(sc); /* RST_STREAM CANCEL from the server */
    assert_int_equal(sbx_grpc_call_next(call, 1000, &m, &len), SBX_GRPC_NEXT_ERROR);
    assert_int_equal(sbx_grpc_call_result(call)->end, SBX_GRPC_END_RESET);
    assert_int_equal(sbx_grpc_call_result(call)->code, SBX_GRPC_CANCELLED);
    sbx_grpc_call_free(call);
}

/* The client reads slowly: the server's queue stays bounded and refills
 * through on_writable as the client's window opens. */
static void test_flow_control(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_call *call = sbx_grpc_call_start(f->conn, "/t.S/Stream", "", 0, NULL, NULL, 0);
    const uint8_t *m;
    size_t len;
    for (int i = 0; i < 10; i++)
        sbx_grpc_conn_pump(f->conn, 1);
    /* Unread: only about one 4 KiB window of messages reached the client. */
    size_t arrived = sbx_grpc_call_result(call)->n_messages;
    assert_true(arrived * 1005 <= 4096 + 1005);
    int n = 0, rv;
    while ((rv = sbx_grpc_call_next(call, 1000, &m, &len)) == SBX_GRPC_NEXT_MESSAGE) {
        assert_int_equal(len, 1000);
        n++;
    }
    assert_int_equal(rv, SBX_GRPC_NEXT_END);
    assert_int_equal(sbx_grpc_call_result(call)->code, 0);
    assert_int_equal(n, 300);
    assert_true(max_queued < 8192 + 1005);
    assert_true(writable_calls > 10);
    sbx_grpc_call_free(call);
}

/* The client never reads: its window stays closed, nothing leaves the
 * server's queue, and once send_stall_timeout_ms passed the stream is reset
 * and the handler told (STALLED). Time is handed to sbx_grpc_sconn_expire. */
static void test_send_stall(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_call *call = sbx_grpc_call_start(f->conn, "/t.S/Stream", "", 0, NULL, NULL, 0);
    for (int i = 0; i < 10; i++)
        sbx_grpc_conn_pump(f->conn, 1);
    int64_t now = sbx_grpc_now_ms();
    sbx_grpc_sconn_expire(f->mem.sc, now + STALL_MS / 2); /* not yet */
    sbx_grpc_server_dispatch(f->mem.srv);
    assert_int_equal(cancel_reason, 0);
    assert_int_not_equal(sbx_grpc_sconn_next_deadline(f->mem.sc), -1);
    sbx_grpc_sconn_expire(f->mem.sc, now + STALL_MS + 100);
    sbx_grpc_server_dispatch(f->mem.srv);
    assert_int_equal(cancel_reason, SBX_GRPC_CANCEL_STALLED);
    const uint8_t *m;
    size_t len;
    int rv;
    while ((rv = sbx_grpc_call_next(call, 1000, &m, &len)) == SBX_GRPC_NEXT_MESSAGE)
        ;
    assert_int_equal(rv, SBX_GRPC_NEXT_ERROR);
    assert_int_equal(sbx_grpc_call_result(call)->end, SBX_GRPC_END_RESET);
    sbx_grpc_call_free(call);
}

/* A client that reads keeps its stream however long it takes. */
static void test_send_no_stall_while_read(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_call *call = sbx_grpc_call_start(f->conn, "/t.S/Stream", "", 0, NULL, NULL, 0);
    const uint8_t *m;
    size_t len;
    int n = 0, rv;
    while ((rv = sbx_grpc_call_next(call, 1000, &m, &len)) == SBX_GRPC_NEXT_MESSAGE)
        n++;
    assert_int_equal(rv, SBX_GRPC_NEXT_END);
    assert_int_equal(n, 300);
    assert_int_equal(cancel_reason, 0);
    sbx_grpc_call_free(call);
}

static void test_many_streams(void **state)
{
    struct fixture *f = *state;
    enum { N = 150 };
    struct sbx_grpc_call *calls[N];
    char req[N][8];
    for (int i = 0; i < N; i++) {
        int l = snprintf(req[i], sizeof req[i], "m%d", i);
        calls[i] = sbx_grpc_call_start(f->conn, "/t.S/Echo", req[i], (size_t)l, NULL, NULL, 0);
        assert_non_null(calls[i]);
    }
    for (int i = N - 1; i >= 0; i--) {
        const uint8_t *m;
        size_t len;
        assert_int_equal(sbx_grpc_call_next(calls[i], 2000, &m, &len), SBX_GRPC_NEXT_MESSAGE);
        assert_int_equal(len, strlen(req[i]));
        assert_memory_equal(m, req[i], len);
        assert_int_equal(sbx_grpc_call_next(calls[i], 2000, &m, &len), SBX_GRPC_NEXT_END);
        sbx_grpc_call_free(calls[i]);
    }
}

static void test_garbage_and_vanishing_peer(void **state)
{
    struct fixture *f = *state;
    struct sbx_grpc_call *call = sbx_grpc_call_start(f->conn, "/t.S/Hang", "x", 1, NULL, NULL, 0);
    const uint8_t *m;
    size_t len;
    assert_int_equal(sbx_grpc_call_next(call, 20, &m, &len), SBX_GRPC_NEXT_TIMEOUT);
    assert_non_null(held);
    /* A frame header announcing a huge unknown-type frame, then junk. */
    assert_int_equal(
        sbx_grpc_conn_send_raw(f->conn, "\xff\xff\xff\x00\x00\x00\x00\x00\x01junk", 13), 0);
    int rv = sbx_grpc_call_next(call, 1000, &m, &len);
    assert_int_equal(rv, SBX_GRPC_NEXT_ERROR);
    assert_int_equal(sbx_grpc_call_result(call)->end, SBX_GRPC_END_CONNECTION);
    assert_false(sbx_grpc_conn_usable(f->conn));
    /* The server loses the connection: the held call is cancelled. */
    sbx_grpc_sconn_lost(f->mem.sc, SBX_GRPC_CANCEL_CONNECTION);
    sbx_grpc_server_dispatch(f->mem.srv);
    assert_int_equal(cancel_reason, SBX_GRPC_CANCEL_CONNECTION);
    sbx_grpc_call_free(call);
    char err[64];
    assert_null(sbx_grpc_call_start(f->conn, "/t.S/Echo", "", 0, NULL, err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_status_trailers_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flow_control, setup_small_window, teardown),
        cmocka_unit_test_setup_teardown(test_send_stall, setup_small_window_stall, teardown),
        cmocka_unit_test_setup_teardown(test_send_no_stall_while_read, setup_small_window_stall,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_many_streams, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage_and_vanishing_peer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
