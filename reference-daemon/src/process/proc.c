/* SPDX-License-Identifier: Apache-2.0 */
/* Managed processes on the loop (see proc.h): spawning, output, polling,
 * exit and drain, signals, release and the manager; stdin in
 * proc_stdin.c, ids in proc_registry.c, the daemon's other children in
 * proc_children.c.
 *
 * Record life cycle: spawned -> exited (pidfd readable; status read with
 * WNOWAIT, the zombie is kept) -> finished (every output fd at EOF, or the
 * drain bound passed) -> released (owner done, no SIGKILL pending: reaped,
 * handles closed) -> freed (last handle close callback). */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "intmap.h"
#include "proc_behaviour.h"
#include "proc_internal.h"

/* Waits (bounded) for the pidfd's process to exit. libuv made the pidfd
 * non-blocking, and waitid on a non-blocking pidfd never sleeps, so wait for
 * readability first. Returns waitid's result. */
int proc_pidfd_wait(int pidfd, siginfo_t *si, int flags)
{
    struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
    for (int i = 0; i < 100; i++) {
        int rc = poll(&pfd, 1, 100);
        if (rc > 0 || (rc < 0 && errno != EINTR)) break;
    }
    memset(si, 0, sizeof(*si));
    return waitid((idtype_t)P_PIDFD, (id_t)pidfd, si, flags | WNOHANG);
}

/* ---- helpers ---------------------------------------------------------- */

static void on_handle_closed(uv_handle_t *h)
{
    struct proc *p = h->data;
    /* Freed once its handles are closed and its owner let go. */
    if (--p->handles == 0 && p->detached) free(p);
}

void proc_close_handle(struct proc *p, uv_handle_t *h)
{
    if (!uv_is_closing(h)) uv_close(h, on_handle_closed);
    (void)p;
}

static void on_out_event(uv_poll_t *h, int status, int events);
static void on_err_event(uv_poll_t *h, int status, int events);
static void on_in_event(uv_poll_t *h, int status, int events);
static void maybe_release(struct proc *p);

void proc_close_output(struct proc *p, enum proc_stream s)
{
    int *fd = s == PROC_STDOUT ? &p->fd_out : &p->fd_err;
    uv_poll_t *poll = s == PROC_STDOUT ? &p->poll_out : &p->poll_err;
    bool *has = s == PROC_STDOUT ? &p->has_poll_out : &p->has_poll_err;
    if (*fd < 0) return;
    if (*has) {
        uv_poll_stop(poll);
        proc_close_handle(p, (uv_handle_t *)poll);
        *has = false;
    }
    close(*fd);
    if (p->pty && s == PROC_STDOUT) {
        /* The master is gone, and with it the terminal's input side. */
        p->fd_in = -1;
        p->stdin_closed = true;
        proc_fail_stdin_queue(p, EPIPE);
    }
    *fd = -1;
}

/* ---- output ----------------------------------------------------------- */

/* A child that filled its default pipe (64 KiB) streams: a larger pipe lets
 * it run ahead further and halves the wake-ups on both sides. Only such
 * pipes grow, so thousands of quiet children stay within the per-user pipe
 * budget; failure (that budget) leaves the pipe as it was. */
#define PIPE_FULL_DEFAULT 65536
#define PIPE_STREAMING (1024 * 1024)

static void maybe_grow_pipe(struct proc *p, enum proc_stream s, int fd, size_t n)
{
    bool *grown = s == PROC_STDOUT ? &p->grown_out : &p->grown_err;
    if (*grown || p->pty || n < PIPE_FULL_DEFAULT) return;
    *grown = true;
    (void)fcntl(fd, F_SETPIPE_SZ, PIPE_STREAMING);
}

#define READ_IOV 64

