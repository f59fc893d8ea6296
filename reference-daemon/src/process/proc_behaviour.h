/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROC_BEHAVIOUR_H
#define SBX_PROC_BEHAVIOUR_H
/* The decisions of the process manager that another build of the daemon
 * may wrap; proc.c calls through proc_behaviour, proc_real holds its own.
 * Chosen at link time like fs_behaviour (fs/fs_behaviour.h): the real
 * daemon links process/proc_behaviour_real.c, sandboxd-ref-faulty its
 * wrappers from reference-daemon/faults/. Constant while the daemon runs;
 * called on the loop's thread only. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc.h"
#include "spawn.h"

struct proc_behaviour {
    /* Signals p's process group (or only the leader when the group was not
     * created); shutting_down once the daemon's shutdown began. Returns 0
     * or -errno. */
    int (*signal_group)(struct proc *p, int sig, bool shutting_down);
    /* At the daemon's exit, after every group was killed: kills and reaps
     * the orphans the daemon adopted as subreaper. */
    void (*kill_orphans)(struct proc_manager *m);
    /* Opens a process's working directory cwd ("" for the root) beneath
     * root_fd, whose absolute path is root_abs (cwd_open). */
    int (*open_cwd)(int root_fd, const char *root_abs, const char *cwd);

    /* The manager (proc.c). */
    /* Completes the manager's options before proc_manager_new uses them. */
    void (*manager_options)(struct proc_manager_opts *o);
    /* A fresh process id for proc_register: not 0, -1 or INT32_MIN, and
     * not registered (proc_id_in_use). */
    int32_t (*allocate_id)(struct proc_manager *m);
    /* The exit_code reported for a death by signal signo. */
    int (*signal_exit_code)(int signo);

    /* Spawning (spawn.c). */
    /* Whether a PTY gets its window size when it is opened, before the
     * child runs. */
    bool (*pty_sized_at_open)(void);
    /* Whether the child puts itself in its own process group before its
     * exec (o->own_group). */
    bool (*group_set_by_child)(void);
    /* The child of o has exec'd and its parent runs again: a setting made
     * here races the program's first instructions. pty_master is -1
     * without a PTY. */
    void (*child_execed)(const struct spawn_opts *o, pid_t pid, int pty_master);
    /* A spawn of o failed: before the descriptors left in res are closed. */
    void (*spawn_failed)(const struct spawn_opts *o, struct spawn_result *res);
};

int proc_signal_group_real(struct proc *p, int sig, bool shutting_down);
void proc_kill_orphans_real(struct proc_manager *m);
int cwd_open_real(int root_fd, const char *root_abs, const char *cwd);
int32_t proc_allocate_id_real(struct proc_manager *m);
/* Whether id is registered in m. */
bool proc_id_in_use(struct proc_manager *m, int32_t id);

extern const struct proc_behaviour proc_real;
extern const struct proc_behaviour *const proc_behaviour;

#endif
