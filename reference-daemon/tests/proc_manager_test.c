/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the process manager on a libuv loop: output and exit
 * ordering, stdin, PTY resize and EOF, group signals, termination, drain
 * bound, back-pressure, the id registry, orphans and resource hygiene. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "process/proc.h"
#include "test_parse.h"

extern char **environ;

struct run {
    char out[1 << 16];
    size_t out_len;
    char err[1 << 12];
    size_t err_len;
    size_t total; /* all stdout bytes, also past the buffer */
    int exit_code;
    bool finished;
    bool output_after_finish;
    bool pause_after_first;
    struct proc *p;
    struct proc_manager *m;
};

static void on_output(struct proc *p, enum proc_stream s, const uint8_t *d, size_t n, void *u)
{
    struct run *r = u;
    if (r->finished) r->output_after_finish = true;
    char *buf = s == PROC_STDOUT ? r->out : r->err;
    size_t *len = s == PROC_STDOUT ? &r->out_len : &r->err_len;
    size_t cap = s == PROC_STDOUT ? sizeof(r->out) : sizeof(r->err);
    if (s == PROC_STDOUT) r->total += n;
    size_t take = n < cap - 1 - *len ? n : cap - 1 - *len;
    memcpy(buf + *len, d, take);
    *len += take;
    buf[*len] = '\0';
    if (r->pause_after_first) proc_pause_output(p, true);
}

static void on_finished(struct proc *p, int code, void *u)
{
    struct run *r = u;
    r->finished = true;
    r->exit_code = code;
    proc_release(p);
}

static const struct proc_callbacks callbacks = {on_output, on_finished};

static uv_loop_t loop;

static void on_guard(uv_timer_t *t)
{
    (void)t;
}

/* Runs the loop until *flag or ms pass. */
static void run_until(bool *flag, unsigned ms)
{
    uv_timer_t guard;
    uv_timer_init(&loop, &guard);
    uv_timer_start(&guard, on_guard, ms, 0);
    uint64_t end = uv_now(&loop) + ms;
    while (!(flag && *flag) && uv_now(&loop) < end)
        uv_run(&loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&guard, NULL);
    uv_run(&loop, UV_RUN_NOWAIT);
}

static void sleep_loop(unsigned ms)
{
    run_until(NULL, ms);
}

static struct proc_manager *manager(uint64_t drain_ms)
{
    struct proc_manager_opts o = {.drain_ms = drain_ms};
    struct proc_manager *m = proc_manager_new(&loop, &o);
    assert_non_null(m);
    return m;
}

static void close_manager(struct proc_manager *m)
{
    proc_manager_kill_all(m);
    proc_manager_close(m);
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_run(&loop, UV_RUN_NOWAIT);
}

static struct spawn_opts opts(char **argv)
{
    return (struct spawn_opts){.argv = argv,
                               .envp = environ,
                               .cwd_fd = -1,
                               .stdin_mode = SPAWN_STDIN_PIPE,
                               .own_group = true};
}

static struct run *start(struct proc_manager *m, struct spawn_opts *o)
{
    struct run *r = calloc(1, sizeof(*r));
    r->m = m;
    assert_int_equal(proc_spawn(m, o, &callbacks, r, &r->p), 0);
    return r;
}

static void test_output_then_exit(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"sh", "-c", "printf 'a\\0b'; echo err >&2; sleep 0.1; echo late; exit 3", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    run_until(&r->finished, 5000);
    assert_true(r->finished);
    assert_false(r->output_after_finish);
    assert_int_equal(r->exit_code, 3);
    assert_int_equal(r->out_len, 8);
    assert_memory_equal(r->out, "a\0blate\n", 8);
    assert_string_equal(r->err, "err\n");
    assert_int_equal(proc_manager_live(m), 0);
    free(r);
    close_manager(m);
}

static void test_signal_death_is_minus_one(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"sh", "-c", "kill -KILL $$", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    run_until(&r->finished, 5000);
    assert_int_equal(r->exit_code, -1);
    free(r);
    close_manager(m);
}

