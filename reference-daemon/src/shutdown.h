/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_SHUTDOWN_H
#define SBX_SHUTDOWN_H
/* Graceful shutdown on SIGTERM/SIGINT (L1, L4, M2): health turns 503,
 * new Start/Execute calls are refused, every managed process group gets
 * SIGTERM and, after a grace period, SIGKILL; Start streams end with their
 * ExitEvent; then the gRPC server closes. --shutdown-timeout bounds it all.
 * Runs on the loop; when done, every handle it or the process manager owns
 * is closed so uv_run returns. */
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "daemon_state.h"
#include "grpc_service/process_service.h"
#include "process/proc.h"
#include "sbx_grpc_server.h"

/* The reference's grace between SIGTERM and SIGKILL at shutdown. */
#define SHUTDOWN_GRACE_MS 2000

struct daemon_shutdown {
    uv_loop_t *loop;
    struct daemon_state *st;
    struct proc_manager *pm;
    struct sbx_grpc_server *grpc;
    struct process_service *svc;
    uint64_t grace_ms;
    uint64_t timeout_ms;
    uv_signal_t sigterm, sigint;
    uv_timer_t deadline;
    uv_timer_t grace; /* free for the process stage's own use */
    uint64_t started_ms;
    bool begun, server_closing, finished;
};

/* Installs the SIGTERM/SIGINT handlers. Returns 0 or a libuv error. */
int shutdown_init(struct daemon_shutdown *sd, uv_loop_t *loop, struct daemon_state *st,
                  struct proc_manager *pm, struct sbx_grpc_server *grpc,
                  struct process_service *svc);

/* Starts the shutdown (what the signals do). Idempotent. */
void shutdown_begin(struct daemon_shutdown *sd);

/* (Re)arms the deadline at sd->timeout_ms after the shutdown began. */
void shutdown_arm_deadline(struct daemon_shutdown *sd);

/* The steps the process stage of shutdown_behaviour.h ends with. Once
 * every process is gone (or abandoned): lets the calls' last messages and
 * trailers go out for the time left of the timeout, then closes the
 * server and finishes. Once only. */
void shutdown_close_server(struct daemon_shutdown *sd);
/* shutdown_close_server as soon as no managed process is left (at once
 * when none is). */
void shutdown_close_when_idle(struct daemon_shutdown *sd);
/* Closes the server now: open streams are cut, then finishes. */
void shutdown_cut_streams(struct daemon_shutdown *sd);

#endif
