/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the server's output blocks, message queues and span list:
 * bytes come out framed and in order whatever the write sizes, nothing is
 * copied twice, and every block is released (ASan checks the frees). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sbx_grpc_wire.h"
#include "server_output.h"

/* Drains the list with writes of at most `step` bytes into out. */
static size_t drain(struct out_list *l, struct out_pool *pool, uint8_t *out, size_t step)
{
    size_t got = 0;
    for (int guard = 0; guard < 100000; guard++) {
        struct iovec iov[8];
        size_t bytes;
        size_t n = sbx_grpc_out_list_next(l, iov, 8, step, &bytes);
        if (n == 0) break;
        size_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            memcpy(out + got + sum, iov[i].iov_base, iov[i].iov_len);
            sum += iov[i].iov_len;
        }
        assert_int_equal(sum, bytes);
        assert_true(bytes <= step);
        got += bytes;
        sbx_grpc_out_list_written(l, pool, bytes);
    }
    return got;
}

static void push_bytes(struct msg_queue *q, struct out_pool *pool, const uint8_t *head, size_t hl,
                       const uint8_t *body, size_t bl)
{
    struct iovec parts[2] = {{(void *)(uintptr_t)head, hl}, {(void *)(uintptr_t)body, bl}};
    assert_int_equal(sbx_grpc_msg_queue_push(q, pool, parts, 2, hl + bl), 0);
}

