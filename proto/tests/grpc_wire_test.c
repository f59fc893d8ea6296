/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the sans-I/O wire core: framing, grpc-timeout,
 * grpc-message percent-encoding, status names and header checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sbx_grpc_status.h"
#include "sbx_grpc_wire.h"

static void test_prefix(void **state)
{
    (void)state;
    uint8_t p[5];
    sbx_grpc_frame_prefix(p, false, 0x01020304);
    assert_memory_equal(p, "\x00\x01\x02\x03\x04", 5);
    sbx_grpc_frame_prefix(p, true, 7);
    assert_memory_equal(p, "\x01\x00\x00\x00\x07", 5);
}

/* Feeds bytes one at a time: a message split at every possible point. */
static void test_deframe_byte_by_byte(void **state)
{
    (void)state;
    struct sbx_grpc_deframer d;
    sbx_grpc_deframer_init(&d, 100);
    const uint8_t in[] = {0, 0, 0, 0, 3, 'a', 'b', 'c'};
    for (size_t i = 0; i < sizeof in; i++) {
        size_t used;
        uint8_t *m;
        size_t ml;
        int rv = sbx_grpc_deframer_feed(&d, in + i, 1, &used, &m, &ml);
        assert_int_equal(used, 1);
        if (i + 1 < sizeof in) {
            assert_int_equal(rv, SBX_GRPC_DEFRAME_NEED_MORE);
            assert_false(sbx_grpc_deframer_idle(&d));
        } else {
            assert_int_equal(rv, SBX_GRPC_DEFRAME_MESSAGE);
            assert_int_equal(ml, 3);
            assert_memory_equal(m, "abc", 3);
            free(m);
        }
    }
    assert_true(sbx_grpc_deframer_idle(&d));
    sbx_grpc_deframer_free(&d);
}

/* Several messages in one buffer, including zero-length ones. */
static void test_deframe_several(void **state)
{
    (void)state;
    struct sbx_grpc_deframer d;
    sbx_grpc_deframer_init(&d, 0);
    const uint8_t in[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 'h', 'i', 0, 0, 0, 0, 0, 0, 0};
    size_t pos = 0, n = 0;
    size_t lens[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX}; /* no message has these lengths */
    while (pos < sizeof in) {
        size_t used;
        uint8_t *m;
        size_t ml;
        int rv = sbx_grpc_deframer_feed(&d, in + pos, sizeof in - pos, &used, &m, &ml);
        pos += used;
        if (rv == SBX_GRPC_DEFRAME_MESSAGE) {
            assert_true(n < 3);
            lens[n++] = ml;
            if (ml == 0) assert_null(m);
            free(m);
        } else {
            assert_int_equal(rv, SBX_GRPC_DEFRAME_NEED_MORE);
        }
    }
    assert_int_equal(n, 3);
    assert_int_equal(lens[0], 0);
    assert_int_equal(lens[1], 2);
    assert_int_equal(lens[2], 0);
    /* Two bytes of a fourth prefix: not idle (truncated at END_STREAM). */
    assert_false(sbx_grpc_deframer_idle(&d));
    sbx_grpc_deframer_free(&d);
}

static void test_deframe_limits(void **state)
{
    (void)state;
    struct sbx_grpc_deframer d;
    size_t used, ml;
    uint8_t *m;
    sbx_grpc_deframer_init(&d, 10);
    const uint8_t big[] = {0, 0, 0, 0, 11, 'x'};
    assert_int_equal(sbx_grpc_deframer_feed(&d, big, sizeof big, &used, &m, &ml),
                     SBX_GRPC_DEFRAME_TOO_LARGE);
    /* Sticky: a failed deframer consumes nothing more. */
    assert_int_equal(sbx_grpc_deframer_feed(&d, big, sizeof big, &used, &m, &ml),
                     SBX_GRPC_DEFRAME_TOO_LARGE);
    assert_int_equal(used, 0);
    sbx_grpc_deframer_free(&d);

    const uint8_t exact[] = {0, 0, 0, 0, 10, '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'};
    sbx_grpc_deframer_init(&d, 10);
    assert_int_equal(sbx_grpc_deframer_feed(&d, exact, sizeof exact, &used, &m, &ml),
                     SBX_GRPC_DEFRAME_MESSAGE);
    assert_int_equal(ml, 10);
    free(m);
    sbx_grpc_deframer_free(&d);

    const uint8_t huge[] = {0, 0xff, 0xff, 0xff, 0xff};
    sbx_grpc_deframer_init(&d, 0);
    assert_int_equal(sbx_grpc_deframer_feed(&d, huge, sizeof huge, &used, &m, &ml),
                     SBX_GRPC_DEFRAME_TOO_LARGE);
    sbx_grpc_deframer_free(&d);

    const uint8_t comp[] = {1, 0, 0, 0, 1, 'z'};
    sbx_grpc_deframer_init(&d, 0);
    assert_int_equal(sbx_grpc_deframer_feed(&d, comp, sizeof comp, &used, &m, &ml),
                     SBX_GRPC_DEFRAME_COMPRESSED);
    assert_null(m);
    sbx_grpc_deframer_free(&d);

    const uint8_t flag[] = {2, 0, 0, 0, 1, 'z'};
    sbx_grpc_deframer_init(&d, 0);
    assert_int_equal(sbx_grpc_deframer_feed(&d, flag, sizeof flag, &used, &m, &ml),
                     SBX_GRPC_DEFRAME_BAD_FLAG);
    sbx_grpc_deframer_free(&d);
}

