/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROCESS_PROC_INTERNAL_H
#define SBX_PROCESS_PROC_INTERNAL_H
/* The process manager's records, shared by its files: proc.c (life cycle,
 * output, polling, exit, signals, the manager), proc_stdin.c (stdin
 * queue), proc_registry.c (process ids) and proc_children.c (the daemon's
 * children: orphans and group survivors). Loop thread only. */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "intmap.h"
#include "proc.h"

struct stdin_req {
    struct stdin_req *next;
    proc_stdin_cb cb;
    void *user;
    size_t len, off;
    bool close_after; /* pipe EOF: close the write end once reached */
    bool hang_up;     /* close the PTY master: the terminal hangs up */
    uint8_t data[];
};

struct proc {
    struct proc_manager *m;
    struct proc *prev, *next; /* the manager's list of live records */
    const struct proc_callbacks *cb;
    void *user;

    pid_t pid;
    int pidfd;
    int32_t id;
    bool pty, own_group;
    int fd_in, fd_out, fd_err; /* fd_in == fd_out on a PTY */

    uv_poll_t poll_pid, poll_out, poll_err, poll_in;
    bool has_poll_out, has_poll_err, has_poll_in;
    int ev_out, ev_err, ev_in; /* events each poll watches now */
    bool grown_out, grown_err; /* the output pipe was enlarged */
    uv_timer_t drain_timer, kill_timer;
    int handles; /* initialised handles not yet closed */

    bool exited, finished, detached, released, paused, kill_pending, stdin_closed;
    bool group_ended; /* the end-of-stream policy ran (end_group_grace_ms) */
    bool pty_hup;     /* the PTY master read EIO before the exit was seen */
    int exit_code;
    uint8_t last_input; /* last byte queued for a PTY, for EOF at line start */

    struct stdin_req *wq_head, *wq_tail;
    size_t wq_bytes;
};

struct proc_manager {
    uv_loop_t *loop;
    struct intmap by_id;  /* registered process ids */
    struct intmap by_pid; /* every unreleased child, for the orphan reaper */
    struct proc *live;
    size_t nlive;
    int32_t next_id;
    uint8_t *readbuf;
    size_t read_size;
    uint64_t drain_ms;
    size_t stdin_limit;
    uint64_t end_group_grace_ms;
    bool adopting;
    bool shutting_down; /* a *_all call of the shutdown has run */
    uv_signal_t sigchld;
    void (*on_empty)(void *);
    void *on_empty_user;
};

/* proc.c */
void proc_close_handle(struct proc *p, uv_handle_t *h);
/* Closes an output descriptor (on a PTY also the input side). */
void proc_close_output(struct proc *p, enum proc_stream s);
/* Changes what the record's polls watch to its state. */
void proc_update_polls(struct proc *p);
/* Finishes the record once it exited and its output is closed. */
void proc_maybe_finish(struct proc *p);
/* Waits (bounded) for the pidfd's process to exit: waitid's result. */
int proc_pidfd_wait(int pidfd, siginfo_t *si, int flags);

/* proc_stdin.c */
/* Fails every queued stdin write (the process is gone or stdin broke). */
void proc_fail_stdin_queue(struct proc *p, int err);
/* Closes the stdin pipe (a PTY's master stays: it is the output too). */
void proc_close_stdin_fd(struct proc *p);
/* Writes what is queued for stdin as far as the pipe takes it. */
void proc_flush_stdin(struct proc *p);

/* proc_children.c */
/* Whether descendants of p's leader remain in its process group. */
bool proc_group_has_survivors(struct proc *p);

#endif
