/* SPDX-License-Identifier: Apache-2.0 */
/* Child start-up with clone(CLONE_VM | CLONE_VFORK): the child borrows the
 * daemon's memory until it execs, like posix_spawn, so starting a process
 * costs the same whatever the daemon's size. The child therefore only makes
 * system calls and reports a failure through shared memory. CLONE_PIDFD hands
 * back a pidfd atomically, so signals can never reach a recycled PID. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "proc_behaviour.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define CHILD_STACK_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define CHILD_STACK_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Shared between the daemon and the child until the child execs. */
struct child_ctx {
    const struct spawn_opts *opts;
    int fd_in, fd_out, fd_err; /* the child's ends, moved to 0, 1, 2 */
    int pty_slave;
    bool set_group; /* setpgid(0, 0) before exec */
    int err;        /* set by the child when it fails before or in exec */
};

/* Moves fd to target (0..2) and makes it survive exec. */
static int child_install(int fd, int target)
{
    if (fd == target) {
        int fl = fcntl(fd, F_GETFD);
        return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
    }
    return dup2(fd, target) < 0 ? -1 : 0;
}

static int child_main(void *arg)
{
    struct child_ctx *c = arg;
    const struct spawn_opts *o = c->opts;

    /* Signals are blocked by the parent around clone; reset every handler
     * (and the daemon's ignored SIGPIPE) before unblocking. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP) (void)sigaction(s, &dfl, NULL);

    if (o->pty) {
        if (setsid() < 0 || ioctl(c->pty_slave, TIOCSCTTY, 0) < 0) goto fail;
    } else if (c->set_group) {
        if (setpgid(0, 0) < 0) goto fail;
    }
    /* If the daemon dies abruptly its children go with it. */
    if (!o->outlive_daemon) (void)prctl(PR_SET_PDEATHSIG, SIGKILL);

    /* The three ends are >= 3 unless the daemon itself lacks 0..2; lift any
     * low one out of the way first so the dup2 below cannot clobber it. */
    int *ends[3] = {&c->fd_in, &c->fd_out, &c->fd_err};
    for (int i = 0; i < 3; i++) {
        if (*ends[i] >= 0 && *ends[i] < 3 && *ends[i] != i) {
            int moved = fcntl(*ends[i], F_DUPFD, 3);
            if (moved < 0) goto fail;
            int old = *ends[i];
            for (int j = 0; j < 3; j++)
                if (*ends[j] == old) *ends[j] = moved;
        }
    }
    for (int i = 0; i < 3; i++)
        if (child_install(*ends[i], i) < 0) goto fail;
    if (o->cwd_fd >= 0 && fchdir(o->cwd_fd) < 0) goto fail;
    /* Nothing but 0..2 crosses exec, whatever other threads opened. */
    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
        for (int fd = 3; fd < 65536; fd++)
            (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvpe(o->argv[0], o->argv, o->envp);
fail:
    c->err = errno ? errno : EINVAL;
    _exit(127);
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

void spawn_result_close(struct spawn_result *res)
{
    int fds[4] = {res->stdin_fd, res->stdout_fd, res->stderr_fd, res->pty_master};
    for (int i = 0; i < 4; i++) {
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= fds[j] == fds[i];
        if (fds[i] >= 0 && !seen) close(fds[i]);
    }
    res->stdin_fd = res->stdout_fd = res->stderr_fd = res->pty_master = -1;
    close_fd(&res->pidfd);
}

int spawn_set_pty_size(int master, const struct spawn_opts *o)
{
    struct winsize ws = {.ws_row = o->pty_rows, .ws_col = o->pty_cols};
    if (ws.ws_row == 0 || ws.ws_col == 0) {
        ws.ws_row = 24;
        ws.ws_col = 80;
    }
    return ioctl(master, TIOCSWINSZ, &ws);
}

static int open_pty(const struct spawn_opts *o, int *master, int *slave)
{
    *master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*master < 0) return errno;
    char name[128];
    if (grantpt(*master) < 0 || unlockpt(*master) < 0 ||
        ptsname_r(*master, name, sizeof(name)) != 0)
        goto fail;
    *slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*slave < 0) goto fail;
    if ((proc_behaviour->pty_sized_at_open() && spawn_set_pty_size(*master, o) < 0) ||
        set_nonblock(*master) < 0)
        goto fail;
    return 0;
fail:;
    int e = errno;
    close_fd(master);
    close_fd(slave);
    return e;
}