static void test_messages_framed_in_order(void **state)
{
    (void)state;
    struct out_pool pool = {0};
    struct msg_queue q = {0};
    struct out_list l = {0};
    uint8_t body[5000];
    for (size_t i = 0; i < sizeof body; i++)
        body[i] = (uint8_t)(i * 7);
    const uint8_t head[2] = {0x12, 0x99};
    enum { N = 200 };
    for (int k = 0; k < N; k++)
        push_bytes(&q, &pool, head, 2, body, (size_t)k * 25);
    size_t total = 0;
    for (int k = 0; k < N; k++)
        total += 5 + 2 + (size_t)k * 25;
    assert_int_equal(q.bytes, total);
    /* Frame-sized takes with copied headers between, like DATA frames. */
    const uint8_t hd[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    size_t expect_len = 0;
    while (q.bytes > 0) {
        size_t t = q.bytes < 16384 ? q.bytes : 16384;
        assert_int_equal(sbx_grpc_out_list_copy(&l, &pool, hd, sizeof hd), 0);
        assert_int_equal(sbx_grpc_out_list_take(&l, &q, &pool, t), 0);
        expect_len += sizeof hd + t;
    }
    assert_int_equal(l.unsent, expect_len);
    uint8_t *out = malloc(expect_len);
    assert_non_null(out);
    assert_int_equal(drain(&l, &pool, out, 777), expect_len);
    assert_int_equal(l.bytes, 0);
    /* Walk the frames and the messages inside them. */
    uint8_t *msgs = malloc(total);
    assert_non_null(msgs);
    size_t pos = 0, mpos = 0;
    while (pos < expect_len) {
        assert_memory_equal(out + pos, hd, sizeof hd);
        pos += sizeof hd;
        size_t t = total - mpos < 16384 ? total - mpos : 16384;
        memcpy(msgs + mpos, out + pos, t);
        pos += t;
        mpos += t;
    }
    size_t off = 0;
    for (int k = 0; k < N; k++) {
        uint32_t len = ((uint32_t)msgs[off + 1] << 24) | ((uint32_t)msgs[off + 2] << 16) |
                       ((uint32_t)msgs[off + 3] << 8) | msgs[off + 4];
        assert_int_equal(msgs[off], 0);
        assert_int_equal(len, 2 + (size_t)k * 25);
        assert_memory_equal(msgs + off + 5, head, 2);
        if (k) assert_memory_equal(msgs + off + 7, body, (size_t)k * 25);
        off += 5 + len;
    }
    assert_int_equal(off, total);
    free(out);
    free(msgs);
    sbx_grpc_msg_queue_clear(&q, &pool);
    sbx_grpc_out_list_clear(&l, &pool);
    sbx_grpc_out_pool_clear(&pool);
}

static void test_partial_writes_keep_blocks_alive(void **state)
{
    (void)state;
    struct out_pool pool = {0};
    struct msg_queue q = {0};
    struct out_list l = {0};
    uint8_t body[4096];
    memset(body, 0xab, sizeof body);
    /* Enough to stream: large blocks, several of them. */
    for (int k = 0; k < 300; k++)
        push_bytes(&q, &pool, body, 1, body + 1, sizeof body - 1);
    size_t total = q.bytes;
    assert_int_equal(sbx_grpc_out_list_take(&l, &q, &pool, total / 2), 0);
    struct iovec iov[4];
    size_t bytes;
    assert_true(sbx_grpc_out_list_next(&l, iov, 4, 10000, &bytes) > 0);
    assert_int_equal(bytes, 10000);
    /* Written in two parts; the rest was handed out and is still valid. */
    sbx_grpc_out_list_written(&l, &pool, 3000);
    sbx_grpc_out_list_written(&l, &pool, 7000);
    assert_int_equal(l.bytes, total / 2 - 10000);
    /* Queue cleared (a cancelled call) while spans still point into it. */
    sbx_grpc_msg_queue_clear(&q, &pool);
    uint8_t *out = malloc(total);
    assert_non_null(out);
    size_t got = drain(&l, &pool, out, 65536);
    assert_int_equal(got, total / 2 - 10000);
    free(out);
    sbx_grpc_out_list_clear(&l, &pool);
    assert_true(pool.n_free > 0); /* large blocks came back as spares */
    /* A spare is reused for the next stream. */
    struct out_block *spare = pool.free;
    for (int k = 0; k < 10; k++)
        push_bytes(&q, &pool, body, 1, body + 1, sizeof body - 1);
    bool reused = false;
    for (struct out_block *b = q.head; b; b = b->next)
        reused = reused || b == spare;
    assert_true(reused);
    sbx_grpc_msg_queue_clear(&q, &pool);
    sbx_grpc_out_pool_clear(&pool);
    assert_int_equal(pool.n_free, 0);
}

static void test_limits_of_next(void **state)
{
    (void)state;
    struct out_pool pool = {0};
    struct out_list l = {0};
    uint8_t a[100];
    memset(a, 1, sizeof a);
    for (int k = 0; k < 50; k++)
        assert_int_equal(sbx_grpc_out_list_copy(&l, &pool, a, sizeof a), 0);
    /* Copies into one block merge into one span. */
    assert_int_equal(l.n - l.first, 1);
    struct iovec iov[2];
    size_t bytes;
    assert_int_equal(sbx_grpc_out_list_next(&l, iov, 2, 250, &bytes), 1);
    assert_int_equal(bytes, 250);
    /* More bytes after a partial hand-out extend the unsent part only. */
    assert_int_equal(sbx_grpc_out_list_copy(&l, &pool, a, sizeof a), 0);
    assert_int_equal(l.unsent, 5100 - 250);
    sbx_grpc_out_list_written(&l, &pool, 250);
    uint8_t out[6000];
    assert_int_equal(drain(&l, &pool, out, 1000), 5100 - 250);
    assert_int_equal(sbx_grpc_out_list_next(&l, iov, 2, 1000, &bytes), 0);
    sbx_grpc_out_list_clear(&l, &pool);
    sbx_grpc_out_pool_clear(&pool);
}

static void test_reserve_and_commit(void **state)
{
    (void)state;
    struct out_pool pool = {0};
    struct msg_queue q = {0};
    struct out_list l = {0};
    const uint8_t head[1] = {7};
    push_bytes(&q, &pool, head, 1, NULL, 0);
    /* Space for three messages; two are written and committed. */
    uint8_t *p = sbx_grpc_msg_queue_reserve(&q, &pool, 3 * 8);
    assert_non_null(p);
    for (int k = 0; k < 2; k++) {
        sbx_grpc_frame_prefix(p + k * 8, false, 3);
        memset(p + k * 8 + 5, 'a' + k, 3);
    }
    sbx_grpc_msg_queue_commit(&q, 16);
    push_bytes(&q, &pool, head, 1, NULL, 0);
    assert_int_equal(q.bytes, 6 + 16 + 6);
    assert_int_equal(sbx_grpc_out_list_take(&l, &q, &pool, q.bytes), 0);
    uint8_t out[64];
    assert_int_equal(drain(&l, &pool, out, 5), 28);
    const uint8_t want[28] = {0, 0, 0, 0, 1, 7,   0,   0,   0, 0, 3, 'a', 'a', 'a',
                              0, 0, 0, 0, 3, 'b', 'b', 'b', 0, 0, 0, 0,   1,   7};
    assert_memory_equal(out, want, sizeof want);
    sbx_grpc_msg_queue_clear(&q, &pool);
    sbx_grpc_out_list_clear(&l, &pool);
    sbx_grpc_out_pool_clear(&pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_messages_framed_in_order),
        cmocka_unit_test(test_partial_writes_keep_blocks_alive),
        cmocka_unit_test(test_limits_of_next),
        cmocka_unit_test(test_reserve_and_commit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
