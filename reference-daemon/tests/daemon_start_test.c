/* SPDX-License-Identifier: Apache-2.0 */
/* Integration tests of Start and the calls addressing its process against
 * the real daemon: P7-P15, P17, G6 and the bounded drain. */
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon_harness.h"
#include "test_parse.h"

enum { SIG_UNSPECIFIED = 0, SIG_INT = 2, SIG_KILL = 9, SIG_TERM = 15 };

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

static void collect(const struct proc_req *q, struct stream_summary *s)
{
    struct sbx_grpc_call *call = h_start(d.conn, q);
    assert_non_null(call);
    h_collect(call, 60000, s);
    sbx_grpc_call_free(call);
}

/* Waits for the first event of a kind; returns its value (or -1). */
static int32_t wait_for(struct sbx_grpc_call *call, enum ev_kind kind, char *text, size_t cap)
{
    uint64_t end = now_ms() + 15000;
    while (now_ms() < end) {
        struct start_event ev;
        int k = h_next(call, 200, &ev);
        if (k == EV_TIMEOUT) continue;
        if (k == (int)kind) {
            if (text && ev.data) snprintf(text, cap, "%s", (char *)ev.data);
            start_event_free(&ev);
            return ev.value;
        }
        start_event_free(&ev);
        if (k == EV_END || k == EV_ERROR || k == EV_BAD) return -1;
    }
    return -1;
}

static void test_event_order(void **state)
{
    (void)state;
    struct stream_summary s;
    struct proc_req q = {.argv = ARGV("sh", "-c", "echo out; echo err >&2; exit 7")};
    collect(&q, &s);
    assert_int_equal(s.status, 0);
    assert_int_equal(s.inits, 1);
    assert_int_equal(s.exits, 1);
    assert_true(s.init_first);
    assert_true(s.exit_last);
    assert_true(s.order_ok);
    assert_int_equal(s.exit_code, 7);
    assert_true(s.id > 0);
    assert_string_equal((char *)s.out, "out\n");
    assert_string_equal((char *)s.err, "err\n");
    stream_summary_free(&s);
}

static void expect_start_error(const struct proc_req *q, int code)
{
    struct stream_summary s;
    collect(q, &s);
    assert_int_equal(s.status, code);
    assert_int_equal(s.events, 0); /* P8: no InitEvent */
    stream_summary_free(&s);
}

static void test_start_errors(void **state)
{
    (void)state;
    struct proc_req missing = {.argv = ARGV("no-such-command-sbx")};
    expect_start_error(&missing, 5);
    struct proc_req escape = {.argv = ARGV("true"), .cwd = "../.."};
    expect_start_error(&escape, 7);
    struct proc_req empty = {.argv = (const char *const[]){NULL}};
    expect_start_error(&empty, 3);
    struct proc_req nocfg = {.argv = NULL};
    expect_start_error(&nocfg, 3);
}

static void test_id_valid_at_once_and_stdin(void **state)
{
    (void)state;
    struct proc_req q = {.argv = ARGV("cat")};
    struct sbx_grpc_call *call = h_start(d.conn, &q);
    struct start_event ev;
    assert_int_equal(h_next(call, 10000, &ev), EV_INIT);
    int32_t id = ev.value;
    assert_true(id > 0);
    /* Used right after the InitEvent arrived: no race (P9). */
    assert_int_equal(h_write_stdin(d.conn, id, "one ", 4, false), 0);
    assert_int_equal(h_write_stdin(d.conn, id, "two", 3, false), 0);
    assert_int_equal(h_write_stdin(d.conn, id, NULL, 0, true), 0);
    struct stream_summary s;
    h_collect(call, 20000, &s);
    assert_string_equal((char *)s.out, "one two");
    assert_int_equal(s.exit_code, 0);
    assert_int_equal(s.status, 0);
    stream_summary_free(&s);
    sbx_grpc_call_free(call);
    /* The stream has ended: the id is gone (P12 SHOULD). */
    assert_int_equal(h_write_stdin(d.conn, id, "x", 1, false), 5);
    assert_int_equal(h_write_stdin(d.conn, 987654, "x", 1, false), 5);
}

static void test_ids_unique(void **state)
{
    (void)state;
    struct proc_req q = {.argv = ARGV("sleep", "0.5")};
    struct sbx_grpc_call *a = h_start(d.conn, &q), *b = h_start(d.conn, &q);
    struct stream_summary sa, sb;
    h_collect(a, 20000, &sa);
    h_collect(b, 20000, &sb);
    assert_true(sa.id > 0 && sb.id > 0);
    assert_int_not_equal(sa.id, sb.id);
    stream_summary_free(&sa);
    stream_summary_free(&sb);
    sbx_grpc_call_free(a);
    sbx_grpc_call_free(b);
}

