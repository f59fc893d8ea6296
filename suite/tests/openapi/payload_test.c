/* SPDX-License-Identifier: Apache-2.0 */
/* Self-verifying payloads (cases/common/payload.c): streamed and in-memory
 * generation agree, intact payloads verify, torn/truncated/padded ones do
 * not, with the offset of the first bad byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/payload.h"

static void streamed_equals_in_memory(void **state)
{
    (void)state;
    const size_t sizes[] = {PAYLOAD_MIN_LEN, 41, 100, 4096, 70001};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        uint8_t *whole = payload_make(7, sizes[s]);
        assert_non_null(whole);
        uint8_t *streamed = malloc(sizes[s]);
        struct payload_source src = {.seed = 7, .total = sizes[s]};
        size_t off = 0;
        /* Odd read sizes cross the header, body and trailer boundaries. */
        for (size_t step = 13; off < sizes[s]; step = step * 3 % 997 + 1)
            off += payload_read_cb((char *)streamed + off, 1, step, &src);
        assert_int_equal(off, sizes[s]);
        assert_int_equal(payload_read_cb((char *)streamed, 1, 10, &src), 0);
        assert_memory_equal(whole, streamed, sizes[s]);

        uint8_t *filled = malloc(sizes[s]);
        payload_fill(7, sizes[s], 0, filled, 5);
        payload_fill(7, sizes[s], 5, filled + 5, sizes[s] - 5);
        assert_memory_equal(whole, filled, sizes[s]);

        char why[200];
        uint64_t seed = 0;
        assert_true(payload_verify(whole, sizes[s], &seed, why, sizeof why));
        assert_int_equal(seed, 7);
        free(whole);
        free(streamed);
        free(filled);
    }
}

static void binary_bytes_are_present(void **state)
{
    (void)state;
    uint8_t *p = payload_make(1, 65536);
    int seen_nul = 0, seen_ff = 0;
    for (size_t i = PAYLOAD_HEADER_LEN; i < 65536 - PAYLOAD_TRAILER_LEN; i++) {
        seen_nul |= p[i] == 0;
        seen_ff |= p[i] == 0xff;
    }
    assert_true(seen_nul && seen_ff);
    free(p);
}

static void damage_is_found(void **state)
{
    (void)state;
    char why[200];
    const size_t n = 10000;
    uint8_t *a = payload_make(1, n);
    uint8_t *b = payload_make(2, n);

    /* Torn: first half of version 1, rest of version 2. */
    uint8_t *torn = malloc(n);
    memcpy(torn, a, 5000);
    memcpy(torn + 5000, b + 5000, n - 5000);
    assert_false(payload_verify(torn, n, NULL, why, sizeof why));
    assert_non_null(strstr(why, "byte 500"));

    /* One flipped body byte. */
    memcpy(torn, a, n);
    torn[777] ^= 1;
    assert_false(payload_verify(torn, n, NULL, why, sizeof why));
    assert_non_null(strstr(why, "byte 777"));

    /* Truncated, padded, trailer changed, header changed, empty. */
    assert_false(payload_verify(a, n - 1, NULL, why, sizeof why));
    assert_non_null(strstr(why, "truncated"));
    uint8_t *pad = malloc(n + 1);
    memcpy(pad, a, n);
    pad[n] = 0;
    assert_false(payload_verify(pad, n + 1, NULL, why, sizeof why));
    assert_non_null(strstr(why, "beyond"));
    memcpy(torn, a, n);
    torn[n - 1] ^= 0x80;
    assert_false(payload_verify(torn, n, NULL, why, sizeof why));
    assert_non_null(strstr(why, "trailer"));
    memcpy(torn, a, n);
    torn[9] ^= 1;
    assert_false(payload_verify(torn, n, NULL, why, sizeof why));
    assert_non_null(strstr(why, "header"));
    assert_false(payload_verify("", 0, NULL, why, sizeof why));
    assert_false(
        payload_verify("hello world, this is not a payload at all", 41, NULL, why, sizeof why));

    assert_null(payload_make(1, PAYLOAD_MIN_LEN - 1));
    free(a);
    free(b);
    free(torn);
    free(pad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streamed_equals_in_memory),
        cmocka_unit_test(binary_bytes_are_present),
        cmocka_unit_test(damage_is_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
