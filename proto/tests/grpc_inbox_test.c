/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the client's inbox: messages split anywhere come out whole
 * and in order, a message handed out stays valid while more bytes arrive
 * (the buffer grows elsewhere), prefix errors are sticky, partial input is
 * not idle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client_inbox.h"
#include "sbx_grpc_wire.h"

/* Message k: k*37 % 3000 bytes of value k. */
static size_t build(uint8_t *out, int count)
{
    size_t off = 0;
    for (int k = 0; k < count; k++) {
        size_t len = (size_t)k * 37 % 3000;
        sbx_grpc_frame_prefix(out + off, false, (uint32_t)len);
        memset(out + off + SBX_GRPC_PREFIX_LEN, k & 0xff, len);
        off += SBX_GRPC_PREFIX_LEN + len;
    }
    return off;
}

static void check_msg(const uint8_t *m, size_t len, int k)
{
    assert_int_equal(len, (size_t)k * 37 % 3000);
    for (size_t i = 0; i < len; i++)
        assert_int_equal(m[i], k & 0xff);
}

static void test_split_anywhere(void **state)
{
    (void)state;
    enum { N = 300 };
    uint8_t *wire = malloc(N * 3005);
    assert_non_null(wire);
    size_t total = build(wire, N);
    const size_t steps[] = {1, 3, 5, 4096, 70000};
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        struct grpc_inbox b;
        sbx_grpc_inbox_init(&b, 0);
        int next = 0;
        size_t all = 0;
        for (size_t off = 0; off < total; off += steps[s]) {
            size_t n = total - off < steps[s] ? total - off : steps[s];
            size_t done;
            assert_int_equal(sbx_grpc_inbox_feed(&b, wire + off, n, &done), 0);
            all += done;
            /* Read about half of what is ready now, the rest later. */
            size_t take = b.ready / 2 + (off % 2);
            const uint8_t *m;
            size_t len;
            while (take-- > 0 && sbx_grpc_inbox_next(&b, &m, &len))
                check_msg(m, len, next++);
        }
        const uint8_t *m;
        size_t len;
        while (sbx_grpc_inbox_next(&b, &m, &len))
            check_msg(m, len, next++);
        assert_int_equal(next, N);
        assert_int_equal(all, N);
        assert_true(sbx_grpc_inbox_idle(&b));
        sbx_grpc_inbox_free(&b);
    }
    free(wire);
}

static void test_handed_out_message_survives_growth(void **state)
{
    (void)state;
    struct grpc_inbox b;
    sbx_grpc_inbox_init(&b, 0);
    uint8_t wire[2 * (SBX_GRPC_PREFIX_LEN + 100)];
    sbx_grpc_frame_prefix(wire, false, 100);
    memset(wire + SBX_GRPC_PREFIX_LEN, 'a', 100);
    sbx_grpc_frame_prefix(wire + 105, false, 100);
    memset(wire + 110, 'b', 100);
    size_t done;
    assert_int_equal(sbx_grpc_inbox_feed(&b, wire, sizeof wire, &done), 0);
    assert_int_equal(done, 2);
    const uint8_t *m;
    size_t len;
    assert_true(sbx_grpc_inbox_next(&b, &m, &len));
    /* A large arrival forces a new buffer while m is handed out. */
    size_t big = 1u << 20;
    uint8_t *blob = calloc(1, SBX_GRPC_PREFIX_LEN + big);
    assert_non_null(blob);
    sbx_grpc_frame_prefix(blob, false, (uint32_t)big);
    assert_int_equal(sbx_grpc_inbox_feed(&b, blob, SBX_GRPC_PREFIX_LEN + big, &done), 0);
    assert_int_equal(done, 1);
    assert_int_equal(len, 100);
    for (size_t i = 0; i < len; i++)
        assert_int_equal(m[i], 'a');
    assert_true(sbx_grpc_inbox_next(&b, &m, &len));
    assert_int_equal(len, 100);
    assert_int_equal(m[99], 'b');
    assert_true(sbx_grpc_inbox_next(&b, &m, &len));
    assert_int_equal(len, big);
    assert_false(sbx_grpc_inbox_next(&b, &m, &len));
    assert_true(sbx_grpc_inbox_idle(&b));
    free(blob);
    sbx_grpc_inbox_free(&b);
}

static void test_errors_are_sticky(void **state)
{
    (void)state;
    struct grpc_inbox b;
    size_t done;
    const uint8_t ok[] = {0, 0, 0, 0, 1, 'x'};
    const uint8_t compressed[] = {1, 0, 0, 0, 1, 'x'};
    const uint8_t bad[] = {7, 0, 0, 0, 0};
    const uint8_t huge[] = {0, 0, 0x20, 0, 0}; /* 2 MiB */

    sbx_grpc_inbox_init(&b, 0);
    uint8_t two[sizeof ok + sizeof compressed];
    memcpy(two, ok, sizeof ok);
    memcpy(two + sizeof ok, compressed, sizeof compressed);
    assert_int_equal(sbx_grpc_inbox_feed(&b, two, sizeof two, &done), -SBX_GRPC_DEFRAME_COMPRESSED);
    assert_int_equal(done, 1); /* the message before the error is readable */
    assert_int_equal(sbx_grpc_inbox_feed(&b, ok, sizeof ok, &done), -SBX_GRPC_DEFRAME_COMPRESSED);
    assert_int_equal(done, 0);
    assert_false(sbx_grpc_inbox_idle(&b));
    sbx_grpc_inbox_free(&b);

    sbx_grpc_inbox_init(&b, 0);
    assert_int_equal(sbx_grpc_inbox_feed(&b, bad, sizeof bad, &done), -SBX_GRPC_DEFRAME_BAD_FLAG);
    sbx_grpc_inbox_free(&b);

    sbx_grpc_inbox_init(&b, 1u << 20);
    /* The length is refused as soon as the prefix is complete. */
    assert_int_equal(sbx_grpc_inbox_feed(&b, huge, sizeof huge, &done),
                     -SBX_GRPC_DEFRAME_TOO_LARGE);
    sbx_grpc_inbox_free(&b);

    sbx_grpc_inbox_init(&b, 0);
    assert_int_equal(sbx_grpc_inbox_feed(&b, ok, 3, &done), 0);
    assert_false(sbx_grpc_inbox_idle(&b)); /* a partial prefix: truncated if the stream ends */
    sbx_grpc_inbox_clear(&b);
    assert_true(sbx_grpc_inbox_idle(&b));
    sbx_grpc_inbox_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_anywhere),
        cmocka_unit_test(test_handed_out_message_survives_growth),
        cmocka_unit_test(test_errors_are_sticky),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
