/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the streaming multipart/form-data reader: every split point
 * of a body, binary content, missing file part, truncation and malformed
 * framing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rest/multipart.h"

#define CT "multipart/form-data; boundary=XyZ-bound"

struct sink {
    char buf[4096];
    size_t len;
};

static int collect(void *user, const char *d, size_t n)
{
    struct sink *s = user;
    if (s->len + n > sizeof(s->buf)) return -1;
    memcpy(s->buf + s->len, d, n);
    s->len += n;
    return 0;
}

/* Feeds body in up to three pieces split at a and b; returns the finish
 * status and the collected bytes. */
static int run(const char *ct, const char *body, size_t len, size_t a, size_t b, struct sink *s)
{
    struct multipart *mp = multipart_new(ct);
    assert_non_null(mp);
    memset(s, 0, sizeof(*s));
    int rc = multipart_feed(mp, body, a, collect, s);
    if (rc == MP_OK) rc = multipart_feed(mp, body + a, b - a, collect, s);
    if (rc == MP_OK) rc = multipart_feed(mp, body + b, len - b, collect, s);
    if (rc == MP_OK) rc = multipart_finish(mp);
    multipart_free(mp);
    return rc;
}

static const char body_ok[] =
    "preamble text\r\n"
    "--XyZ-bound\r\n"
    "Content-Disposition: form-data; name=\"other\"\r\n"
    "\r\n"
    "not this\r\n--XyZ-bounc\r\n"
    "--XyZ-bound\r\n"
    "Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
    "Content-Type: application/octet-stream\r\n"
    "\r\n"
    "line1\r\n\0\xff\r\r\n-\r\n--XyZ-boun\r\nend"
    "\r\n--XyZ-bound--\r\n"
    "epilogue";
static const char file_ok[] = "line1\r\n\0\xff\r\r\n-\r\n--XyZ-boun\r\nend";

static void test_every_split(void **state)
{
    (void)state;
    size_t len = sizeof(body_ok) - 1;
    struct sink s;
    for (size_t a = 0; a <= len; a++) {
        for (size_t b = a; b <= len; b += (a % 7 == 0) ? 1 : 13) {
            int rc = run(CT, body_ok, len, a, b, &s);
            assert_int_equal(rc, MP_OK);
            assert_int_equal(s.len, sizeof(file_ok) - 1);
            assert_memory_equal(s.buf, file_ok, s.len);
        }
    }
}

static void test_byte_at_a_time(void **state)
{
    (void)state;
    struct multipart *mp = multipart_new("Multipart/Form-Data; charset=x; boundary=\"XyZ-bound\"");
    assert_non_null(mp);
    struct sink s = {{0}, 0};
    for (size_t i = 0; i < sizeof(body_ok) - 1; i++)
        assert_int_equal(multipart_feed(mp, body_ok + i, 1, collect, &s), MP_OK);
    assert_int_equal(multipart_finish(mp), MP_OK);
    assert_int_equal(s.len, sizeof(file_ok) - 1);
    assert_memory_equal(s.buf, file_ok, s.len);
    multipart_free(mp);
}

static void test_empty_file_part(void **state)
{
    (void)state;
    const char body[] = "--XyZ-bound\r\nContent-Disposition: form-data; name=file\r\n\r\n"
                        "\r\n--XyZ-bound--";
    struct sink s;
    assert_int_equal(run(CT, body, sizeof(body) - 1, 0, 0, &s), MP_OK);
    assert_int_equal(s.len, 0);
}

static void test_no_file_part(void **state)
{
    (void)state;
    const char body[] = "--XyZ-bound\r\nContent-Disposition: form-data; name=\"filename\"\r\n\r\n"
                        "data\r\n--XyZ-bound\r\n"
                        "Content-Disposition: form-data; name=\"x\"; filename=\"file\"\r\n\r\n"
                        "data\r\n--XyZ-bound--\r\n";
    struct sink s;
    assert_int_equal(run(CT, body, sizeof(body) - 1, 5, 40, &s), MP_NO_FILE);
    assert_int_equal(s.len, 0);
}

