/* SPDX-License-Identifier: Apache-2.0 */
/* The user's request headers: what --header and its kin accept and refuse,
 * the header file, secrecy and the redacted command line, and how the
 * clients' lists leave a request's own headers alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"
#include "request_headers.h"

static int add(struct request_headers *h, const char *text, char *err, size_t err_len)
{
    return request_headers_add(h, text, strlen(text), REQUEST_BOTH, err, err_len);
}

static void test_parses_name_and_value(void **state)
{
    (void)state;
    struct request_headers h = {0};
    char err[300] = "";
    assert_int_equal(add(&h, "X-Sandbox-ID:  sb-1 \t", err, sizeof err), 0);
    assert_int_equal(add(&h, "Authorization:Bearer a:b", err, sizeof err), 0);
    assert_int_equal(h.n, 2);
    assert_string_equal(h.v[0].name, "X-Sandbox-ID");
    assert_string_equal(h.v[0].lower, "x-sandbox-id");
    assert_string_equal(h.v[0].value, "sb-1");
    assert_string_equal(h.v[1].value, "Bearer a:b");
    request_headers_free(&h);
}

/* Each malformed or reserved header is refused, with a message that names
 * the problem and never quotes the value. */
static void test_refuses_malformed_and_reserved(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t len; /* 0 = strlen */
        const char *says;
    } bad[] = {
        {"NoColonHere", 0, "no colon"},
        {"X-A: s3cr3t\ntwo", 0, "newline"},
        {"X-A: s3cr3t\rtwo", 0, "carriage return"},
        {"X-A: s3c\0r3t", 12, "NUL"},
        {"X\0A: s3cr3t", 11, "NUL"},
        {": value", 0, "pseudo-header"},
        {":authority: h", 0, "pseudo-header"},
        {"Bad Name: v", 0, "not a valid HTTP field name"},
        {"X-A:", 0, "empty value"},
        {"X-A:   ", 0, "empty value"},
        {"Host: h", 0, "reserved"},
        {"content-type: text/plain", 0, "reserved"},
        {"Content-Length: 3", 0, "reserved"},
        {"Transfer-Encoding: chunked", 0, "reserved"},
        {"Connection: close", 0, "reserved"},
        {"TE: trailers", 0, "reserved"},
        {"grpc-timeout: 1S", 0, "reserved"},
        {"GRPC-Status: 0", 0, "reserved"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct request_headers h = {0};
        char err[300] = "";
        size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);
        assert_int_equal(request_headers_add(&h, bad[i].text, len, REQUEST_BOTH, err, sizeof err),
                         -1);
        assert_int_equal(h.n, 0);
        if (!strstr(err, bad[i].says)) fail_msg("'%s': message '%s'", bad[i].text, err);
        assert_null(strstr(err, "s3cr3t"));
        request_headers_free(&h);
    }
}

