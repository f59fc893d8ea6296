/* SPDX-License-Identifier: Apache-2.0 */
/* Integration tests of gRPC protocol behaviour against the real daemon:
 * G2 unknown methods, G3 invalid messages, G4 unknown fields, G7
 * reflection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon_harness.h"

static struct daemon d;

static int group_setup(void **state)
{
    (void)state;
    return daemon_start(&d, SBX_DAEMON_BIN, NULL);
}

static int group_teardown(void **state)
{
    (void)state;
    return daemon_stop(&d, 15000, NULL) == 0 ? 0 : -1;
}

static void test_unknown_method(void **state)
{
    (void)state;
    size_t len;
    struct proc_req q = {.argv = ARGV("true")};
    uint8_t *req = pack_execute(&q, &len);
    assert_int_equal(h_raw(d.conn, "/process.v1.ProcessService/NoSuchMethod", req, len), 12);
    assert_int_equal(h_raw(d.conn, "/no.such.v1.Service/Start", req, len), 12);
    free(req);
}

static void test_invalid_message_keeps_connection(void **state)
{
    (void)state;
    static const uint8_t bad[][4] = {{0xff, 0xff, 0xff, 0xff}, {0x0a, 0x10, 0x0a, 0x02}};
    const char *paths[] = {"/process.v1.ProcessService/Execute", "/process.v1.ProcessService/Start",
                           "/process.v1.ProcessService/WriteStdin",
                           "/process.v1.ProcessService/SendSignal",
                           "/process.v1.ProcessService/ResizeTTY"};
    for (size_t p = 0; p < 5; p++)
        for (size_t i = 0; i < 2; i++) {
            int code = h_raw(d.conn, paths[p], bad[i], 4);
            assert_true(code == 13 || code == 3);
            assert_true(sbx_grpc_conn_usable(d.conn));
        }
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("echo", "still-works")};
    assert_int_equal(h_execute(d.conn, &q, 0, &r), 0);
    assert_string_equal((char *)r.out, "still-works\n");
    exec_result_free(&r);
}

static void test_unknown_fields_ignored(void **state)
{
    (void)state;
    size_t len;
    struct proc_req q = {.argv = ARGV("echo", "ok")};
    uint8_t *req = pack_execute(&q, &len);
    /* Field 99 (varint 1) and field 100 (bytes "zz") appended. */
    static const uint8_t extra[] = {0x98, 0x06, 0x01, 0xa2, 0x06, 0x02, 'z', 'z'};
    uint8_t *full = malloc(len + sizeof(extra));
    memcpy(full, req, len);
    memcpy(full + len, extra, sizeof(extra));
    assert_int_equal(h_raw(d.conn, "/process.v1.ProcessService/Execute", full, len + sizeof(extra)),
                     0);
    free(full);
    free(req);
}

static void test_reflection_lists_the_service(void **state)
{
    (void)state;
    /* ServerReflectionRequest{list_services: ""} */
    static const uint8_t req[] = {0x3a, 0x00};
    const char *paths[] = {"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                           "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"};
    for (int i = 0; i < 2; i++) {
        struct sbx_grpc_call_opts o = {.wait_ms = 10000};
        struct sbx_grpc_result r = {0};
        int code = sbx_grpc_unary(d.conn, paths[i], req, sizeof(req), &o, &r);
        assert_int_equal(code, 0);
        assert_non_null(r.response);
        assert_non_null(memmem(r.response, r.response_len, "process.v1.ProcessService", 25));
        sbx_grpc_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_method),
        cmocka_unit_test(test_invalid_message_keeps_connection),
        cmocka_unit_test(test_unknown_fields_ignored),
        cmocka_unit_test(test_reflection_lists_the_service),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