static void test_truncated(void **state)
{
    (void)state;
    size_t len = sizeof(body_ok) - 1;
    const char *close = memmem(body_ok, len, "--XyZ-bound--", 13);
    assert_non_null(close);
    size_t end = (size_t)(close - body_ok) + 13;
    struct sink s;
    /* Every prefix that stops before the closing delimiter is truncated. */
    for (size_t cut = 0; cut < end; cut++)
        assert_int_equal(run(CT, body_ok, cut, cut / 2, cut, &s), MP_TRUNCATED);
    assert_int_equal(run(CT, body_ok, end, 0, end, &s), MP_OK);
    assert_int_equal(run(CT, body_ok, len, 0, len, &s), MP_OK);
}

static void test_malformed(void **state)
{
    (void)state;
    struct sink s;
    const char *bad[] = {
        "--XyZ-bound\r\nNo colon here\r\n\r\ndata\r\n--XyZ-bound--",
        "--XyZ-bound\nContent-Disposition: form-data; name=file\r\n\r\nx\r\n--XyZ-bound--",
        "--XyZ-boundjunk\r\n\r\nx\r\n--XyZ-bound--",
        "--XyZ-bound\r\nContent-Disposition: attachment; name=file\r\n\r\nx\r\n--XyZ-bound--",
        "--XyZ-bound-x\r\n\r\n",
        "--XyZ-bound\r\nContent-Disposition: form-data; name=\"file\r\n\r\nx\r\n--XyZ-bound--",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = run(CT, bad[i], strlen(bad[i]), 0, 0, &s);
        assert_true(rc == MP_MALFORMED || rc == MP_TRUNCATED);
        assert_true(rc != MP_OK);
    }
    /* Endless header bytes are refused, not buffered. */
    struct multipart *mp = multipart_new(CT);
    assert_non_null(mp);
    int rc = multipart_feed(mp, "--XyZ-bound\r\nX-Long: ", 21, collect, &s);
    char chunk[1024];
    memset(chunk, 'a', sizeof(chunk));
    for (int i = 0; i < 64 && rc == MP_OK; i++)
        rc = multipart_feed(mp, chunk, sizeof(chunk), collect, &s);
    assert_int_equal(rc, MP_MALFORMED);
    assert_int_equal(multipart_finish(mp), MP_MALFORMED);
    multipart_free(mp);
}

static void test_content_types(void **state)
{
    (void)state;
    assert_null(multipart_new("application/octet-stream"));
    assert_null(multipart_new("multipart/form-data"));
    assert_null(multipart_new("multipart/form-data; boundary="));
    assert_null(multipart_new("multipart/mixed; boundary=x"));
    assert_null(
        multipart_new("multipart/form-data; boundary="
                      "12345678901234567890123456789012345678901234567890123456789012345678901"));
    assert_null(multipart_new(NULL));
    struct multipart *mp = multipart_new("multipart/form-data;boundary=abc");
    assert_non_null(mp);
    multipart_free(mp);
    assert_true(multipart_is_form_data(" multipart/form-data; boundary=x"));
    assert_false(multipart_is_form_data("multipart/form-datax"));
}

static int failing(void *user, const char *d, size_t n)
{
    (void)user;
    (void)d;
    (void)n;
    return -1;
}

static void test_callback_failure(void **state)
{
    (void)state;
    struct multipart *mp = multipart_new(CT);
    assert_non_null(mp);
    assert_int_equal(multipart_feed(mp, body_ok, sizeof(body_ok) - 1, failing, NULL), MP_CALLBACK);
    assert_int_equal(multipart_finish(mp), MP_CALLBACK);
    multipart_free(mp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_split),     cmocka_unit_test(test_byte_at_a_time),
        cmocka_unit_test(test_empty_file_part), cmocka_unit_test(test_no_file_part),
        cmocka_unit_test(test_truncated),       cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_content_types),   cmocka_unit_test(test_callback_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