static void read_output(struct proc *p, enum proc_stream s)
{
    int *fd = s == PROC_STDOUT ? &p->fd_out : &p->fd_err;
    /* Bounded per wake-up so one busy child cannot starve the others. */
    for (int i = 0; i < 16 && *fd >= 0 && !p->paused; i++) {
        struct iovec iov[READ_IOV];
        size_t k = !p->detached && p->cb->read_space
                       ? p->cb->read_space(p, s, iov, READ_IOV, p->m->read_size, p->user)
                       : 0;
        size_t want = k ? 0 : p->m->read_size;
        for (size_t j = 0; j < k; j++)
            want += iov[j].iov_len;
        ssize_t n = k ? readv(*fd, iov, (int)k) : read(*fd, p->m->readbuf, p->m->read_size);
        if (n > 0) {
            maybe_grow_pipe(p, s, *fd, (size_t)n);
            if (k)
                p->cb->output_read(p, s, (size_t)n, p->user);
            else if (!p->detached && p->cb->output)
                p->cb->output(p, s, p->m->readbuf, (size_t)n, p->user);
            if ((size_t)n < want && !p->pty) break;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (p->pty && !p->exited && n < 0 && errno == EIO) {
            /* The slave side is closed but the process may still be in its
             * exit: closing the master now would hang the terminal up and
             * SIGHUP it. Stop reading; the exit closes the master. */
            p->pty_hup = true;
            break;
        }
        /* 0 = every writer closed; EIO = the PTY's slave side is gone. */
        proc_close_output(p, s);
        proc_maybe_finish(p);
        return;
    }
    proc_update_polls(p);
}

/* ---- polling ------------------------------------------------------------ */

/* Changes what a poll watches. Unchanged events cost nothing: libuv's
 * uv_poll_start re-registers the descriptor (two epoll_ctl calls) even when
 * the events are the same, and this runs after every read. */
static void set_poll(struct proc *p, uv_poll_t *h, bool *has, int *cur, int fd, int events,
                     uv_poll_cb cb)
{
    if (fd < 0) return;
    if (!*has) {
        if (!events) return;
        if (uv_poll_init(p->m->loop, h, fd) != 0) return;
        h->data = p;
        p->handles++;
        *has = true;
        *cur = 0;
    }
    if (*cur == events) return;
    *cur = events;
    if (events)
        uv_poll_start(h, events, cb);
    else
        uv_poll_stop(h);
}

void proc_update_polls(struct proc *p)
{
    if (p->released) return;
    int rd = p->paused || p->pty_hup ? 0 : UV_READABLE;
    int out_ev = rd | (p->pty && p->wq_head ? UV_WRITABLE : 0);
    set_poll(p, &p->poll_out, &p->has_poll_out, &p->ev_out, p->fd_out, out_ev, on_out_event);
    set_poll(p, &p->poll_err, &p->has_poll_err, &p->ev_err, p->fd_err, rd, on_err_event);
    if (!p->pty)
        set_poll(p, &p->poll_in, &p->has_poll_in, &p->ev_in, p->fd_in, p->wq_head ? UV_WRITABLE : 0,
                 on_in_event);
}

static void on_out_event(uv_poll_t *h, int status, int events)
{
    struct proc *p = h->data;
    if (status < 0) {
        proc_close_output(p, PROC_STDOUT);
        proc_maybe_finish(p);
        return;
    }
    if (events & UV_WRITABLE) proc_flush_stdin(p);
    if ((events & UV_READABLE) && p->fd_out >= 0) read_output(p, PROC_STDOUT);
}

static void on_err_event(uv_poll_t *h, int status, int events)
{
    struct proc *p = h->data;
    (void)events;
    if (status < 0) {
        proc_close_output(p, PROC_STDERR);
        proc_maybe_finish(p);
        return;
    }
    read_output(p, PROC_STDERR);
}

static void on_in_event(uv_poll_t *h, int status, int events)
{
    struct proc *p = h->data;
    (void)events;
    if (status < 0) {
        p->stdin_closed = true;
        proc_close_stdin_fd(p);
        proc_fail_stdin_queue(p, EPIPE);
        return;
    }
    proc_flush_stdin(p);
}

/* ---- exit, drain, finish ------------------------------------------------ */

static void finish(struct proc *p)
{
    if (p->finished) return;
    p->finished = true;
    uv_timer_stop(&p->drain_timer);
    proc_close_output(p, PROC_STDOUT);
    proc_close_output(p, PROC_STDERR);
    p->stdin_closed = true;
    proc_close_stdin_fd(p);
    proc_fail_stdin_queue(p, EPIPE);
    if (!p->detached && p->cb->finished)
        p->cb->finished(p, p->exit_code, p->user);
    else
        maybe_release(p);
}

void proc_maybe_finish(struct proc *p)
{
    if (p->exited && p->fd_out < 0 && p->fd_err < 0) finish(p);
}

static void on_drain_timeout(uv_timer_t *t)
{
    struct proc *p = t->data;
    /* Output held back by a slow reader is not a descendant's open pipe:
     * keep waiting while the owner has reading paused. */
    if (p->paused && !p->detached) {
        uv_timer_start(&p->drain_timer, on_drain_timeout, p->m->drain_ms, 0);
        return;
    }
    proc_close_output(p, PROC_STDOUT);
    proc_close_output(p, PROC_STDERR);
    proc_maybe_finish(p);
}

static void on_pidfd(uv_poll_t *h, int status, int events)
{
    struct proc *p = h->data;
    (void)events;
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    int rc = waitid((idtype_t)P_PIDFD, (id_t)p->pidfd, &si, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && si.si_pid == 0 && status == 0) return; /* not exited yet */
    uv_poll_stop(h);
    p->exited = true;
    if (rc == 0 && si.si_pid != 0 && si.si_code == CLD_EXITED)
        p->exit_code = si.si_status & 0xff;
    else if (rc == 0 && si.si_pid != 0)
        p->exit_code = proc_behaviour->signal_exit_code(si.si_status);
    else
        p->exit_code = -1;
    if (p->pty_hup) proc_close_output(p, PROC_STDOUT);
    if (p->fd_out < 0 && p->fd_err < 0)
        finish(p);
    else
        uv_timer_start(&p->drain_timer, on_drain_timeout, p->m->drain_ms, 0);
}

/* ---- signals ------------------------------------------------------------ */

int proc_signal_leader(struct proc *p, int sig)
{
    if (p->released) return -ESRCH;
    return pidfd_send_signal(p->pidfd, sig, NULL, 0) == 0 ? 0 : -errno;
}

int proc_signal_group(struct proc *p, int sig)
{
    return proc_behaviour->signal_group(p, sig, p->m->shutting_down);
}

int proc_signal_group_real(struct proc *p, int sig, bool shutting_down)
{
    (void)shutting_down; /* the real daemon signals the group alike */
    if (p->released) return -ESRCH;
    if (!p->own_group && !p->pty) return proc_signal_leader(p, sig);
    /* The leader is not reaped before release, so its pgid is still ours. */
    return kill(-p->pid, sig) == 0 ? 0 : -errno;
}

static void on_kill_timeout(uv_timer_t *t)
{
    struct proc *p = t->data;
    p->kill_pending = false;
    proc_signal_group(p, SIGKILL);
    maybe_release(p);
}

void proc_terminate(struct proc *p, uint64_t grace_ms)
{
    if (p->released) return;
    p->group_ended = true; /* the end-of-stream policy has nothing left to do */
    if (grace_ms == 0) {
        proc_signal_group(p, SIGKILL);
        return;
    }
    proc_signal_group(p, SIGTERM);
    if (!p->kill_pending) {
        p->kill_pending = true;
        uv_timer_start(&p->kill_timer, on_kill_timeout, grace_ms, 0);
    }
}

/* ---- ownership ------------------------------------------------------------ */

void proc_pause_output(struct proc *p, bool paused)
{
    if (p->paused == paused) return;
    p->paused = paused;
    proc_update_polls(p);
}

int proc_resize(struct proc *p, uint16_t cols, uint16_t rows)
{
    if (!p->pty) return -ENOTTY;
    if (p->fd_out < 0) return -EIO;
    struct winsize ws = {.ws_row = rows, .ws_col = cols};
    return ioctl(p->fd_out, TIOCSWINSZ, &ws) == 0 ? 0 : -errno;
}

int proc_get_size(struct proc *p, uint16_t *cols, uint16_t *rows)
{
    if (!p->pty) return -ENOTTY;
    if (p->fd_out < 0) return -EIO;
    struct winsize ws;
    if (ioctl(p->fd_out, TIOCGWINSZ, &ws) != 0) return -errno;
    *cols = ws.ws_col;
    *rows = ws.ws_row;
    return 0;
}

static void unlink_live(struct proc *p)
{
    struct proc_manager *m = p->m;
    if (p->prev)
        p->prev->next = p->next;
    else
        m->live = p->next;
    if (p->next) p->next->prev = p->prev;
    p->prev = p->next = NULL;
    m->nlive--;
    if (m->nlive == 0 && m->on_empty) m->on_empty(m->on_empty_user);
}

static void release_now(struct proc *p)
{
    proc_unregister(p);
    intmap_del(&p->m->by_pid, p->pid);
    /* Reap the zombie leader: only now may its PID and pgid be reused. */
    if (p->pidfd >= 0) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (waitid((idtype_t)P_PIDFD, (id_t)p->pidfd, &si, WEXITED | WNOHANG) != 0 ||
            si.si_pid == 0) {
            /* Still running (manager close): end it, then wait. */
            proc_signal_group(p, SIGKILL);
            proc_pidfd_wait(p->pidfd, &si, WEXITED);
        }
        close(p->pidfd);
        p->pidfd = -1;
    }
    p->released = true;
    proc_close_output(p, PROC_STDOUT);
    proc_close_output(p, PROC_STDERR);
    proc_close_stdin_fd(p);
    uv_poll_stop(&p->poll_pid);
    proc_close_handle(p, (uv_handle_t *)&p->poll_pid);
    uv_timer_stop(&p->drain_timer);
    uv_timer_stop(&p->kill_timer);
    proc_close_handle(p, (uv_handle_t *)&p->drain_timer);
    proc_close_handle(p, (uv_handle_t *)&p->kill_timer);
    unlink_live(p);
}