static void test_stdin_and_eof(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"cat", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    assert_int_equal(proc_write_stdin(r->p, "hello ", 6, NULL, NULL), 1);
    assert_int_equal(proc_write_stdin(r->p, "world", 5, NULL, NULL), 1);
    assert_int_equal(proc_close_stdin(r->p, false, NULL, NULL), 1);
    /* After eof, input is refused. */
    assert_int_equal(proc_write_stdin(r->p, "x", 1, NULL, NULL), -EPIPE);
    run_until(&r->finished, 5000);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->out, "hello world");
    free(r);
    close_manager(m);
}

static int async_done, async_err;
static void on_written(struct proc *p, int err, void *u)
{
    (void)p;
    (void)u;
    async_done++;
    async_err = err;
}

static void test_stdin_large_queued(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"wc", "-c", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    size_t n = 1 << 20; /* beyond the pipe's capacity: completes later */
    char *buf = calloc(1, n);
    async_done = 0;
    int rc = proc_write_stdin(r->p, buf, n, on_written, NULL);
    assert_int_equal(rc, 0);
    rc = proc_close_stdin(r->p, false, on_written, NULL);
    assert_int_equal(rc, 0);
    run_until(&r->finished, 5000);
    assert_int_equal(async_done, 2);
    assert_int_equal(async_err, 0);
    long echoed = -1;
    assert_true(test_parse_long(r->out, 0, LONG_MAX, &echoed, NULL));
    assert_int_equal(echoed, n);
    free(buf);
    free(r);
    close_manager(m);
}

static void test_pty_resize_and_eof(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"sh", "-c", "trap 'echo WINCH' WINCH; read x; stty size; cat; echo EOF-SEEN",
                    NULL};
    struct spawn_opts o = opts(argv);
    o.pty = true;
    o.pty_cols = 80;
    o.pty_rows = 24;
    struct run *r = start(m, &o);
    assert_true(proc_has_pty(r->p));
    uint16_t c = 0, w = 0;
    assert_int_equal(proc_get_size(r->p, &c, &w), 0);
    assert_int_equal(c, 80);
    assert_int_equal(w, 24);
    sleep_loop(200);
    assert_int_equal(proc_resize(r->p, 132, 43), 0);
    assert_int_equal(proc_get_size(r->p, &c, &w), 0);
    assert_int_equal(c, 132);
    assert_int_equal(w, 43);
    sleep_loop(100);
    assert_true(proc_write_stdin(r->p, "go\n", 3, NULL, NULL) >= 0);
    /* Mid-line EOF: the partial line reaches cat, then cat sees EOF. */
    assert_true(proc_write_stdin(r->p, "partial", 7, NULL, NULL) >= 0);
    assert_true(proc_close_stdin(r->p, false, NULL, NULL) >= 0);
    run_until(&r->finished, 5000);
    assert_true(r->finished);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "WINCH"));
    assert_non_null(strstr(r->out, "43 132"));
    assert_non_null(strstr(r->out, "EOF-SEEN"));
    assert_int_equal(r->err_len, 0);
    free(r);
    close_manager(m);
}

static void test_resize_without_pty(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"true", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    assert_int_equal(proc_resize(r->p, 10, 10), -ENOTTY);
    run_until(&r->finished, 5000);
    free(r);
    close_manager(m);
}

static bool pid_alive(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return rp && rp[2] != 'Z' && rp[2] != 'X';
}

static void test_group_signal_reaches_grandchildren(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"sh", "-c", "sleep 100 & echo $!; wait", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    for (int i = 0; i < 100 && !strchr(r->out, '\n'); i++)
        sleep_loop(20);
    pid_t grandchild = test_parse_pid(r->out);
    assert_true(grandchild > 0);
    assert_true(pid_alive(grandchild));
    assert_int_equal(getpgid(grandchild), proc_pid(r->p));
    assert_int_equal(proc_signal_group(r->p, SIGTERM), 0);
    run_until(&r->finished, 5000);
    assert_int_equal(r->exit_code, -1);
    for (int i = 0; i < 100 && pid_alive(grandchild); i++)
        sleep_loop(20);
    assert_false(pid_alive(grandchild));
    free(r);
    close_manager(m);
}

