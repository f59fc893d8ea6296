/* SPDX-License-Identifier: Apache-2.0 */
/* Integration tests of Execute against the real daemon: P1-P6, P16, P18,
 * P19, G5 and the output bound. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon_harness.h"
#include "test_parse.h"

static struct daemon d;
static char root_real[PATH_MAX];

static int group_setup(void **state)
{
    (void)state;
    setenv("SBX_DAEMON_VAR", "daemon", 1);
    if (daemon_start(&d, SBX_DAEMON_BIN, NULL) != 0) return -1;
    char p[PATH_MAX + 16];
    snprintf(p, sizeof(p), "%s/sub", d.root);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/file", d.root);
    close(open(p, O_CREAT | O_WRONLY, 0644));
    snprintf(p, sizeof(p), "%s/noexec.sh", d.root);
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    (void)!write(fd, "#!/bin/sh\necho no\n", 18);
    close(fd);
    snprintf(p, sizeof(p), "%s/out", d.root);
    (void)!symlink("/tmp", p);
    return realpath(d.root, root_real) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    int st = daemon_stop(&d, 15000, NULL);
    return st == 0 ? 0 : -1;
}

static void run(const struct proc_req *r, struct exec_result *res)
{
    h_execute(d.conn, r, 0, res);
}

static void test_binary_safe_separate_streams(void **state)
{
    (void)state;
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("sh", "-c", "printf 'a\\000b\\377'; printf 'e\\000r' >&2")};
    run(&q, &r);
    assert_int_equal(r.code, 0);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out_len, 4);
    assert_memory_equal(r.out, "a\0b\377", 4);
    assert_int_equal(r.err_len, 3);
    assert_memory_equal(r.err, "e\0r", 3);
    exec_result_free(&r);
}

static void test_stdin_is_empty(void **state)
{
    (void)state;
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("sh", "-c", "cat; echo after")};
    run(&q, &r);
    assert_int_equal(r.code, 0);
    assert_string_equal((char *)r.out, "after\n");
    exec_result_free(&r);
}

static void test_exit_codes(void **state)
{
    (void)state;
    int codes[] = {0, 1, 2, 42, 127, 128, 254, 255};
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        char script[32];
        snprintf(script, sizeof(script), "exit %d", codes[i]);
        struct exec_result r;
        struct proc_req q = {.argv = ARGV("sh", "-c", script)};
        run(&q, &r);
        assert_int_equal(r.code, 0);
        assert_int_equal(r.exit_code, codes[i]);
        exec_result_free(&r);
    }
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("sh", "-c", "kill -KILL $$")};
    run(&q, &r);
    assert_int_equal(r.code, 0);
    assert_int_equal(r.exit_code, -1);
    exec_result_free(&r);
}

static void test_env_merge(void **state)
{
    (void)state;
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("sh", "-c", "echo $SBX_DAEMON_VAR:$SBX_NEW:${PATH:+path}"),
                         .env = ARGV("SBX_NEW", "new")};
    run(&q, &r);
    assert_int_equal(r.code, 0);
    assert_string_equal((char *)r.out, "daemon:new:path\n");
    exec_result_free(&r);
    struct proc_req q2 = {.argv = ARGV("sh", "-c", "echo $SBX_DAEMON_VAR"),
                          .env = ARGV("SBX_DAEMON_VAR", "request")};
    run(&q2, &r);
    assert_string_equal((char *)r.out, "request\n");
    exec_result_free(&r);
}

static void expect_pwd(const char *cwd, const char *rel)
{
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("pwd"), .cwd = cwd};
    run(&q, &r);
    assert_int_equal(r.code, 0);
    char want[PATH_MAX + 32];
    snprintf(want, sizeof(want), "%s%s%s\n", root_real, *rel ? "/" : "", rel);
    assert_string_equal((char *)r.out, want);
    exec_result_free(&r);
}

static int exec_code(const char *cwd, const char *const *argv)
{
    struct exec_result r;
    struct proc_req q = {.argv = argv, .cwd = cwd};
    run(&q, &r);
    exec_result_free(&r);
    return r.code;
}

static void test_cwd(void **state)
{
    (void)state;
    expect_pwd(NULL, "");
    expect_pwd("", "");
    expect_pwd("sub", "sub");
    expect_pwd("/", "");
    expect_pwd("/sub", "sub");
    char abs[PATH_MAX + 8];
    snprintf(abs, sizeof(abs), "%s/sub", root_real);
    expect_pwd(abs, "sub");
    assert_int_equal(exec_code("..", ARGV("pwd")), 7);
    assert_int_equal(exec_code("sub/../..", ARGV("pwd")), 7);
    assert_int_equal(exec_code("out", ARGV("pwd")), 7);
    assert_int_equal(exec_code("missing", ARGV("pwd")), 5);
    int c = exec_code("file", ARGV("pwd"));
    assert_true(c > 0);
}

static void test_invalid_requests(void **state)
{
    (void)state;
    struct exec_result r;
    struct proc_req none = {.argv = NULL};
    run(&none, &r);
    assert_int_equal(r.code, 3);
    exec_result_free(&r);
    struct proc_req empty = {.argv = (const char *const[]){NULL}};
    run(&empty, &r);
    assert_int_equal(r.code, 3);
    exec_result_free(&r);
}

/* Hand-encoded {config {command: "true", env_vars {key: KEY, value: "v"}}}:
 * protobuf-c cannot pack a name with a NUL inside. */