static void maybe_release(struct proc *p)
{
    if (p->released || !p->finished || !p->detached || p->kill_pending) return;
    if (!p->group_ended) {
        p->group_ended = true;
        /* The zombie leader is kept through the grace, so the SIGKILL
         * cannot reach a recycled process group. */
        if (p->m->end_group_grace_ms && proc_group_has_survivors(p)) {
            proc_terminate(p, p->m->end_group_grace_ms);
            if (p->kill_pending) return;
        }
    }
    release_now(p);
}

void proc_detach(struct proc *p)
{
    if (p->detached) return;
    p->detached = true;
    if (p->released) { /* the manager closed first */
        if (p->handles == 0) free(p);
        return;
    }
    /* Nobody reads any more: drain and discard so the child never blocks. */
    proc_pause_output(p, false);
    maybe_release(p);
}

void proc_release(struct proc *p)
{
    proc_detach(p);
}

/* ---- spawning ------------------------------------------------------------- */

int proc_spawn(struct proc_manager *m, const struct spawn_opts *opts,
               const struct proc_callbacks *cb, void *user, struct proc **out)
{
    struct proc *p = calloc(1, sizeof(*p));
    if (!p) return ENOMEM;
    struct spawn_result r;
    int e = spawn_process(opts, &r);
    if (e) {
        free(p);
        return e;
    }
    p->m = m;
    p->cb = cb;
    p->user = user;
    p->pid = r.pid;
    p->pidfd = r.pidfd;
    p->pty = opts->pty;
    p->own_group = opts->own_group;
    p->fd_in = r.stdin_fd;
    p->fd_out = r.stdout_fd;
    p->fd_err = r.stderr_fd;
    /* The caller's intent for stdin is "none" when it is /dev/null. */
    if (!opts->pty && opts->stdin_mode == SPAWN_STDIN_NULL) p->stdin_closed = true;

    if (intmap_put(&m->by_pid, p->pid, p) < 0) {
        /* Without the PID index the orphan reaper could steal the child. */
        pidfd_send_signal(r.pidfd, SIGKILL, NULL, 0);
        siginfo_t si;
        proc_pidfd_wait(r.pidfd, &si, WEXITED);
        spawn_result_close(&r);
        free(p);
        return ENOMEM;
    }
    uv_poll_init(m->loop, &p->poll_pid, p->pidfd);
    uv_timer_init(m->loop, &p->drain_timer);
    uv_timer_init(m->loop, &p->kill_timer);
    p->poll_pid.data = p->drain_timer.data = p->kill_timer.data = p;
    p->handles = 3;
    uv_poll_start(&p->poll_pid, UV_READABLE, on_pidfd);
    p->next = m->live;
    if (m->live) m->live->prev = p;
    m->live = p;
    m->nlive++;
    proc_update_polls(p);
    *out = p;
    return 0;
}

