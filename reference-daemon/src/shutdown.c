/* The shutdown sequence (see shutdown.h). */
#include "shutdown.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

static void on_signal(uv_signal_t *h, int sig)
{
    struct daemon_shutdown *sd = h->data;
    if (!sd->begun) fprintf(stderr, "sandboxd-ref: %s received, shutting down\n", strsignal(sig));
    shutdown_begin(sd);
}

int shutdown_init(struct daemon_shutdown *sd, uv_loop_t *loop, struct daemon_state *st,
                  struct proc_manager *pm, struct sbx_grpc_server *grpc,
                  struct process_service *svc)
{
    *sd = (struct daemon_shutdown){.loop = loop, .st = st, .pm = pm, .grpc = grpc, .svc = svc};
    /* shutdown-kill-at-once (fault injection): SIGKILL without SIGTERM or grace. */
    sd->grace_ms = fault_active(FAULT_SHUTDOWN_KILL_AT_ONCE) ? 0 : SHUTDOWN_GRACE_MS;
    sd->timeout_ms = st->cfg->shutdown_timeout_ms;
    uv_signal_init(loop, &sd->sigterm);
    uv_signal_init(loop, &sd->sigint);
    uv_timer_init(loop, &sd->deadline);
    uv_timer_init(loop, &sd->grace);
    sd->sigterm.data = sd->sigint.data = sd->deadline.data = sd->grace.data = sd;
    int rc = uv_signal_start(&sd->sigterm, on_signal, SIGTERM);
    if (rc == 0) rc = uv_signal_start(&sd->sigint, on_signal, SIGINT);
    return rc;
}

/* Everything is over: release the loop's remaining handles. */
static void finish(struct daemon_shutdown *sd)
{
    if (sd->finished) return;
    sd->finished = true;
    uv_close((uv_handle_t *)&sd->sigterm, NULL);
    uv_close((uv_handle_t *)&sd->sigint, NULL);
    uv_close((uv_handle_t *)&sd->deadline, NULL);
    uv_close((uv_handle_t *)&sd->grace, NULL);
    if (fault_active(FAULT_SHUTDOWN_NO_KILL) || fault_active(FAULT_SHUTDOWN_NO_SIGKILL)) {
        proc_manager_abandon(sd->pm);
    } else {
        /* L4: nothing the daemon started survives it. */
        proc_manager_kill_all(sd->pm);
        proc_manager_close(sd->pm);
    }
    sd->pm = NULL;
}

static void on_server_closed(struct sbx_grpc_server *s, void *user)
{
    (void)s;
    finish(user);
}

static uint64_t time_left(struct daemon_shutdown *sd)
{
    uint64_t spent = uv_now(sd->loop) - sd->started_ms;
    return spent >= sd->timeout_ms ? 0 : sd->timeout_ms - spent;
}

/* Every process is gone (or abandoned): let the calls' last messages and
 * trailers go out, then close the server. */
static void close_server(struct daemon_shutdown *sd)
{
    if (sd->server_closing) return;
    sd->server_closing = true;
    uint64_t left = time_left(sd);
    sbx_grpc_server_shutdown(sd->grpc, left > 1 ? (unsigned)left : 1, on_server_closed, sd);
}

static void on_no_process_left(void *user)
{
    close_server(user);
}

static void on_grace_over(uv_timer_t *t)
{
    /* shutdown-no-sigkill (fault injection): exit without the SIGKILL. */
    close_server(t->data);
}

static void on_deadline(uv_timer_t *t)
{
    struct daemon_shutdown *sd = t->data;
    fprintf(stderr, "sandboxd-ref: shutdown timeout reached, closing\n");
    if (!fault_active(FAULT_SHUTDOWN_NO_KILL) && !fault_active(FAULT_SHUTDOWN_NO_SIGKILL))
        proc_manager_kill_all(sd->pm);
    sd->server_closing = true;
    sbx_grpc_server_close(sd->grpc, on_server_closed, sd);
}

/* Fault injection only (shutdown-term-leader-only): a signal to the
 * daemon's direct children, the group leaders, and not to their groups. */
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

void shutdown_begin(struct daemon_shutdown *sd)
{
    if (sd->begun) return;
    sd->begun = true;
    sd->started_ms = uv_now(sd->loop);
    /* First of all, so that health answers 503 from now on (M2). */
    if (!fault_active(FAULT_SHUTDOWN_NO_503)) atomic_store(&sd->st->shutting_down, true);
    process_service_refuse_new(sd->svc);
    uv_timer_start(&sd->deadline, on_deadline, sd->timeout_ms, 0);

    if (fault_active(FAULT_SHUTDOWN_NO_EXIT_EVENT)) {
        /* Streams cut at once: no process gets to report its exit. */
        sd->server_closing = true;
        sbx_grpc_server_close(sd->grpc, on_server_closed, sd);
        proc_manager_terminate_all(sd->pm, sd->grace_ms);
        return;
    }
    if (fault_active(FAULT_SHUTDOWN_NO_KILL)) {
        close_server(sd);
        return;
    }
    if (fault_active(FAULT_SHUTDOWN_NO_SIGKILL)) {
        proc_manager_signal_all(sd->pm, SIGTERM);
        uv_timer_start(&sd->grace, on_grace_over, sd->grace_ms, 0);
        return;
    }
    if (fault_active(FAULT_SHUTDOWN_TERM_LEADER_ONLY)) {
        signal_leaders_only(SIGTERM);
        uv_timer_start(&sd->grace, on_grace_kill_all, sd->grace_ms, 0);
        proc_manager_on_empty(sd->pm, on_no_process_left, sd);
        if (proc_manager_live(sd->pm) == 0) close_server(sd);
        return;
    }
    /* L1: SIGTERM to every group now, SIGKILL to stragglers after the
     * grace; Start streams end with their ExitEvent as processes finish. */
    proc_manager_terminate_all(sd->pm, sd->grace_ms);
    proc_manager_on_empty(sd->pm, on_no_process_left, sd);
    if (proc_manager_live(sd->pm) == 0) close_server(sd);
}