static size_t encode_env_request(const char *key, size_t klen, uint8_t *out)
{
    uint8_t entry[96], cfg[128];
    size_t e = 0, c = 0, n = 0;
    entry[e++] = 0x0a;
    entry[e++] = (uint8_t)klen;
    memcpy(entry + e, key, klen);
    e += klen;
    memcpy(entry + e, "\x12\x01v", 3);
    e += 3;
    memcpy(cfg + c, "\x0a\x04true", 6);
    c += 6;
    cfg[c++] = 0x12;
    cfg[c++] = (uint8_t)e;
    memcpy(cfg + c, entry, e);
    c += e;
    out[n++] = 0x0a;
    out[n++] = (uint8_t)c;
    memcpy(out + n, cfg, c);
    return n + c;
}

static void test_env_names_validated(void **state)
{
    (void)state;
    static const struct {
        const char *key;
        size_t len;
        int code;
    } cases[] = {
        {"SBX_OK", 6, 0},
        {"A=B", 3, 3},
        {"A\0B", 3, 3},
        {"", 0, 3},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t req[160];
        size_t n = encode_env_request(cases[i].key, cases[i].len, req);
        assert_int_equal(h_raw(d.conn, "/process.v1.ProcessService/Execute", req, n),
                         cases[i].code);
        assert_int_equal(h_raw(d.conn, "/process.v1.ProcessService/Start", req, n), cases[i].code);
    }
}

static void test_not_found_and_not_executable(void **state)
{
    (void)state;
    assert_int_equal(exec_code(NULL, ARGV("no-such-command-sbx")), 5);
    assert_int_equal(exec_code(NULL, ARGV("./noexec.sh")), 7);
}

static void test_own_process_group(void **state)
{
    (void)state;
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("sh", "-c", "set -- $(cat /proc/$$/stat); echo $1 $5")};
    run(&q, &r);
    assert_int_equal(r.code, 0);
    long pid = 0, pgid = 0;
    const char *rest;
    assert_true(test_parse_long((char *)r.out, 1, INT_MAX, &pid, &rest));
    assert_true(test_parse_long(rest, 1, INT_MAX, &pgid, NULL));
    assert_int_equal(pid, pgid);
    assert_int_not_equal(pgid, getpgid(d.pid));
    exec_result_free(&r);
}