static char *write_temp(const char *content, size_t len)
{
    char *path = strdup("/tmp/sbx-hdr-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, content, len), (ssize_t)len);
    close(fd);
    return path;
}

static void test_header_file(void **state)
{
    (void)state;
    static const char text[] = "# routing\r\n"
                               "\n"
                               "X-Sandbox-ID: sb-1\r\n"
                               "   # indented comment\n"
                               "  Authorization: Bearer tok\n"
                               "X-Last: no newline at the end";
    char *path = write_temp(text, sizeof text - 1);
    struct request_headers h = {0};
    char err[600] = "";
    assert_int_equal(request_headers_add_file(&h, path, err, sizeof err), 0);
    assert_int_equal(h.n, 3);
    assert_string_equal(h.v[0].value, "sb-1");
    assert_string_equal(h.v[1].name, "Authorization");
    assert_string_equal(h.v[2].value, "no newline at the end");
    request_headers_free(&h);
    unlink(path);
    free(path);

    /* A bad line is named by its number; its value is not quoted. */
    static const char bad[] = "X-Ok: 1\n# c\nX-Bad secretvalue\n";
    path = write_temp(bad, sizeof bad - 1);
    assert_int_equal(request_headers_add_file(&h, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 3"));
    assert_null(strstr(err, "secretvalue"));
    request_headers_free(&h);
    unlink(path);
    free(path);

    static const char nul[] = "X-A: a\0b\n";
    path = write_temp(nul, sizeof nul - 1);
    assert_int_equal(request_headers_add_file(&h, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "NUL"));
    request_headers_free(&h);
    unlink(path);
    free(path);

    assert_int_equal(request_headers_add_file(&h, "/nonexistent/headers", err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/headers"));
}

static void test_secrets_and_redacted_argv(void **state)
{
    (void)state;
    struct request_headers h = {0};
    char err[300];
    assert_int_equal(request_headers_mark_secret(&h, "X-Api-Key", err, sizeof err), 0);
    assert_true(request_headers_is_secret(&h, "authorization"));
    assert_true(request_headers_is_secret(&h, "Cookie"));
    assert_true(request_headers_is_secret(&h, "PROXY-AUTHORIZATION"));
    assert_true(request_headers_is_secret(&h, "x-api-key"));
    assert_false(request_headers_is_secret(&h, "X-Sandbox-ID"));
    assert_int_equal(request_headers_mark_secret(&h, "bad name", err, sizeof err), -1);

    char *argv[] = {"sandboxd-conformance",
                    "--header",
                    "Authorization: Bearer t0ken",
                    "--header=Cookie: s=t0ken",
                    "--rest-header",
                    "X-Api-Key: t0ken",
                    "--grpc-header=X-Sandbox-ID: sb-1",
                    "--focus",
                    "Authorization: not a header here",
                    NULL};
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    char **r = request_headers_redact_argv(&h, argc, argv);
    assert_non_null(r);
    assert_string_equal(r[2], "Authorization: <redacted>");
    assert_string_equal(r[3], "--header=Cookie: <redacted>");
    assert_string_equal(r[5], "X-Api-Key: <redacted>");
    assert_string_equal(r[6], "--grpc-header=X-Sandbox-ID: sb-1");
    assert_string_equal(r[8], "Authorization: not a header here");
    assert_null(r[argc]);
    for (int i = 0; i < argc; i++)
        if (i != 8) assert_null(strstr(r[i], "t0ken"));
    request_headers_free_argv(r);
    request_headers_free(&h);
}

/* A request's own header always wins; each surface gets its own. */
static void test_process_list_leaves_own_headers(void **state)
{
    (void)state;
    struct request_headers h = {0};
    char err[300];
    assert_int_equal(add(&h, "X-Sandbox-ID: sb-1", err, sizeof err), 0);
    assert_int_equal(add(&h, "Accept: text/x-user", err, sizeof err), 0);
    assert_int_equal(request_headers_add(&h, "X-Rest-Only: r", 14, REQUEST_REST, err, sizeof err),
                     0);
    assert_int_equal(request_headers_add(&h, "X-Grpc-Only: g", 14, REQUEST_GRPC, err, sizeof err),
                     0);
    request_headers_use(&h);

    static const char *const own[] = {"accept: application/json", NULL};
    const char **lines = request_headers_rest_lines(own);
    assert_non_null(lines);
    assert_string_equal(lines[0], "X-Sandbox-ID: sb-1");
    assert_string_equal(lines[1], "X-Rest-Only: r");
    assert_null(lines[2]);
    free((void *)lines);

    char *block = request_headers_raw_block("Content-Type: x\r\nX-SANDBOX-ID: mine\r\n");
    assert_string_equal(block, "Accept: text/x-user\r\nX-Rest-Only: r\r\n");
    free(block);
    block = request_headers_raw_block(NULL);
    assert_string_equal(block, "X-Sandbox-ID: sb-1\r\nAccept: text/x-user\r\nX-Rest-Only: r\r\n");
    free(block);

    struct sbx_grpc_conn_opts co = {0};
    request_headers_grpc_opts(&co);
    assert_int_equal(co.n_extra_headers, 3);
    assert_string_equal(co.extra_headers[0].name, "x-sandbox-id");
    assert_string_equal(co.extra_headers[1].name, "accept");
    assert_string_equal(co.extra_headers[2].name, "x-grpc-only");
    assert_string_equal(co.extra_headers[2].value, "g");

    char *names = request_headers_names(REQUEST_REST);
    assert_string_equal(names, "X-Sandbox-ID, Accept, X-Rest-Only");
    free(names);

    request_headers_use(NULL);
    lines = request_headers_rest_lines(NULL);
    assert_null(lines[0]);
    free((void *)lines);
    request_headers_grpc_opts(&co);
    assert_int_equal(co.n_extra_headers, 0);
    request_headers_free(&h);
}

/* The command line: a bad header is a usage error before anything runs
 * (the runner exits 2 on cli_parse's -1). */
static void test_cli_refuses_bad_headers(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"--header", "NoColon"},
        {"--rest-header", "X-A: a\nb"},
        {"--grpc-header", "grpc-timeout: 1S"},
        {"--header", ":authority: x"},
        {"--header-file", "/nonexistent/headers"},
        {"--secret-header", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[] = {"sandboxd-conformance", "--grpc",          "127.0.0.1:1",     "--rest",
                        "127.0.0.1:2",          (char *)bad[i][0], (char *)bad[i][1], NULL};
        struct cli_opts o;
        char err[600] = "";
        assert_int_equal(cli_parse(&o, 7, argv, err, sizeof err), -1);
        if (!strstr(err, bad[i][0])) fail_msg("%s: message '%s'", bad[i][0], err);
        cli_free(&o);
    }
    char *argv[] = {"sandboxd-conformance", "--grpc",        "127.0.0.1:1", "--rest", "127.0.0.1:2",
                    "--header=X-A: 1",      "--grpc-header", "x-b: 2",      NULL};
    struct cli_opts o;
    char err[600] = "";
    assert_int_equal(cli_parse(&o, 8, argv, err, sizeof err), 0);
    assert_int_equal(o.headers.n, 2);
    assert_int_equal(o.headers.v[1].surfaces, REQUEST_GRPC);
    cli_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parses_name_and_value),
        cmocka_unit_test(test_refuses_malformed_and_reserved),
        cmocka_unit_test(test_header_file),
        cmocka_unit_test(test_secrets_and_redacted_argv),
        cmocka_unit_test(test_process_list_leaves_own_headers),
        cmocka_unit_test(test_cli_refuses_bad_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