/* ---- manager ------------------------------------------------------------- */

struct proc_manager *proc_manager_new(uv_loop_t *loop, const struct proc_manager_opts *opts)
{
    struct proc_manager *m = calloc(1, sizeof(*m));
    if (!m) return NULL;
    struct proc_manager_opts o = opts ? *opts : (struct proc_manager_opts){0};
    proc_behaviour->manager_options(&o);
    m->loop = loop;
    m->read_size = o.read_size ? o.read_size : 64 * 1024;
    m->drain_ms = o.drain_ms ? o.drain_ms : 5000;
    m->stdin_limit = o.stdin_limit ? o.stdin_limit : 8u << 20;
    m->next_id = 1;
    m->end_group_grace_ms = o.end_group_grace_ms;
    intmap_init(&m->by_id);
    intmap_init(&m->by_pid);
    m->readbuf = malloc(m->read_size);
    if (!m->readbuf) {
        free(m);
        return NULL;
    }
    return m;
}

size_t proc_manager_live(const struct proc_manager *m)
{
    return m->nlive;
}

void proc_manager_on_empty(struct proc_manager *m, void (*fn)(void *user), void *user)
{
    m->on_empty = fn;
    m->on_empty_user = user;
}

void proc_manager_terminate_all(struct proc_manager *m, uint64_t grace_ms)
{
    m->shutting_down = true;
    for (struct proc *p = m->live; p; p = p->next)
        proc_terminate(p, grace_ms);
}

