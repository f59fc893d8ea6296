/* SPDX-License-Identifier: Apache-2.0 */
/* The suite's gRPC client session fed arbitrary server bytes: a Start
 * stream read to its end, each message decoded as the suite's process
 * client does, then an Execute on the same connection with its response
 * decoded by rpc_unpack_execute.
 *
 * Oracle: beyond no crash, no leak and no hang, every call ends (a status,
 * a protocol error, a reset or the connection) once the server's bytes run
 * out, and a status is a gRPC code the result reports consistently.
 *
 * Input: byte 0 sets the size of each read (1..255 bytes, 0 = all at once);
 * the rest is what the server sent. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client_transport.h"
#include "fuzz_check.h"
#include "process.pb-c.h"
#include "process_client.h"
#include "sbx_grpc_client.h"

struct feed {
    const uint8_t *data;
    size_t len, off, chunk;
};

static ssize_t feed_write(void *ctx, const uint8_t *buf, size_t len)
{
    (void)ctx;
    (void)buf;
    return (ssize_t)len;
}

static ssize_t feed_read(void *ctx, uint8_t *buf, size_t cap)
{
    struct feed *f = ctx;
    if (f->off == f->len) return -2;
    size_t n = f->len - f->off;
    if (f->chunk && n > f->chunk) n = f->chunk;
    if (n > cap) n = cap;
    memcpy(buf, f->data + f->off, n);
    f->off += n;
    return (ssize_t)n;
}

static int feed_wait(void *ctx, int wait_ms, bool want_write)
{
    (void)ctx;
    (void)wait_ms;
    (void)want_write;
    return 1;
}

static void feed_close(void *ctx)
{
    (void)ctx;
}

static const struct sbx_grpc_transport_ops feed_ops = {feed_write, feed_read, feed_wait,
                                                       feed_close};

static void check_result(const struct sbx_grpc_result *r)
{
    FUZZ_CHECK(r->end != SBX_GRPC_END_NONE, "the call did not end");
    FUZZ_CHECK(r->end != SBX_GRPC_END_TIMEOUT, "the call waited out its bound");
    if (r->end == SBX_GRPC_END_STATUS) FUZZ_CHECK(r->has_grpc_status, "status without grpc-status");
    FUZZ_CHECK(memchr(r->error, '\0', sizeof r->error) != NULL, "error text not terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 256 * 1024) return 0;
    struct feed f = {.data = data + 1, .len = size - 1, .chunk = data[0]};
    struct sbx_grpc_conn_opts co = {.connect_timeout_ms = 200, .max_recv_message = 64 * 1024};
    char err[256];
    struct sbx_grpc_conn *c = sbx_grpc_conn_new(&feed_ops, &f, "fuzz", &co, err, sizeof err);
    if (!c) return 0;

    struct rpc_spec spec = {0};
    const char *argv[] = {"echo", "hi", NULL};
    spec.argv = argv;
    size_t req_len = 0;
    uint8_t *req = rpc_pack_start(&spec, NULL, &req_len);
    FUZZ_CHECK(req != NULL, "pack Start");
    struct sbx_grpc_call_opts copt = {.wait_ms = 2000};
    struct sbx_grpc_call *call = sbx_grpc_call_start(c, "/process.v1.ProcessService/Start", req,
                                                     req_len, &copt, err, sizeof err);
    free(req);
    if (call) {
        int rc = SBX_GRPC_NEXT_TIMEOUT;
        for (int i = 0; i < 100000; i++) {
            const uint8_t *msg;
            size_t len;
            rc = sbx_grpc_call_next(call, 10, &msg, &len);
            if (rc != SBX_GRPC_NEXT_MESSAGE && rc != SBX_GRPC_NEXT_TIMEOUT) break;
            if (rc == SBX_GRPC_NEXT_MESSAGE) {
                Process__V1__StartResponse *ev =
                    process__v1__start_response__unpack(NULL, len, msg);
                if (ev) process__v1__start_response__free_unpacked(ev, NULL);
            } else if (f.off == f.len) {
                /* Nothing left to read and the call still open: one more
                 * round must see the end of the stream. */
                rc = sbx_grpc_call_next(call, 10, &msg, &len);
                if (rc == SBX_GRPC_NEXT_MESSAGE) continue;
                break;
            }
        }
        FUZZ_CHECK(rc == SBX_GRPC_NEXT_END || rc == SBX_GRPC_NEXT_ERROR,
                   "Start still open after the server's bytes ran out (%d)", rc);
        check_result(sbx_grpc_call_result(call));
        sbx_grpc_call_free(call);
    }

    if (sbx_grpc_conn_usable(c)) {
        struct rpc_spec ex = {0};
        ex.argv = argv;
        uint8_t *ereq = rpc_pack_execute(&ex, &req_len);
        FUZZ_CHECK(ereq != NULL, "pack Execute");
        struct sbx_grpc_result r;
        sbx_grpc_unary(c, "/process.v1.ProcessService/Execute", ereq, req_len, &copt, &r);
        free(ereq);
        check_result(&r);
        if (r.response) {
            struct rpc_result pr;
            memset(&pr, 0, sizeof pr);
            rpc_unpack_execute(r.response, r.response_len, &pr);
            rpc_result_free(&pr);
        }
        sbx_grpc_result_free(&r);
    }
    sbx_grpc_conn_close(c);
    return 0;
}