static void test_streams_while_running(void **state)
{
    (void)state;
    struct proc_req q = {.argv = ARGV("sh", "-c", "echo early; exec sleep 60")};
    struct sbx_grpc_call *call = h_start(d.conn, &q);
    int32_t id = wait_for(call, EV_INIT, NULL, 0);
    assert_true(id > 0);
    char text[64] = "";
    wait_for(call, EV_STDOUT, text, sizeof(text));
    /* "early" arrived while the process still runs (P10). */
    assert_string_equal(text, "early\n");
    assert_int_equal(h_signal(d.conn, id, SIG_KILL), 0);
    struct stream_summary s;
    h_collect(call, 20000, &s);
    assert_int_equal(s.exits, 1);
    assert_int_equal(s.exit_code, -1);
    stream_summary_free(&s);
    sbx_grpc_call_free(call);
}

static void test_large_output_exact(void **state)
{
    (void)state;
    const int n = 2500000; /* about 19 MB of stdout */
    char script[128];
    snprintf(script, sizeof(script), "seq 1 %d; seq 1 50000 >&2", n);
    struct proc_req q = {.argv = ARGV("sh", "-c", script)};
    struct stream_summary s;
    collect(&q, &s);
    assert_int_equal(s.status, 0);
    assert_true(s.max_chunk <= 4096);
    size_t cap = (size_t)n * 9;
    char *want = malloc(cap);
    size_t len = 0;
    for (int i = 1; i <= n; i++)
        len += (size_t)snprintf(want + len, cap - len, "%d\n", i);
    assert_int_equal(s.out_len, len);
    assert_memory_equal(s.out, want, len);
    len = 0;
    for (int i = 1; i <= 50000; i++)
        len += (size_t)snprintf(want + len, cap - len, "%d\n", i);
    assert_int_equal(s.err_len, len);
    assert_memory_equal(s.err, want, len);
    free(want);
    stream_summary_free(&s);
}

static bool wait_gone(int pid)
{
    for (int i = 0; i < 300; i++) {
        if (pid_gone(pid)) return true;
        usleep(20000);
    }
    return false;
}

static void signal_reaches_grandchild(int wire)
{
    /* A foreground grandchild: background jobs of a non-interactive shell
     * ignore SIGINT by POSIX rule, which would say nothing of the daemon. */
    struct proc_req q = {.argv = ARGV("sh", "-c", "sh -c 'echo $$; exec sleep 100'; exit 0")};
    struct sbx_grpc_call *call = h_start(d.conn, &q);
    int32_t id = wait_for(call, EV_INIT, NULL, 0);
    char text[64] = "";
    wait_for(call, EV_STDOUT, text, sizeof(text));
    int grandchild = test_parse_pid(text);
    assert_true(grandchild > 0);
    assert_false(pid_gone(grandchild));
    assert_int_equal(h_signal(d.conn, id, wire), 0);
    struct stream_summary s;
    h_collect(call, 20000, &s);
    assert_int_equal(s.exits, 1);
    assert_int_not_equal(s.exit_code, 0);
    assert_true(wait_gone(grandchild));
    stream_summary_free(&s);
    sbx_grpc_call_free(call);
}

static void test_signals(void **state)
{
    (void)state;
    signal_reaches_grandchild(SIG_TERM);
    signal_reaches_grandchild(SIG_INT);
    signal_reaches_grandchild(SIG_KILL);
    struct proc_req q = {.argv = ARGV("sleep", "30")};
    struct sbx_grpc_call *call = h_start(d.conn, &q);
    int32_t id = wait_for(call, EV_INIT, NULL, 0);
    assert_int_equal(h_signal(d.conn, id, SIG_UNSPECIFIED), 3);
    assert_int_equal(h_signal(d.conn, id, 99), 3);
    assert_int_equal(h_signal(d.conn, 876543, SIG_TERM), 5);
    assert_int_equal(h_signal(d.conn, id, SIG_KILL), 0);
    struct stream_summary s;
    h_collect(call, 20000, &s);
    assert_int_equal(s.exit_code, -1);
    stream_summary_free(&s);
    sbx_grpc_call_free(call);
}

static void test_pty(void **state)
{
    (void)state;
    struct proc_req q = {
        .argv = ARGV("sh", "-c", "tty; stty size; echo to-stderr >&2; read x; stty size"),
        .pty = true,
        .cols = 100,
        .rows = 30};
    struct sbx_grpc_call *call = h_start(d.conn, &q);
    int32_t id = wait_for(call, EV_INIT, NULL, 0);
    usleep(300000);
    assert_int_equal(h_resize(d.conn, id, 120, 40), 0);
    assert_int_equal(h_write_stdin(d.conn, id, "\n", 1, false), 0);
    struct stream_summary s;
    h_collect(call, 20000, &s);
    assert_int_equal(s.status, 0);
    assert_int_equal(s.exit_code, 0);
    assert_non_null(strstr((char *)s.out, "/dev/pts/"));
    assert_non_null(strstr((char *)s.out, "30 100"));
    assert_non_null(strstr((char *)s.out, "40 120"));
    assert_non_null(strstr((char *)s.out, "to-stderr"));
    assert_int_equal(s.err_len, 0); /* terminal output is stdout only */
    stream_summary_free(&s);
    sbx_grpc_call_free(call);

    /* Without a PTY, ResizeTTY is a failed precondition; unknown: NOT_FOUND. */
    struct proc_req plain = {.argv = ARGV("sleep", "30")};
    call = h_start(d.conn, &plain);
    id = wait_for(call, EV_INIT, NULL, 0);
    assert_int_equal(h_resize(d.conn, id, 10, 10), 9);
    assert_int_equal(h_resize(d.conn, 765432, 10, 10), 5);
    h_signal(d.conn, id, SIG_KILL);
    h_collect(call, 20000, &s);
    stream_summary_free(&s);
    sbx_grpc_call_free(call);
}