void proc_manager_signal_all(struct proc_manager *m, int sig)
{
    m->shutting_down = true;
    for (struct proc *p = m->live; p; p = p->next)
        proc_signal_group(p, sig);
}

static void free_manager(uv_handle_t *h)
{
    free(h->data);
}

void proc_manager_abandon(struct proc_manager *m)
{
    for (struct proc *p = m->live; p; p = p->next) {
        uv_poll_stop(&p->poll_pid);
        if (p->pidfd >= 0) close(p->pidfd);
        p->pidfd = -1; /* release_now then neither waits nor signals */
    }
    proc_manager_close(m);
}

void proc_manager_close(struct proc_manager *m)
{
    m->on_empty = NULL;
    /* Records still owned by a call stay allocated until it lets go. */
    while (m->live) {
        struct proc *p = m->live;
        p->finished = true;
        p->kill_pending = false;
        proc_fail_stdin_queue(p, EPIPE);
        release_now(p);
    }
    intmap_free(&m->by_id);
    intmap_free(&m->by_pid);
    free(m->readbuf);
    m->readbuf = NULL;
    if (m->adopting) {
        uv_signal_stop(&m->sigchld);
        uv_close((uv_handle_t *)&m->sigchld, free_manager);
    } else {
        free(m);
    }
}
