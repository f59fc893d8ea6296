/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_SHUTDOWN_BEHAVIOUR_H
#define SBX_SHUTDOWN_BEHAVIOUR_H
/* The decisions of the shutdown sequence (shutdown.c) that another build
 * of the daemon may wrap: the 503 window, how the managed processes are
 * ended. Chosen at link time like fs_behaviour (fs/fs_behaviour.h):
 * sandboxd-ref links shutdown_behaviour_real.c, sandboxd-ref-faulty its
 * wrappers from reference-daemon/faults/. Constant while the daemon runs;
 * called on the loop's thread only. */
#include <stdint.h>

#include "daemon_state.h"
#include "process/proc.h"
#include "shutdown.h"

struct shutdown_behaviour {
    /* The shutdown's first step: health answers 503 from now on (M2). */
    void (*mark_shutting_down)(struct daemon_state *st);
    /* Ends the managed processes (L1): SIGTERM to every group now, SIGKILL
     * to stragglers after sd->grace_ms, the server closed once none is
     * left (shutdown_close_when_idle). */
    void (*stop_processes)(struct daemon_shutdown *sd);
    /* The timeout is reached: kills what is left. */
    void (*kill_left)(struct proc_manager *pm);
    /* Everything is over: kills what is left (L4: nothing the daemon
     * started survives it) and releases the manager. */
    void (*release_processes)(struct proc_manager *pm);
};

void shutdown_mark_real(struct daemon_state *st);
void shutdown_stop_processes_real(struct daemon_shutdown *sd);
void shutdown_kill_left_real(struct proc_manager *pm);
void shutdown_release_processes_real(struct proc_manager *pm);

extern const struct shutdown_behaviour shutdown_real;
extern const struct shutdown_behaviour *const shutdown_behaviour;

#endif
