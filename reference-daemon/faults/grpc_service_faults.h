/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_GRPC_SERVICE_FAULTS_H
#define SBX_FAULTS_GRPC_SERVICE_FAULTS_H
/* The ProcessService's faults and variants of the fault build: wrappers of
 * grpc_service/service_behaviour.h's decisions, one file per call
 * (grpc_service_start.c, grpc_service_execute.c, grpc_service_control.c;
 * launches and the rest in grpc_service_faults.c). */
#include "grpc_service/service_behaviour.h"

/* Answers a request as a process that exited with exit_code (Start: an
 * InitEvent of id 0 and an ExitEvent; Execute: the ExecuteResponse). */
void fault_answer_as_exit(struct sbx_grpc_server_call *call, enum svc_method method,
                          int32_t exit_code);

/* grpc_service_start.c: drop-chunk, reorder-chunks, variant-tiny-chunks,
 * buffer-until-exit, start-text-mode, stream-line-buffered,
 * pty-stderr-split, init-late, start-no-init, register-late, os-pid-ids,
 * double-exit, start-status-unknown, start-error-after-init,
 * notfound-exit-127. */
void fault_refuse_start(struct sbx_grpc_server_call *call, int code, const char *msg);
int32_t fault_register_start(struct start_call *c, struct proc *p);
void fault_send_init(struct sbx_grpc_server_call *call, int32_t id);
void fault_announce_start(struct start_call *c);
void fault_start_output(struct start_call *c, struct proc *p, enum proc_stream s,
                        const uint8_t *data, size_t len);
size_t fault_start_read_space(struct proc *p, enum proc_stream s, struct iovec *iov, size_t max_iov,
                              size_t want, void *user);
void fault_start_on_exit(struct proc *p, int exit_code, void *user);
void fault_finish_start(struct sbx_grpc_server_call *call, int32_t exit_code);
void fault_start_free(struct start_call *c);

/* grpc_service_execute.c: serialize-rpcs, deadline-answers-ok,
 * exec-truncate-1m, exec-text-mode, execute-limit-off, notfound-exit-127. */
void fault_execute_run(struct exec_call *c, Process__V1__ExecuteRequest *req);
void fault_execute_free(struct exec_call *c);
void fault_refuse_execute(struct sbx_grpc_server_call *call, int code, const char *msg);
size_t fault_execute_output_limit(const struct daemon_config *cfg);
int fault_send_execute_response(struct sbx_grpc_server_call *call,
                                const Process__V1__ExecuteResponse *r);

/* grpc_service_control.c: the stdin-*, signal-* and resize-* faults and
 * variants, pty-eof-hangup. */
void fault_answer_unknown_id(struct sbx_grpc_server_call *call, int32_t id, enum svc_method method);
int fault_write_stdin(struct proc *p, const Process__V1__WriteStdinRequest *req,
                      struct sbx_grpc_server_call *call, proc_stdin_cb done);
void fault_answer_stdin(struct sbx_grpc_server_call *call, int err);
int fault_signal_number(int wire, int *signo);
int fault_send_signal(struct proc *p, int signo);
void fault_answer_no_pty(struct sbx_grpc_server_call *call);
int fault_resize(struct proc *p, uint16_t cols, uint16_t rows);

#endif
