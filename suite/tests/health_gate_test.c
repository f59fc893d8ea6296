/* SPDX-License-Identifier: Apache-2.0 */
/* The health gate: which answers to GET /v1/health are a runtime's, and
 * what the message says of the others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "health_gate.h"
#include "request_headers.h"

static struct http_response answer(long status, const char *ctype, const char *headers,
                                   const char *body)
{
    struct http_response r = {0};
    r.status = status;
    r.content_type = ctype ? strdup(ctype) : NULL;
    r.raw_headers = strdup(headers ? headers : "");
    r.body = strdup(body);
    r.body_len = strlen(body);
    return r;
}

static enum health_answer classify(long status, const char *ctype, const char *headers,
                                   const char *body, char *why, size_t why_len)
{
    struct http_response r = answer(status, ctype, headers, body);
    why[0] = '\0';
    enum health_answer a = health_gate_classify("127.0.0.1:1", &r, why, why_len);
    http_response_free(&r);
    return a;
}

/* A runtime: 200 with a JSON object that has "status"; the value and the
 * rest of the shape are M1's to judge, not the gate's. */
static void test_runtime_answers(void **state)
{
    (void)state;
    char why[1500];
    assert_int_equal(classify(200, "application/json", NULL,
                              "{\"status\":\"ok\",\"uptime_seconds\":3}", why, sizeof why),
                     HEALTH_READY);
    assert_int_equal(classify(200, "application/json; charset=utf-8", NULL,
                              "{\"status\":\"ok\",\"extra\":1}", why, sizeof why),
                     HEALTH_READY);
    assert_int_equal(
        classify(200, "application/json", NULL, "{\"status\":\"healthy\"}", why, sizeof why),
        HEALTH_READY);
    assert_int_equal(classify(503, "application/json", NULL,
                              "{\"code\":\"UNAVAILABLE\",\"message\":\"shutting down\"}", why,
                              sizeof why),
                     HEALTH_NOT_READY);
    assert_non_null(strstr(why, "not ready"));
    assert_non_null(strstr(why, "shutting down"));
}

/* Everything else is something in front of a runtime, named with what it
 * answered and what to try. */
static void test_proxy_answers(void **state)
{
    (void)state;
    static const struct {
        long status;
        const char *ctype, *body, *says;
    } proxies[] = {
        {400, "application/json", "{\"detail\":\"X-Sandbox-ID header is required.\"}", "--header"},
        {401, "text/html", "<html>401 Authorization Required</html>", "--header-file"},
        {403, "text/plain", "forbidden", "credentials"},
        {404, "text/plain", "404 page not found", "wrong port"},
        {407, "text/html", "<html>407</html>", "Proxy-Authorization"},
        {421, "text/plain", "Misdirected Request", "TLS"},
        {502, "text/html", "<html><h1>502 Bad Gateway</h1></html>", "backend"},
        {503, "text/html", "<html>Service Unavailable</html>", "backend"},
        {503, "application/json", "{\"error\":\"no healthy upstream\"}", "backend"},
        {200, "text/html", "<html>welcome</html>", "web page"},
        {200, "application/json", "[1,2]", "check the address"},
        {200, "application/json", "{\"ok\":true}", "check the address"},
        {200, "text/plain", "{\"status\":\"ok\"}", "check the address"},
    };
    for (size_t i = 0; i < sizeof proxies / sizeof proxies[0]; i++) {
        char why[1500];
        enum health_answer a = classify(proxies[i].status, proxies[i].ctype,
                                        "HTTP/1.1 400 Bad\r\nServer: router/1.2\r\n\r\n",
                                        proxies[i].body, why, sizeof why);
        if (a != HEALTH_NOT_A_RUNTIME)
            fail_msg("%ld %s: taken for a runtime", proxies[i].status, proxies[i].body);
        char status[16];
        snprintf(status, sizeof status, "HTTP %ld", proxies[i].status);
        if (!strstr(why, status) || !strstr(why, proxies[i].ctype) ||
            !strstr(why, "Server: router/1.2") || !strstr(why, proxies[i].says) ||
            !strstr(why, "--profile transport"))
            fail_msg("%ld: message '%s'", proxies[i].status, why);
    }
}

/* The quoted body is bounded, made printable, and carries no secret the
 * peer may have echoed. */
static void test_message_bounded_and_scrubbed(void **state)
{
    (void)state;
    struct request_headers h = {0};
    char err[300];
    assert_int_equal(request_headers_add(&h, "Authorization: Bearer s3cr3t-t0k", 32, REQUEST_BOTH,
                                         err, sizeof err),
                     0);
    request_headers_use(&h);
    char body[4096];
    memset(body, 'x', sizeof body - 1);
    body[sizeof body - 1] = '\0';
    memcpy(body, "you sent Bearer s3cr3t-t0k\x01\x02", 28);
    char why[1500];
    assert_int_equal(classify(401, "text/plain", NULL, body, why, sizeof why),
                     HEALTH_NOT_A_RUNTIME);
    assert_null(strstr(why, "s3cr3t"));
    assert_non_null(strstr(why, REQUEST_HEADER_REDACTED));
    assert_non_null(strstr(why, "\\x01"));
    assert_true(strlen(why) < 1000);
    request_headers_use(NULL);
    request_headers_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_answers),
        cmocka_unit_test(test_proxy_answers),
        cmocka_unit_test(test_message_bounded_and_scrubbed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
