/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROCESS_PROC_H
#define SBX_PROCESS_PROC_H
/* Managed child processes on a libuv loop: output read as it is produced
 * (with pause/resume for back-pressure), exit noticed through the pidfd,
 * "finished" reported only once the process exited and its output pipes are
 * drained (bounded drain when a descendant keeps them open), stdin writes,
 * process-group signals, PTY resizing, and a registry of positive int32
 * process ids that are decoupled from OS PIDs.
 *
 * The leader stays an unreaped zombie until its record is released, so its
 * process group id cannot be recycled while the daemon may still signal it.
 * Everything runs on the loop's thread. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <uv.h>

#include "spawn.h"

struct proc;
struct proc_manager;

enum proc_stream { PROC_STDOUT = 1, PROC_STDERR = 2 };

struct proc_callbacks {
    /* Output as read from the child (at most the manager's read size per
     * call). May call any proc_* function, including proc_pause_output. */
    void (*output)(struct proc *p, enum proc_stream s, const uint8_t *data, size_t len, void *user);
    /* Exactly once: the process exited and its output is drained. exit_code
     * is 0..255, or -1 for a death by signal. The owner then calls
     * proc_release (from here or later). */
    void (*finished)(struct proc *p, int exit_code, void *user);
    /* Optional, for an owner that keeps output in its own buffers (no copy
     * through the manager's): up to max_iov buffers, at most want bytes in
     * all, for the next read; 0 = read into the manager's buffer and call
     * output. When the read returns data, output_read follows with its
     * length (the buffers filled in order); otherwise the space is unused. */
    size_t (*read_space)(struct proc *p, enum proc_stream s, struct iovec *iov, size_t max_iov,
                         size_t want, void *user);
    void (*output_read)(struct proc *p, enum proc_stream s, size_t len, void *user);
};

struct proc_manager_opts {
    size_t read_size;   /* bytes per read(2) of an output pipe; 0 = 64 KiB */
    uint64_t drain_ms;  /* wait for output after exit; 0 = 5000 */
    size_t stdin_limit; /* bytes queued for one process's stdin; 0 = 8 MiB */
    /* The group outlives its leader: once a finished record is released,
     * descendants still in the leader's process group get SIGTERM, and
     * SIGKILL this long after (as a terminal hang-up ends a session).
     * 0 = they are left running (until the daemon's exit). */
    uint64_t end_group_grace_ms;
};

struct proc_manager *proc_manager_new(uv_loop_t *loop, const struct proc_manager_opts *opts);

/* Becomes the child subreaper (orphaned descendants are re-parented to the
 * daemon) and reaps such orphans on SIGCHLD. Returns 0 or -errno. */
int proc_manager_adopt_orphans(struct proc_manager *m);

/* Starts a process. Returns 0 with *out set, or a positive errno (see
 * spawn_process). Callbacks start on the next loop iteration. */
int proc_spawn(struct proc_manager *m, const struct spawn_opts *opts,
               const struct proc_callbacks *cb, void *user, struct proc **out);

/* Registers p under a fresh process id (never 0 or -1; positive in the
 * real daemon) and returns it, or -1 when out of memory. proc_lookup finds
 * it until proc_unregister or release. */
int32_t proc_register(struct proc *p);
/* Registers p under a given id (> 0). Returns 0 or -1. */
int proc_register_as(struct proc *p, int32_t id);
void proc_unregister(struct proc *p);
struct proc *proc_lookup(struct proc_manager *m, int32_t id);

int32_t proc_id(const struct proc *p); /* 0 when not registered */
pid_t proc_pid(const struct proc *p);
bool proc_has_pty(const struct proc *p);
bool proc_has_exited(const struct proc *p);

/* Stops or resumes reading the child's output (the child then blocks on a
 * full pipe). */
void proc_pause_output(struct proc *p, bool paused);

/* Signals the process group (or only the leader when the group was not
 * created). Returns 0 or -errno; a process that exited is still a valid
 * target while its record lives. */
int proc_signal_group(struct proc *p, int sig);
int proc_signal_leader(struct proc *p, int sig);

/* SIGTERM to the group, then SIGKILL to the group after grace_ms (0 = at
 * once). The record is kept until the SIGKILL went out. */
void proc_terminate(struct proc *p, uint64_t grace_ms);

typedef void (*proc_stdin_cb)(struct proc *p, int err, void *user);

/* Queues bytes for the child's stdin. Returns 1 if written at once (cb is not
 * called), 0 if queued (cb runs later with 0 or a positive errno), or
 * -errno: -EPIPE when stdin is closed, -ENOBUFS beyond the queue bound. */
int proc_write_stdin(struct proc *p, const void *data, size_t len, proc_stdin_cb cb, void *user);

/* End of input after the queued bytes: closes the pipe, or on a PTY sends
 * the terminal's EOF character (twice when the line is not empty, so the
 * reader sees end-of-file); with hang_up the PTY master is closed instead
 * (the terminal hangs up). Same results as proc_write_stdin. */
int proc_close_stdin(struct proc *p, bool hang_up, proc_stdin_cb cb, void *user);

/* Sets the PTY window size (the foreground group gets SIGWINCH). Returns 0,
 * -ENOTTY without a PTY, or -errno. */
int proc_resize(struct proc *p, uint16_t cols, uint16_t rows);
/* Reads the PTY window size back (tests). */
int proc_get_size(struct proc *p, uint16_t *cols, uint16_t *rows);

/* The owner is gone: no more callbacks. The process keeps running (pair it
 * with proc_terminate) and its record is released once it finished. */
void proc_detach(struct proc *p);

/* The owner is done with a finished process: reaps it and frees the record
 * (after ending the rest of its group, see end_group_grace_ms). May be
 * called before finished (then it acts as proc_detach). */
void proc_release(struct proc *p);

/* Records not yet released (running, draining or awaiting SIGKILL). */
size_t proc_manager_live(const struct proc_manager *m);

/* Calls fn when the number of live records drops to zero (shutdown). */
void proc_manager_on_empty(struct proc_manager *m, void (*fn)(void *user), void *user);

/* proc_terminate on every live record. */
void proc_manager_terminate_all(struct proc_manager *m, uint64_t grace_ms);

/* Sends sig to every live group, with no escalation. */
void proc_manager_signal_all(struct proc_manager *m, int sig);

/* Final clean-up at exit: SIGKILL to every live group and every remaining
 * child of the daemon (orphans included), then reaps them. Blocking. */
void proc_manager_kill_all(struct proc_manager *m);

/* Closes the manager's handles; on the loop's next turns the remaining
 * records are freed. Call after proc_manager_kill_all, then run the loop
 * until it has no more handles. */
void proc_manager_close(struct proc_manager *m);

/* Frees the manager leaving its processes running (a daemon that lets
 * them outlive it). */
void proc_manager_abandon(struct proc_manager *m);

#endif
