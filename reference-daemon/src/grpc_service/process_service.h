/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVICE_PROCESS_SERVICE_H
#define SBX_GRPC_SERVICE_PROCESS_SERVICE_H
/* process.v1.ProcessService on the gRPC server: Start, Execute,
 * WriteStdin, SendSignal and ResizeTTY over the process manager. Runs on the
 * server's loop thread. */
#include <stdbool.h>
#include <uv.h>

#include "daemon_state.h"
#include "process/proc.h"
#include "sbx_grpc_server.h"

struct process_service;

/* Registers the five methods on srv. root_abs is the root's absolute path
 * (for absolute cwd values); it is copied. Returns NULL on failure. */
struct process_service *process_service_new(uv_loop_t *loop, struct daemon_state *st,
                                            struct proc_manager *pm, struct sbx_grpc_server *srv,
                                            const char *root_abs);

/* From now on Start and Execute are refused with UNAVAILABLE (L4). */
void process_service_refuse_new(struct process_service *svc);

/* Frees the service once no call is in flight any more (after the server
 * closed). */
void process_service_free(struct process_service *svc);

#endif
