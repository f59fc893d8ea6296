/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the REST half's pure parsers: percent-decoding, mode and
 * recursive parameters, byte ranges and the metadata filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rest/byte_range.h"
#include "rest/json_text.h"
#include "rest/metadata_filter.h"
#include "rest/percent_decode.h"
#include "rest/request_params.h"

static ssize_t dec(const char *in, char *out)
{
    return pct_decode(in, strlen(in), out);
}

static void test_percent_decode(void **state)
{
    (void)state;
    char out[128];
    assert_int_equal(dec("a%2Fb", out), 3);
    assert_string_equal(out, "a/b");
    assert_int_equal(dec("%252e%252e", out), 6);
    assert_string_equal(out, "%2e%2e");
    assert_int_equal(dec("sp%20ace+plus", out), 11);
    assert_string_equal(out, "sp ace+plus");
    assert_int_equal(dec("%c3%a9%C3%A9", out), 4);
    assert_memory_equal(out, "\xc3\xa9\xc3\xa9", 4);
    assert_int_equal(dec("%c0%ae", out), 2);
    assert_memory_equal(out, "\xc0\xae", 2);
    assert_int_equal(dec("a\\b", out), 3);
    assert_int_equal(dec("", out), 0);
    assert_int_equal(dec("%zz", out), PCT_INVALID);
    assert_int_equal(dec("%", out), PCT_INVALID);
    assert_int_equal(dec("abc%4", out), PCT_INVALID);
    assert_int_equal(dec("%g0", out), PCT_INVALID);
    assert_int_equal(dec("a%00b", out), PCT_NUL);
    assert_int_equal(dec("a/%00/../b", out), PCT_NUL);
}

static void test_file_mode(void **state)
{
    (void)state;
    mode_t m = 1;
    assert_int_equal(parse_file_mode(NULL, &m), 0);
    assert_int_equal(m, 0644);
    assert_int_equal(parse_file_mode("", &m), 0);
    assert_int_equal(m, 0644);
    assert_int_equal(parse_file_mode("0777", &m), 0);
    assert_int_equal(m, 0777);
    assert_int_equal(parse_file_mode("0000", &m), 0);
    assert_int_equal(m, 0);
    assert_int_equal(parse_file_mode("0600", &m), 0);
    assert_int_equal(m, 0600);
    const char *bad[] = {"644", "0800", "1777", "00644", "0x1a", "abcd", "07777", " 644", "064"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(parse_file_mode(bad[i], &m), -1);
}

static void test_recursive(void **state)
{
    (void)state;
    bool r = true;
    assert_int_equal(parse_recursive(NULL, &r), 0);
    assert_false(r);
    assert_int_equal(parse_recursive("", &r), 0);
    assert_false(r);
    assert_int_equal(parse_recursive("true", &r), 0);
    assert_true(r);
    assert_int_equal(parse_recursive("false", &r), 0);
    assert_false(r);
    assert_int_equal(parse_recursive("banana", &r), -1);
    assert_int_equal(parse_recursive("yes", &r), -1);
}

static void test_byte_range(void **state)
{
    (void)state;
    uint64_t s = 99, l = 99;
    assert_int_equal(parse_byte_range(NULL, 100, &s, &l), RANGE_NONE);
    assert_int_equal(parse_byte_range("bytes=0-9", 100, &s, &l), RANGE_OK);
    assert_true(s == 0 && l == 10);
    assert_int_equal(parse_byte_range("bytes=90-", 100, &s, &l), RANGE_OK);
    assert_true(s == 90 && l == 10);
    assert_int_equal(parse_byte_range("bytes=-5", 100, &s, &l), RANGE_OK);
    assert_true(s == 95 && l == 5);
    assert_int_equal(parse_byte_range("bytes=-500", 100, &s, &l), RANGE_OK);
    assert_true(s == 0 && l == 100);
    assert_int_equal(parse_byte_range("bytes=50-1000", 100, &s, &l), RANGE_OK);
    assert_true(s == 50 && l == 50);
    assert_int_equal(parse_byte_range("bytes=100-", 100, &s, &l), RANGE_UNSATISFIABLE);
    assert_int_equal(parse_byte_range("bytes=-0", 100, &s, &l), RANGE_UNSATISFIABLE);
    assert_int_equal(parse_byte_range("bytes=5-1", 100, &s, &l), RANGE_NONE);
    assert_int_equal(parse_byte_range("bytes=0-1,5-6", 100, &s, &l), RANGE_NONE);
    assert_int_equal(parse_byte_range("items=0-1", 100, &s, &l), RANGE_NONE);
    assert_int_equal(parse_byte_range("bytes=x-1", 100, &s, &l), RANGE_NONE);
    assert_int_equal(parse_byte_range("bytes=99999999999999999999999-", 100, &s, &l), RANGE_NONE);
    assert_int_equal(parse_byte_range("bytes=0-", 0, &s, &l), RANGE_NONE);
}

static void test_metadata_filter(void **state)
{
    (void)state;
    assert_true(metadata_name_allowed("SANDBOX_NAME", "SANDBOX_"));
    assert_false(metadata_name_allowed("HOME", "SANDBOX_"));
    assert_false(metadata_name_allowed("sandbox_name", "SANDBOX_"));
    const char *bad[] = {"SANDBOX_TOKEN",    "SANDBOX_api_key",    "SANDBOX_Secret_X",
                         "SANDBOX_PASSWORD", "SANDBOX_credential", "SANDBOX_KEYRING",
                         "SANDBOX_passwd",   "SANDBOX_CRED",       "SANDBOX_oauth",
                         "SANDBOX_BEARER_X", "SANDBOX_private",    "SANDBOX_cert_path",
                         "SANDBOX_MONKEYS"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(metadata_name_allowed(bad[i], "SANDBOX_"));
    assert_true(metadata_name_allowed("APP_REGION", "APP_"));
    assert_false(metadata_name_allowed("SANDBOX_REGION", "APP_"));
    assert_true(metadata_name_allowed("ANYTHING", ""));
}

static void expect_text(const char *in, const char *want)
{
    json_t *j = json_text(in);
    assert_non_null(j);
    assert_string_equal(json_string_value(j), want);
    json_decref(j);
}

static void test_json_text(void **state)
{
    (void)state;
    expect_text("plain", "plain");
    expect_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    expect_text("a\xc0\xae", "a\xef\xbf\xbd\xef\xbf\xbd");
    expect_text("\xff", "\xef\xbf\xbd");
    expect_text("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    expect_text("x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percent_decode),  cmocka_unit_test(test_file_mode),
        cmocka_unit_test(test_recursive),       cmocka_unit_test(test_byte_range),
        cmocka_unit_test(test_metadata_filter), cmocka_unit_test(test_json_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
