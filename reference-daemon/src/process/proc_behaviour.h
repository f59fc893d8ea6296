#ifndef SBX_PROC_BEHAVIOUR_H
#define SBX_PROC_BEHAVIOUR_H
/* The decisions of the process manager that another build of the daemon
 * may wrap; proc.c calls through proc_behaviour, proc_real holds its own.
 * Chosen at link time like fs_behaviour (fs/fs_behaviour.h): the real
 * daemon links process/proc_behaviour_real.c, sandboxd-ref-faulty its
 * wrappers from reference-daemon/faults/. Constant while the daemon runs;
 * called on the loop's thread only. */
#include <stdbool.h>

#include "proc.h"

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
};

int proc_signal_group_real(struct proc *p, int sig, bool shutting_down);
void proc_kill_orphans_real(struct proc_manager *m);
int cwd_open_real(int root_fd, const char *root_abs, const char *cwd);

extern const struct proc_behaviour proc_real;
extern const struct proc_behaviour *const proc_behaviour;

#endif