static void test_terminate_escalates_to_sigkill(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"sh", "-c", "trap '' TERM; echo ready; sleep 100", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    for (int i = 0; i < 100 && !strstr(r->out, "ready"); i++)
        sleep_loop(20);
    uint64_t t0 = uv_now(&loop);
    proc_terminate(r->p, 300);
    sleep_loop(150);
    assert_false(r->finished); /* SIGTERM is ignored */
    run_until(&r->finished, 5000);
    assert_true(r->finished);
    assert_true(uv_now(&loop) - t0 >= 290);
    assert_int_equal(r->exit_code, -1);
    free(r);
    close_manager(m);
}

static void test_drain_is_bounded(void **state)
{
    (void)state;
    struct proc_manager *m = manager(300);
    /* The background sleep keeps stdout open after the shell exited. */
    char *argv[] = {"sh", "-c", "sleep 30 & echo bye", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    pid_t leader = proc_pid(r->p);
    run_until(&r->finished, 5000);
    assert_true(r->finished);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->out, "bye\n");
    kill(-leader, SIGKILL); /* the leader is reaped: the sleep keeps the group */
    free(r);
    close_manager(m);
}

static void test_backpressure_blocks_child(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"head", "-c", "8388608", "/dev/zero", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = calloc(1, sizeof(*r));
    r->pause_after_first = true;
    assert_int_equal(proc_spawn(m, &o, &callbacks, r, &r->p), 0);
    sleep_loop(300);
    /* Paused after one read: the child is stuck on a full pipe. */
    assert_true(r->total > 0);
    assert_true(r->total <= 65536);
    assert_false(r->finished);
    assert_false(proc_has_exited(r->p));
    r->pause_after_first = false;
    proc_pause_output(r->p, false);
    run_until(&r->finished, 10000);
    assert_true(r->finished);
    assert_int_equal(r->total, 8388608);
    free(r);
    close_manager(m);
}

static void test_registry(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    char *argv[] = {"sleep", "5", NULL};
    struct spawn_opts o = opts(argv);
    struct run *a = start(m, &o), *b = start(m, &o);
    int32_t ia = proc_register(a->p), ib = proc_register(b->p);
    assert_true(ia > 0);
    assert_true(ib > 0);
    assert_int_not_equal(ia, ib);
    assert_int_not_equal(ia, proc_pid(a->p));
    assert_ptr_equal(proc_lookup(m, ia), a->p);
    assert_ptr_equal(proc_lookup(m, ib), b->p);
    assert_null(proc_lookup(m, 0));
    assert_null(proc_lookup(m, -1));
    assert_null(proc_lookup(m, ib + 1000));
    proc_unregister(a->p);
    assert_null(proc_lookup(m, ia));
    proc_signal_group(a->p, SIGKILL);
    proc_signal_group(b->p, SIGKILL);
    run_until(&a->finished, 5000);
    run_until(&b->finished, 5000);
    /* Released records leave the registry. */
    assert_null(proc_lookup(m, ib));
    free(a);
    free(b);
    close_manager(m);
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int count_children(void)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)gettid());
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    int n = test_count_numbers(f);
    fclose(f);
    return n;
}

static void test_no_leaks_over_many_cycles(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    int fds = count_fds();
    char *argv[] = {"sh", "-c", "echo x; echo y >&2", NULL};
    for (int i = 0; i < 300; i++) {
        struct spawn_opts o = opts(argv);
        o.pty = i % 3 == 0;
        struct run *r = start(m, &o);
        proc_register(r->p);
        run_until(&r->finished, 5000);
        assert_true(r->finished);
        free(r);
    }
    uv_run(&loop, UV_RUN_NOWAIT);
    assert_int_equal(proc_manager_live(m), 0);
    assert_int_equal(count_fds(), fds);
    assert_int_equal(count_children(), 0);
    close_manager(m);
}

