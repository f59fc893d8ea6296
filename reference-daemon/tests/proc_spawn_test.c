/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the spawn layer: exec errors, exit statuses, process
 * groups, descriptor hygiene, stdin, working directory and PTYs. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "process/spawn.h"

extern char **environ;

/* Reads fd until EOF/EIO (bounded to 5 s) into buf; returns the length. */
static size_t read_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    for (int rounds = 0; rounds < 500; rounds++) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, 10) <= 0) continue;
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r > 0) {
            n += (size_t)r;
            if (n + 1 >= cap) break;
            continue;
        }
        if (r < 0 && errno == EAGAIN) continue;
        break;
    }
    buf[n] = '\0';
    return n;
}

static int wait_exit(pid_t pid)
{
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return -WTERMSIG(st);
}

static int run(char *const *argv, struct spawn_opts *o, char *out, size_t cap)
{
    struct spawn_result r;
    o->argv = argv;
    if (!o->envp) o->envp = environ;
    int e = spawn_process(o, &r);
    assert_int_equal(e, 0);
    read_all(r.stdout_fd, out, cap);
    int code = wait_exit(r.pid);
    spawn_result_close(&r);
    return code;
}

static struct spawn_opts defaults(void)
{
    return (struct spawn_opts){.cwd_fd = -1, .stdin_mode = SPAWN_STDIN_NULL, .own_group = true};
}

static void test_exit_codes(void **state)
{
    (void)state;
    int codes[] = {0, 1, 2, 42, 126, 127, 128, 200, 255};
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        char script[64], out[16];
        snprintf(script, sizeof(script), "exit %d", codes[i]);
        char *argv[] = {"sh", "-c", script, NULL};
        struct spawn_opts o = defaults();
        assert_int_equal(run(argv, &o, out, sizeof(out)), codes[i]);
    }
}

static void test_not_found_and_not_executable(void **state)
{
    (void)state;
    struct spawn_result r;
    struct spawn_opts o = defaults();
    char *missing[] = {"no-such-command-sbx", NULL};
    o.argv = missing;
    o.envp = environ;
    assert_int_equal(spawn_process(&o, &r), ENOENT);
    assert_int_equal(r.pidfd, -1);

    char path[] = "/tmp/sbx_noexec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
    close(fd);
    chmod(path, 0644);
    char *noexec[] = {path, NULL};
    o.argv = noexec;
    assert_int_equal(spawn_process(&o, &r), EACCES);
    unlink(path);

    char *dir[] = {"/tmp", NULL};
    o.argv = dir;
    assert_int_equal(spawn_process(&o, &r), EACCES);
    /* No child may be left behind by failed starts. */
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void test_own_process_group(void **state)
{
    (void)state;
    char *argv[] = {"sleep", "5", NULL};
    struct spawn_opts o = defaults();
    o.argv = argv;
    o.envp = environ;
    struct spawn_result r;
    assert_int_equal(spawn_process(&o, &r), 0);
    assert_int_equal(getpgid(r.pid), r.pid);
    assert_int_not_equal(getpgid(r.pid), getpgrp());
    kill(-r.pid, SIGKILL);
    assert_int_equal(wait_exit(r.pid), -SIGKILL);
    spawn_result_close(&r);
}

static void test_no_leaked_descriptors(void **state)
{
    (void)state;
    /* A descriptor without CLOEXEC must still not reach the child. */
    int leak = dup(2);
    assert_true(leak >= 3);
    char *argv[] = {"sleep", "5", NULL};
    struct spawn_opts o = defaults();
    o.stdin_mode = SPAWN_STDIN_PIPE;
    o.argv = argv;
    o.envp = environ;
    struct spawn_result r;
    assert_int_equal(spawn_process(&o, &r), 0);
    /* The parent resumes when the child's exec switched memory; the kernel
     * closes the CLOEXEC descriptors just after, so look until it settled. */
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)r.pid);
    int names[8], n = 0;
    for (int tries = 0; tries < 200; tries++) {
        n = 0;
        for (int fd = 0; fd < 1024; fd++) {
            char p2[96];
            snprintf(p2, sizeof(p2), "%s/%d", path, fd);
            struct stat sb;
            if (lstat(p2, &sb) == 0 && n < 8) names[n++] = fd;
        }
        if (n == 3) break;
        usleep(10000);
    }
    assert_int_equal(n, 3);
    assert_int_equal(names[0], 0);
    assert_int_equal(names[2], 2);
    kill(-r.pid, SIGKILL);
    wait_exit(r.pid);
    spawn_result_close(&r);
    close(leak);
}

static void test_stdin_is_dev_null(void **state)
{
    (void)state;
    char out[64];
    char *argv[] = {"sh", "-c", "cat; echo done", NULL};
    struct spawn_opts o = defaults();
    assert_int_equal(run(argv, &o, out, sizeof(out)), 0);
    assert_string_equal(out, "done\n");
}

