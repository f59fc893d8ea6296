/* SPDX-License-Identifier: Apache-2.0 */
/* The shutdown faults of sandboxd-ref-faulty (shutdown-*): wrappers around
 * the shutdown sequence's real decisions (shutdown_behaviour.h), linked
 * instead of shutdown_behaviour_real.c. Each acts while its fault is on and
 * otherwise calls shutdown_real. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "fault.h"
#include "grpc_service/service_internal.h"
#include "shutdown_behaviour.h"

/* Processes are left running at the daemon's exit. */
static bool spares_processes(void)
{
    return fault_active(FAULT_SHUTDOWN_NO_KILL) || fault_active(FAULT_SHUTDOWN_NO_SIGKILL);
}

static void mark_shutting_down(struct daemon_state *st)
{
    if (!fault_active(FAULT_SHUTDOWN_NO_503)) shutdown_real.mark_shutting_down(st);
}

/* shutdown-term-leader-only: a signal to the daemon's direct children, the
 * group leaders, and not to their groups. */
static void signal_leaders_only(int sig)
{
    DIR *tasks = opendir("/proc/self/task");
    for (struct dirent *e = tasks ? readdir(tasks) : NULL; e; e = readdir(tasks)) {
        char path[300], list[4096];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(list, 1, sizeof list - 1, f) : 0;
        if (f) fclose(f);
        list[n] = '\0';
        char *end;
        for (char *p = list;; p = end) {
            long pid = strtol(p, &end, 10);
            if (end == p) break;
            if (pid > 1) kill((pid_t)pid, sig);
        }
    }
    if (tasks) closedir(tasks);
}

static void on_grace_kill_all(uv_timer_t *t)
{
    struct daemon_shutdown *sd = t->data;
    proc_manager_signal_all(sd->pm, SIGKILL);
}

/* shutdown-no-sigkill: the daemon closes after the grace without SIGKILL. */
static void on_grace_close(uv_timer_t *t)
{
    shutdown_close_server(t->data);
}

/* The shutdown's process stage, its first step after the deadline was
 * armed. shutdown-kill-at-once: a grace of 0, so SIGKILL without SIGTERM.
 * shutdown-timeout-ignored: the default 10 s bounds the shutdown, whatever
 * --shutdown-timeout said (the deadline re-armed from the same start).
 * shutdown-accepts-new: the service, which the shutdown closed to new
 * Starts and Executes just before, is opened again. */
static void stop_processes(struct daemon_shutdown *sd)
{
    if (fault_active(FAULT_SHUTDOWN_KILL_AT_ONCE)) sd->grace_ms = 0;
    if (fault_active(FAULT_SHUTDOWN_TIMEOUT_IGNORED)) {
        sd->timeout_ms = 10000;
        shutdown_arm_deadline(sd);
    }
    if (fault_active(FAULT_SHUTDOWN_ACCEPTS_NEW)) sd->svc->refusing = false;
    if (fault_active(FAULT_SHUTDOWN_NO_EXIT_EVENT)) {
        /* Streams cut at once: no process gets to report its exit. */
        shutdown_cut_streams(sd);
        proc_manager_terminate_all(sd->pm, sd->grace_ms);
    } else if (fault_active(FAULT_SHUTDOWN_NO_KILL)) {
        shutdown_close_server(sd);
    } else if (fault_active(FAULT_SHUTDOWN_NO_SIGKILL)) {
        proc_manager_signal_all(sd->pm, SIGTERM);
        uv_timer_start(&sd->grace, on_grace_close, sd->grace_ms, 0);
    } else if (fault_active(FAULT_SHUTDOWN_TERM_LEADER_ONLY)) {
        signal_leaders_only(SIGTERM);
        uv_timer_start(&sd->grace, on_grace_kill_all, sd->grace_ms, 0);
        shutdown_close_when_idle(sd);
    } else {
        shutdown_real.stop_processes(sd);
    }
}

static void kill_left(struct proc_manager *pm)
{
    if (!spares_processes()) shutdown_real.kill_left(pm);
}

static void release_processes(struct proc_manager *pm)
{
    if (spares_processes())
        proc_manager_abandon(pm);
    else
        shutdown_real.release_processes(pm);
}

static const struct shutdown_behaviour shutdown_faulty = {
    .mark_shutting_down = mark_shutting_down,
    .stop_processes = stop_processes,
    .kill_left = kill_left,
    .release_processes = release_processes,
};

const struct shutdown_behaviour *const shutdown_behaviour = &shutdown_faulty;
