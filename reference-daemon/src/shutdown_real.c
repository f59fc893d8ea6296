/* SPDX-License-Identifier: Apache-2.0 */
/* shutdown_real: the shutdown sequence's own decisions (see
 * shutdown_behaviour.h). */
#include "shutdown_behaviour.h"

void shutdown_mark_real(struct daemon_state *st)
{
    atomic_store(&st->shutting_down, true);
}

void shutdown_stop_processes_real(struct daemon_shutdown *sd)
{
    /* Start streams end with their ExitEvent as the processes finish. */
    proc_manager_terminate_all(sd->pm, sd->grace_ms);
    shutdown_close_when_idle(sd);
}

void shutdown_kill_left_real(struct proc_manager *pm)
{
    proc_manager_kill_all(pm);
}

void shutdown_release_processes_real(struct proc_manager *pm)
{
    proc_manager_kill_all(pm);
    proc_manager_close(pm);
}

const struct shutdown_behaviour shutdown_real = {
    .mark_shutting_down = shutdown_mark_real,
    .stop_processes = shutdown_stop_processes_real,
    .kill_left = shutdown_kill_left_real,
    .release_processes = shutdown_release_processes_real,
};