static void test_pty_eof_and_interrupt(void **state)
{
    (void)state;
    /* EOF through the line discipline: cat sees end-of-file and exits. */
    struct proc_req q = {.argv = ARGV("cat"), .pty = true, .cols = 80, .rows = 24};
    struct sbx_grpc_call *call = h_start(d.conn, &q);
    int32_t id = wait_for(call, EV_INIT, NULL, 0);
    assert_int_equal(h_write_stdin(d.conn, id, "hello\n", 6, false), 0);
    assert_int_equal(h_write_stdin(d.conn, id, NULL, 0, true), 0);
    struct stream_summary s;
    h_collect(call, 20000, &s);
    if (getenv("SBX_TEST_DEBUG")) fprintf(stderr, "exit %d out [%s]\n", s.exit_code, (char *)s.out);
    assert_int_equal(s.exits, 1);
    assert_int_equal(s.exit_code, 0);
    assert_non_null(strstr((char *)s.out, "hello"));
    stream_summary_free(&s);
    sbx_grpc_call_free(call);

    /* ^C interrupts the foreground process group. */
    struct proc_req q2 = {.argv = ARGV("sh", "-c",
                                       "trap 'echo got-int; exit 3' INT; echo ready; "
                                       "while :; do sleep 0.05; done"),
                          .pty = true,
                          .cols = 80,
                          .rows = 24};
    call = h_start(d.conn, &q2);
    id = wait_for(call, EV_INIT, NULL, 0);
    char text[64] = "";
    wait_for(call, EV_STDOUT, text, sizeof(text));
    assert_int_equal(h_write_stdin(d.conn, id, "\003", 1, false), 0);
    h_collect(call, 20000, &s);
    assert_int_equal(s.exit_code, 3);
    assert_non_null(strstr((char *)s.out, "got-int"));
    stream_summary_free(&s);
    sbx_grpc_call_free(call);
}

static void test_cancel_kills_group(void **state)
{
    (void)state;
    struct proc_req q = {.argv = ARGV("sh", "-c", "sleep 100 & echo $!; wait")};
    struct sbx_grpc_call *call = h_start(d.conn, &q);
    wait_for(call, EV_INIT, NULL, 0);
    char text[64] = "";
    wait_for(call, EV_STDOUT, text, sizeof(text));
    int grandchild = test_parse_pid(text);
    assert_true(grandchild > 0);
    sbx_grpc_call_cancel(call);
    sbx_grpc_conn_pump(d.conn, 100);
    assert_true(wait_gone(grandchild));
    sbx_grpc_call_free(call);
}

static void test_drain_is_bounded(void **state)
{
    (void)state;
    /* The background sleep keeps stdout open after the shell exits. */
    struct proc_req q = {.argv = ARGV("sh", "-c", "sleep 20 & echo bye")};
    struct stream_summary s;
    uint64_t t0 = now_ms();
    collect(&q, &s);
    assert_int_equal(s.status, 0);
    assert_int_equal(s.exits, 1);
    assert_int_equal(s.exit_code, 0);
    assert_string_equal((char *)s.out, "bye\n");
    assert_true(now_ms() - t0 < 15000);
    stream_summary_free(&s);
}

static void test_thousand_streams_one_connection(void **state)
{
    (void)state;
    enum { N = 1000 };
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, not of structs
    struct sbx_grpc_call **calls = calloc(N, sizeof(*calls));
    struct proc_req q = {.argv = ARGV("sleep", "2")};
    for (int i = 0; i < N; i++) {
        calls[i] = h_start(d.conn, &q);
        assert_non_null(calls[i]);
    }
    int ok = 0;
    for (int i = 0; i < N; i++) {
        struct stream_summary s;
        h_collect(calls[i], 60000, &s);
        ok += s.status == 0 && s.inits == 1 && s.exits == 1 && s.exit_code == 0;
        stream_summary_free(&s);
        sbx_grpc_call_free(calls[i]);
    }
    free(calls);
    assert_int_equal(ok, N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_order),
        cmocka_unit_test(test_start_errors),
        cmocka_unit_test(test_id_valid_at_once_and_stdin),
        cmocka_unit_test(test_ids_unique),
        cmocka_unit_test(test_streams_while_running),
        cmocka_unit_test(test_large_output_exact),
        cmocka_unit_test(test_signals),
        cmocka_unit_test(test_pty),
        cmocka_unit_test(test_pty_eof_and_interrupt),
        cmocka_unit_test(test_cancel_kills_group),
        cmocka_unit_test(test_drain_is_bounded),
        cmocka_unit_test(test_thousand_streams_one_connection),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
