/* SPDX-License-Identifier: Apache-2.0 */
/* The shutdown sequence (see shutdown.h); its decisions are
 * shutdown_behaviour's (shutdown_behaviour.h). */
#include "shutdown.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "daemon_config.h"
#include "shutdown_behaviour.h"

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
    sd->grace_ms = SHUTDOWN_GRACE_MS;
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
    shutdown_behaviour->release_processes(sd->pm);
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

void shutdown_close_server(struct daemon_shutdown *sd)
{
    if (sd->server_closing) return;
    sd->server_closing = true;
    uint64_t left = time_left(sd);
    sbx_grpc_server_shutdown(sd->grpc, left > 1 ? (unsigned)left : 1, on_server_closed, sd);
}

void shutdown_cut_streams(struct daemon_shutdown *sd)
{
    sd->server_closing = true;
    sbx_grpc_server_close(sd->grpc, on_server_closed, sd);
}

static void on_no_process_left(void *user)
{
    shutdown_close_server(user);
}

void shutdown_close_when_idle(struct daemon_shutdown *sd)
{
    proc_manager_on_empty(sd->pm, on_no_process_left, sd);
    if (proc_manager_live(sd->pm) == 0) shutdown_close_server(sd);
}

static void on_deadline(uv_timer_t *t)
{
    struct daemon_shutdown *sd = t->data;
    fprintf(stderr, "sandboxd-ref: shutdown timeout reached, closing\n");
    shutdown_behaviour->kill_left(sd->pm);
    shutdown_cut_streams(sd);
}

void shutdown_arm_deadline(struct daemon_shutdown *sd)
{
    uv_timer_start(&sd->deadline, on_deadline, time_left(sd), 0);
}

void shutdown_begin(struct daemon_shutdown *sd)
{
    if (sd->begun) return;
    sd->begun = true;
    sd->started_ms = uv_now(sd->loop);
    /* First of all, so that health answers 503 from now on (M2). */
    shutdown_behaviour->mark_shutting_down(sd->st);
    process_service_refuse_new(sd->svc);
    shutdown_arm_deadline(sd);
    /* L1: SIGTERM to every group now, SIGKILL to stragglers after the
     * grace; then the server closes. */
    shutdown_behaviour->stop_processes(sd);
}