static void test_timeout_parse(void **state)
{
    (void)state;
    uint64_t ns;
    struct {
        const char *s;
        uint64_t ns;
    } ok[] = {
        {"1H", 3600000000000ULL},
        {"2M", 120000000000ULL},
        {"3S", 3000000000ULL},
        {"4m", 4000000ULL},
        {"5u", 5000ULL},
        {"6n", 6ULL},
        {"0S", 0},
        {"99999999n", 99999999ULL},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(sbx_grpc_timeout_parse(ok[i].s, strlen(ok[i].s), &ns), 0);
        assert_true(ns == ok[i].ns);
    }
    assert_int_equal(sbx_grpc_timeout_parse("99999999H", 9, &ns), 0);
    assert_true(ns == UINT64_MAX); /* saturates */
    const char *bad[] = {"", "S", "1", "1s", "123456789S", "-1S", "1.5S", " 1S", "1SS", "1h"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(sbx_grpc_timeout_parse(bad[i], strlen(bad[i]), &ns), -1);
}

static void test_timeout_format(void **state)
{
    (void)state;
    char b[SBX_GRPC_TIMEOUT_BUFSZ];
    sbx_grpc_timeout_format(500000000ULL, b);
    assert_string_equal(b, "500000u");
    sbx_grpc_timeout_format(0, b);
    assert_string_equal(b, "0n");
    sbx_grpc_timeout_format(99999999ULL, b);
    assert_string_equal(b, "99999999n");
    sbx_grpc_timeout_format(100000001ULL, b); /* rounds up, never shorter */
    assert_string_equal(b, "100001u");
    sbx_grpc_timeout_format(30ULL * 1000000000ULL, b);
    assert_string_equal(b, "30000000u");
    sbx_grpc_timeout_format(3600ULL * 1000000000ULL * 1000, b);
    assert_string_equal(b, "3600000S");
    sbx_grpc_timeout_format(UINT64_MAX, b);
    assert_string_equal(b, "5124096H");
    /* Round trip never shortens. */
    for (uint64_t v = 1; v < UINT64_MAX / 8; v = v * 7 + 3) {
        uint64_t back;
        int n = sbx_grpc_timeout_format(v, b);
        assert_int_equal(sbx_grpc_timeout_parse(b, (size_t)n, &back), 0);
        assert_true(back >= v);
    }
}

static void test_percent(void **state)
{
    (void)state;
    const char *msg = "a%b \xc3\xbc\n~";
    char *enc = sbx_grpc_percent_encode(msg, strlen(msg));
    assert_string_equal(enc, "a%25b %C3%BC%0A~");
    size_t len;
    char *dec = sbx_grpc_percent_decode(enc, strlen(enc), &len);
    assert_string_equal(dec, msg);
    assert_int_equal(len, strlen(msg));
    free(enc);
    free(dec);
    /* Malformed sequences are kept verbatim, never rejected. */
    dec = sbx_grpc_percent_decode("100% %zz %4", 11, &len);
    assert_string_equal(dec, "100% %zz %4");
    free(dec);
    dec = sbx_grpc_percent_decode("%41%62%00x", 10, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(dec, "Ab\0x", 4);
    free(dec);
}

static void test_status_and_headers(void **state)
{
    (void)state;
    assert_string_equal(sbx_grpc_code_name(0), "OK");
    assert_string_equal(sbx_grpc_code_name(4), "DEADLINE_EXCEEDED");
    assert_string_equal(sbx_grpc_code_name(16), "UNAUTHENTICATED");
    assert_string_equal(sbx_grpc_code_name(17), "UNKNOWN_CODE");
    assert_string_equal(sbx_grpc_code_name(-1), "UNKNOWN_CODE");
    for (int i = 0; i <= 16; i++)
        assert_int_equal(sbx_grpc_code_from_name(sbx_grpc_code_name(i)), i);
    assert_int_equal(sbx_grpc_code_from_name("ok"), -1);
    assert_int_equal(sbx_grpc_code_from_http(404), SBX_GRPC_UNIMPLEMENTED);
    assert_int_equal(sbx_grpc_code_from_http(503), SBX_GRPC_UNAVAILABLE);
    assert_int_equal(sbx_grpc_code_from_http(415), SBX_GRPC_UNKNOWN);
    assert_true(sbx_grpc_content_type_ok("application/grpc", 16));
    assert_true(sbx_grpc_content_type_ok("application/grpc+proto", 22));
    assert_true(sbx_grpc_content_type_ok("Application/GRPC;charset=x", 27));
    assert_false(sbx_grpc_content_type_ok("application/grpcx", 17));
    assert_false(sbx_grpc_content_type_ok("application/json", 16));
    assert_false(sbx_grpc_content_type_ok("", 0));
    assert_true(sbx_grpc_header_name_ok("x-trace-id", 10));
    assert_false(sbx_grpc_header_name_ok("X-Upper", 7));
    assert_false(sbx_grpc_header_name_ok(":path", 5));
    assert_int_equal(sbx_grpc_status_parse("13", 2), 13);
    assert_int_equal(sbx_grpc_status_parse("", 0), -1);
    assert_int_equal(sbx_grpc_status_parse("1a", 2), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix),          cmocka_unit_test(test_deframe_byte_by_byte),
        cmocka_unit_test(test_deframe_several), cmocka_unit_test(test_deframe_limits),
        cmocka_unit_test(test_timeout_parse),   cmocka_unit_test(test_timeout_format),
        cmocka_unit_test(test_percent),         cmocka_unit_test(test_status_and_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
