/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVICE_INTERNAL_H
#define SBX_GRPC_SERVICE_INTERNAL_H
/* Shared by the ProcessService's call handlers. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grpc_service/process_service.h"
#include "grpc_service/request.h"

/* Grace between SIGTERM and SIGKILL when a call is cancelled (P17, G5). */
#define CANCEL_GRACE_MS 1000
/* A Start stream stops reading its child while this much is queued (the
 * queue only grows while the peer or its window is slower than the child;
 * at most one read more is queued before the pause takes effect). */
#define START_PAUSE_BYTES (1024u * 1024u)

struct exec_call;

/* The ProcessService's methods. */
enum svc_method { SVC_START, SVC_EXECUTE, SVC_WRITE_STDIN, SVC_SEND_SIGNAL, SVC_RESIZE_TTY };

struct process_service {
    uv_loop_t *loop;
    struct daemon_state *st;
    struct proc_manager *pm;
    struct sbx_grpc_server *srv;
    char *root_abs;
    size_t chunk_size;
    size_t exec_limit; /* Execute output per stream; 0 = unbounded */
    bool refusing;
};

/* Resolves cwd, builds the environment and starts the process for method
 * (Start: stdin a pipe; Execute: /dev/null). Returns a gRPC code; on OK
 * *out is the started process. */
int svc_launch(struct process_service *svc, const struct launch_spec *spec, enum svc_method method,
               const struct proc_callbacks *cb, void *user, struct proc **out, char *msg,
               size_t msglen);

/* Answers a call with the empty message and OK. */
void svc_answer_empty(struct sbx_grpc_server_call *call);

/* Packs msg and sends it on call. Returns an sbx_grpc_send_result, or
 * SBX_GRPC_SEND_INVALID when out of memory. */
int svc_send(struct sbx_grpc_server_call *call, const ProtobufCMessage *msg);

/* Method handlers (one file each). */
void start_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                      void *user);
void execute_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                        void *user);
void write_stdin_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                            void *user);
void send_signal_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                            void *user);
void resize_tty_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                           void *user);

#endif
