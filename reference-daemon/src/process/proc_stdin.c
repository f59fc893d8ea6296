/* SPDX-License-Identifier: Apache-2.0 */
/* A managed process's stdin: writes queued in order, within the manager's
 * bound, flushed as the pipe or PTY takes them (see proc.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "proc_internal.h"

static void complete_req(struct proc *p, struct stdin_req *r, int err)
{
    p->wq_bytes -= r->len;
    if (r->cb) r->cb(p, err, r->user);
    free(r);
}

/* Fails every queued stdin write (the process is gone or stdin broke). */
void proc_fail_stdin_queue(struct proc *p, int err)
{
    while (p->wq_head) {
        struct stdin_req *r = p->wq_head;
        p->wq_head = r->next;
        if (!p->wq_head) p->wq_tail = NULL;
        complete_req(p, r, err);
    }
}

/* On a PTY stdin is the master, which lives as long as the output side. */
void proc_close_stdin_fd(struct proc *p)
{
    if (p->pty || p->fd_in < 0) return;
    if (p->has_poll_in) {
        uv_poll_stop(&p->poll_in);
        proc_close_handle(p, (uv_handle_t *)&p->poll_in);
        p->has_poll_in = false;
    }
    close(p->fd_in);
    p->fd_in = -1;
}

/* ---- stdin ------------------------------------------------------------ */

void proc_flush_stdin(struct proc *p)
{
    while (p->wq_head) {
        struct stdin_req *r = p->wq_head;
        if (r->hang_up) {
            p->wq_head = r->next;
            if (!p->wq_head) p->wq_tail = NULL;
            complete_req(p, r, 0);
            proc_close_output(p, PROC_STDOUT);
            proc_maybe_finish(p);
            return;
        }
        if (p->fd_in < 0) {
            proc_fail_stdin_queue(p, EPIPE);
            break;
        }
        while (r->off < r->len) {
            ssize_t n = write(p->fd_in, r->data + r->off, r->len - r->off);
            if (n > 0) {
                r->off += (size_t)n;
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) {
                proc_update_polls(p);
                return;
            }
            int e = n < 0 ? errno : EIO;
            /* The reader is gone: no later write can succeed. */
            p->stdin_closed = true;
            proc_close_stdin_fd(p);
            proc_fail_stdin_queue(p, e);
            proc_update_polls(p);
            return;
        }
        p->wq_head = r->next;
        if (!p->wq_head) p->wq_tail = NULL;
        if (r->close_after) proc_close_stdin_fd(p);
        complete_req(p, r, 0);
    }
    proc_update_polls(p);
}

static struct stdin_req *new_req(const uint8_t *data, size_t len, bool close_after, bool hang_up,
                                 proc_stdin_cb cb, void *user)
{
    struct stdin_req *r = malloc(sizeof(*r) + len);
    if (!r) return NULL;
    r->next = NULL;
    r->cb = cb;
    r->user = user;
    r->len = len;
    r->off = 0;
    r->close_after = close_after;
    r->hang_up = hang_up;
    if (len) memcpy(r->data, data, len);
    return r;
}

static int enqueue(struct proc *p, const uint8_t *data, size_t len, bool close_after, bool hang_up,
                   proc_stdin_cb cb, void *user)
{
    if (p->stdin_closed || p->finished || p->released || p->fd_in < 0) return -EPIPE;
    if (len > p->m->stdin_limit || p->wq_bytes > p->m->stdin_limit - len) return -ENOBUFS;
    if (p->pty && len) p->last_input = data[len - 1];
    if (close_after || hang_up) p->stdin_closed = true;

    size_t off = 0;
    if (!p->wq_head) {
        /* Nothing queued: write at once and report completion directly. */
        if (hang_up) {
            proc_close_output(p, PROC_STDOUT);
            proc_maybe_finish(p);
            return 1;
        }
        while (off < len) {
            ssize_t n = write(p->fd_in, data + off, len - off);
            if (n > 0) {
                off += (size_t)n;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0 && errno == EAGAIN) {
                break; /* the rest is queued below */
            } else {
                int e = n < 0 ? errno : EIO;
                p->stdin_closed = true;
                proc_close_stdin_fd(p);
                return -e;
            }
        }
        if (off == len) {
            if (close_after) proc_close_stdin_fd(p);
            return 1;
        }
    }
    struct stdin_req *r = new_req(data, len, close_after, hang_up, cb, user);
    if (!r) return -ENOMEM;
    r->off = off;
    p->wq_bytes += len;
    if (p->wq_tail)
        p->wq_tail->next = r;
    else
        p->wq_head = r;
    p->wq_tail = r;
    proc_update_polls(p);
    return 0;
}

int proc_write_stdin(struct proc *p, const void *data, size_t len, proc_stdin_cb cb, void *user)
{
    return enqueue(p, (const uint8_t *)data, len, false, false, cb, user);
}

int proc_close_stdin(struct proc *p, bool hang_up, proc_stdin_cb cb, void *user)
{
    if (!p->pty) return enqueue(p, NULL, 0, true, false, cb, user);
    if (hang_up) return enqueue(p, NULL, 0, false, true, cb, user);
    /* End-of-file through the line discipline: VEOF at the start of a line;
     * mid-line the first VEOF only pushes the partial line to the reader. */
    uint8_t veof = 4;
    struct termios t;
    if (p->fd_in >= 0 && tcgetattr(p->fd_in, &t) == 0 && t.c_cc[VEOF] != _POSIX_VDISABLE)
        veof = t.c_cc[VEOF];
    uint8_t seq[2] = {veof, veof};
    bool line_start = p->last_input == 0 || p->last_input == '\n' || p->last_input == '\r';
    int rc = enqueue(p, seq, line_start ? 1 : 2, false, false, cb, user);
    if (rc >= 0) p->last_input = '\n';
    return rc;
}