static void test_shared_workspace(void **state)
{
    (void)state;
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("sh", "-c", "echo from-process > p18.txt")};
    run(&q, &r);
    assert_int_equal(r.code, 0);
    exec_result_free(&r);
    assert_int_equal(daemon_http_get(&d, "/v1/files/p18.txt"), 200);
}

static void test_parallel(void **state)
{
    (void)state;
    struct sbx_grpc_call *calls[8];
    size_t len;
    struct proc_req q = {.argv = ARGV("sleep", "1")};
    uint8_t *req = pack_execute(&q, &len);
    uint64_t t0 = now_ms();
    for (int i = 0; i < 8; i++) {
        char err[128];
        calls[i] = sbx_grpc_call_start(d.conn, "/process.v1.ProcessService/Execute", req, len, NULL,
                                       err, sizeof(err));
        assert_non_null(calls[i]);
    }
    for (int i = 0; i < 8; i++) {
        const uint8_t *m;
        size_t n;
        int k;
        while ((k = sbx_grpc_call_next(calls[i], 10000, &m, &n)) == SBX_GRPC_NEXT_MESSAGE)
            ;
        assert_int_equal(k, SBX_GRPC_NEXT_END);
        assert_int_equal(sbx_grpc_call_result(calls[i])->code, 0);
        sbx_grpc_call_free(calls[i]);
    }
    free(req);
    /* Serialised they would take eight seconds. */
    assert_true(now_ms() - t0 < 6000);
}

static int read_pid_file(const char *name)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/%s", d.root, name);
    for (int i = 0; i < 100; i++) {
        int pid = test_read_pid(p);
        if (pid > 0) return pid;
        usleep(20000);
    }
    return -1;
}

static void test_deadline_kills_group(void **state)
{
    (void)state;
    struct exec_result r;
    struct proc_req q = {.argv = ARGV("sh", "-c", "sleep 30 & echo $! > dl.pid; wait")};
    uint64_t t0 = now_ms();
    h_execute(d.conn, &q, 1000, &r);
    assert_int_equal(r.code, 4); /* DEADLINE_EXCEEDED */
    assert_true(now_ms() - t0 < 10000);
    exec_result_free(&r);
    int pid = read_pid_file("dl.pid");
    assert_true(pid > 0);
    bool gone = false;
    for (int i = 0; i < 250 && !gone; i++) {
        gone = pid_gone(pid);
        usleep(20000);
    }
    assert_true(gone);
}

static void test_output_bound(void **state)
{
    (void)state;
    struct daemon small;
    assert_int_equal(daemon_start(&small, SBX_DAEMON_BIN, ARGV("--execute-output-limit", "1Mi")),
                     0);
    struct exec_result r;
    struct proc_req over = {.argv = ARGV("head", "-c", "3000000", "/dev/zero")};
    h_execute(small.conn, &over, 0, &r);
    assert_int_equal(r.code, 8); /* RESOURCE_EXHAUSTED */
    assert_non_null(strstr(r.message, "Start"));
    exec_result_free(&r);
    struct proc_req under = {.argv = ARGV("head", "-c", "1000000", "/dev/zero")};
    h_execute(small.conn, &under, 0, &r);
    assert_int_equal(r.code, 0);
    assert_int_equal(r.out_len, 1000000);
    exec_result_free(&r);
    assert_int_equal(daemon_stop(&small, 15000, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary_safe_separate_streams),
        cmocka_unit_test(test_stdin_is_empty),
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_env_merge),
        cmocka_unit_test(test_cwd),
        cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_env_names_validated),
        cmocka_unit_test(test_not_found_and_not_executable),
        cmocka_unit_test(test_own_process_group),
        cmocka_unit_test(test_shared_workspace),
        cmocka_unit_test(test_parallel),
        cmocka_unit_test(test_deadline_kills_group),
        cmocka_unit_test(test_output_bound),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