static pid_t clone_child(struct child_ctx *ctx, int *pidfd)
{
    /* The child runs on this frame's array while the parent is suspended. */
    _Alignas(64) char stack[64 * 1024];
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    *pidfd = -1;
    pid_t pid = clone(child_main, stack + sizeof(stack),
                      CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, ctx, pidfd);
    if (pid < 0 && errno == EINVAL) /* kernels before 5.2: no CLONE_PIDFD */
        pid = clone(child_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, ctx);
    int e = errno;
    /* Under ASan the child's frames left redzones in this shared array. */
    CHILD_STACK_UNPOISON(stack, sizeof(stack));
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return pid;
}

int spawn_process(const struct spawn_opts *o, struct spawn_result *res)
{
    res->pid = -1;
    res->pidfd = res->stdin_fd = res->stdout_fd = res->stderr_fd = res->pty_master = -1;
    if (!o->argv || !o->argv[0]) return EINVAL;

    struct child_ctx ctx = {.opts = o, .fd_in = -1, .fd_out = -1, .fd_err = -1, .pty_slave = -1};
    ctx.set_group = !o->pty && o->own_group && proc_behaviour->group_set_by_child();
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    int e = 0;

    if (o->pty) {
        e = open_pty(o, &res->pty_master, &ctx.pty_slave);
        if (e) goto fail;
        ctx.fd_in = ctx.fd_out = ctx.fd_err = ctx.pty_slave;
        res->stdin_fd = res->stdout_fd = res->pty_master;
    } else {
        if (o->stdin_mode == SPAWN_STDIN_NULL) {
            in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (in[0] < 0) goto fail_errno;
        } else if (pipe2(in, O_CLOEXEC) < 0) {
            goto fail_errno;
        }
        if (pipe2(out, O_CLOEXEC) < 0) goto fail_errno;
        if (!o->merge_stderr && pipe2(err, O_CLOEXEC) < 0) goto fail_errno;
        /* The daemon's ends are separate open file descriptions from the
         * child's, so non-blocking mode stays on this side. */
        if ((in[1] >= 0 && set_nonblock(in[1]) < 0) || set_nonblock(out[0]) < 0 ||
            (err[0] >= 0 && set_nonblock(err[0]) < 0))
            goto fail_errno;
        ctx.fd_in = in[0];
        ctx.fd_out = out[1];
        ctx.fd_err = o->merge_stderr ? out[1] : err[1];
    }

    int pidfd;
    pid_t pid = clone_child(&ctx, &pidfd);
    if (pid < 0) goto fail_errno;
    if (ctx.err) {
        /* The child has already exited (CLONE_VFORK): reap it. */
        e = ctx.err;
        waitpid(pid, NULL, 0);
        if (pidfd >= 0) close(pidfd);
        goto fail;
    }
    /* The vfork parent runs again once the child has exec'd. */
    proc_behaviour->child_execed(o, pid, res->pty_master);
    if (pidfd < 0) {
        pidfd = pidfd_open(pid, 0);
        if (pidfd < 0) {
            /* Still our unreaped child, so the PID cannot have been reused. */
            e = errno;
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            goto fail;
        }
        fcntl(pidfd, F_SETFD, FD_CLOEXEC);
    }
    res->pid = pid;
    res->pidfd = pidfd;

    close_fd(&ctx.pty_slave);
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&err[1]);
    if (!o->pty) {
        res->stdin_fd = in[1];
        res->stdout_fd = out[0];
        res->stderr_fd = err[0];
    }
    return 0;

fail_errno:
    e = errno ? errno : EIO;
fail:
    close_fd(&ctx.pty_slave);
    close_fd(&in[0]);
    close_fd(&in[1]);
    close_fd(&out[0]);
    close_fd(&out[1]);
    close_fd(&err[0]);
    close_fd(&err[1]);
    proc_behaviour->spawn_failed(o, res);
    spawn_result_close(res);
    return e;
}