static void test_stdin_pipe(void **state)
{
    (void)state;
    char *argv[] = {"cat", NULL};
    struct spawn_opts o = defaults();
    o.stdin_mode = SPAWN_STDIN_PIPE;
    o.argv = argv;
    o.envp = environ;
    struct spawn_result r;
    assert_int_equal(spawn_process(&o, &r), 0);
    assert_int_equal(write(r.stdin_fd, "ping\n", 5), 5);
    close(r.stdin_fd);
    r.stdin_fd = -1;
    char out[64];
    read_all(r.stdout_fd, out, sizeof(out));
    assert_string_equal(out, "ping\n");
    assert_int_equal(wait_exit(r.pid), 0);
    spawn_result_close(&r);
}

static void test_stderr_separate_and_merged(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "echo out; echo err >&2", NULL};
    struct spawn_opts o = defaults();
    o.argv = argv;
    o.envp = environ;
    struct spawn_result r;
    assert_int_equal(spawn_process(&o, &r), 0);
    char out[64], err[64];
    read_all(r.stdout_fd, out, sizeof(out));
    read_all(r.stderr_fd, err, sizeof(err));
    assert_string_equal(out, "out\n");
    assert_string_equal(err, "err\n");
    wait_exit(r.pid);
    spawn_result_close(&r);

    o.merge_stderr = true;
    assert_int_equal(spawn_process(&o, &r), 0);
    assert_int_equal(r.stderr_fd, -1);
    read_all(r.stdout_fd, out, sizeof(out));
    assert_string_equal(out, "out\nerr\n");
    wait_exit(r.pid);
    spawn_result_close(&r);
}

static void test_cwd_and_env(void **state)
{
    (void)state;
    char dir[] = "/tmp/sbx_cwd_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char real[4096];
    assert_non_null(realpath(dir, real));
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    char *env[] = {"SBX_A=1", "PATH=/usr/bin:/bin", NULL};
    char *argv[] = {"sh", "-c", "pwd; echo $SBX_A", NULL};
    struct spawn_opts o = defaults();
    o.cwd_fd = dfd;
    o.envp = env;
    char out[4200], want[4200];
    assert_int_equal(run(argv, &o, out, sizeof(out)), 0);
    snprintf(want, sizeof(want), "%s\n1\n", real);
    assert_string_equal(out, want);
    close(dfd);
    rmdir(dir);
}

static void test_signal_death(void **state)
{
    (void)state;
    char out[8];
    char *argv[] = {"sh", "-c", "kill -TERM $$", NULL};
    struct spawn_opts o = defaults();
    assert_int_equal(run(argv, &o, out, sizeof(out)), -SIGTERM);
}

static void test_pty(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "stty size; tty; ps -o sid= -p $$", NULL};
    struct spawn_opts o = defaults();
    o.pty = true;
    o.pty_cols = 101;
    o.pty_rows = 37;
    o.argv = argv;
    o.envp = environ;
    struct spawn_result r;
    assert_int_equal(spawn_process(&o, &r), 0);
    assert_int_equal(r.stdout_fd, r.pty_master);
    assert_int_equal(r.stdin_fd, r.pty_master);
    assert_int_equal(r.stderr_fd, -1);
    assert_int_equal(getsid(r.pid), r.pid);
    char out[256];
    read_all(r.stdout_fd, out, sizeof(out));
    assert_int_equal(wait_exit(r.pid), 0);
    assert_non_null(strstr(out, "37 101\r\n"));
    assert_non_null(strstr(out, "/dev/pts/"));
    spawn_result_close(&r);
}

static void test_pty_default_size(void **state)
{
    (void)state;
    char *argv[] = {"stty", "size", NULL};
    struct spawn_opts o = defaults();
    o.pty = true;
    char out[64];
    assert_int_equal(run(argv, &o, out, sizeof(out)), 0);
    assert_string_equal(out, "24 80\r\n");
}

static void test_sigpipe_default_in_child(void **state)
{
    (void)state;
    /* The daemon ignores SIGPIPE; its children must not inherit that. */
    signal(SIGPIPE, SIG_IGN);
    char *argv[] = {"grep", "SigIgn", "/proc/self/status", NULL};
    struct spawn_opts o = defaults();
    char out[256];
    assert_int_equal(run(argv, &o, out, sizeof(out)), 0);
    assert_non_null(strstr(out, "SigIgn:\t0000000000000000"));
    signal(SIGPIPE, SIG_DFL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_not_found_and_not_executable),
        cmocka_unit_test(test_own_process_group),
        cmocka_unit_test(test_no_leaked_descriptors),
        cmocka_unit_test(test_stdin_is_dev_null),
        cmocka_unit_test(test_stdin_pipe),
        cmocka_unit_test(test_stderr_separate_and_merged),
        cmocka_unit_test(test_cwd_and_env),
        cmocka_unit_test(test_signal_death),
        cmocka_unit_test(test_pty),
        cmocka_unit_test(test_pty_default_size),
        cmocka_unit_test(test_sigpipe_default_in_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