static void test_orphans_are_reaped(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    assert_int_equal(proc_manager_adopt_orphans(m), 0);
    /* A daemonised grandchild in its own session, detached from the pipes. */
    char *argv[] = {"sh", "-c", "setsid sh -c 'sleep 0.3' </dev/null >/dev/null 2>&1 & exit 0",
                    NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    run_until(&r->finished, 5000);
    assert_true(r->finished);
    bool none = false;
    for (int i = 0; i < 100 && !none; i++) {
        sleep_loop(20);
        none = count_children() == 0;
    }
    assert_true(none);
    free(r);
    close_manager(m);
}

/* The orphan reaper reads the whole children list, however long: with 300
 * other children ahead of it, an orphan's zombie is still reaped. */
static void test_orphans_reaped_behind_many_children(void **state)
{
    (void)state;
    enum { OTHERS = 300 };
    int hold[2];
    assert_int_equal(pipe(hold), 0);
    pid_t others[OTHERS];
    for (int i = 0; i < OTHERS; i++) {
        others[i] = fork();
        assert_true(others[i] >= 0);
        if (others[i] == 0) {
            /* Lives until the test closes the pipe (or 30 s pass). It keeps
             * none of the test's descriptors: an inherited epoll or pipe
             * would outlive the test's close and confuse its loop. */
            dup2(hold[0], 0);
            close_range(3, ~0u, 0);
            alarm(30);
            char c;
            while (read(0, &c, 1) < 0 && errno == EINTR)
                ;
            _exit(0);
        }
    }
    close(hold[0]);
    struct proc_manager *m = manager(0);
    assert_int_equal(proc_manager_adopt_orphans(m), 0);
    char *argv[] = {"sh", "-c", "setsid sh -c 'sleep 0.3' </dev/null >/dev/null 2>&1 & exit 0",
                    NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    run_until(&r->finished, 20000);
    assert_true(r->finished);
    bool reaped = false;
    for (int i = 0; i < 150 && !reaped; i++) {
        sleep_loop(20);
        reaped = count_children() == OTHERS;
    }
    close(hold[1]);
    for (int i = 0; i < OTHERS; i++)
        waitpid(others[i], NULL, 0);
    assert_true(reaped);
    free(r);
    close_manager(m);
}

static void test_kill_all_at_exit(void **state)
{
    (void)state;
    struct proc_manager *m = manager(0);
    assert_int_equal(proc_manager_adopt_orphans(m), 0);
    char *argv[] = {"sh", "-c", "setsid sleep 100 </dev/null >/dev/null 2>&1 & sleep 100", NULL};
    struct spawn_opts o = opts(argv);
    struct run *r = start(m, &o);
    sleep_loop(200);
    assert_true(count_children() >= 1);
    if (getenv("SBX_TEST_DEBUG"))
        fprintf(stderr, "finished early: %d code %d\n", r->finished, r->exit_code);
    proc_manager_kill_all(m);
    proc_manager_close(m);
    uv_run(&loop, UV_RUN_NOWAIT);
    if (!r->finished) proc_release(r->p); /* the owner lets go after the manager closed */
    /* Nothing the manager started survives: the group and the orphan. */
    bool none = false;
    for (int i = 0; i < 100 && !none; i++) {
        usleep(20000);
        none = count_children() == 0;
    }
    assert_true(none);
    free(r);
}

static int group_setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    return uv_loop_init(&loop);
}

static int group_teardown(void **state)
{
    (void)state;
    uv_run(&loop, UV_RUN_NOWAIT);
    return uv_loop_close(&loop) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_then_exit),
        cmocka_unit_test(test_signal_death_is_minus_one),
        cmocka_unit_test(test_stdin_and_eof),
        cmocka_unit_test(test_stdin_large_queued),
        cmocka_unit_test(test_pty_resize_and_eof),
        cmocka_unit_test(test_resize_without_pty),
        cmocka_unit_test(test_group_signal_reaches_grandchildren),
        cmocka_unit_test(test_terminate_escalates_to_sigkill),
        cmocka_unit_test(test_drain_is_bounded),
        cmocka_unit_test(test_backpressure_blocks_child),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_no_leaks_over_many_cycles),
        cmocka_unit_test(test_orphans_are_reaped),
        cmocka_unit_test(test_orphans_reaped_behind_many_children),
        cmocka_unit_test(test_kill_all_at_exit),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
