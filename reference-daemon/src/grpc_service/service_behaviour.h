/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVICE_BEHAVIOUR_H
#define SBX_GRPC_SERVICE_BEHAVIOUR_H
/* The decisions of the ProcessService that another build of the daemon may
 * wrap; the call handlers call through service_behaviour, service_real
 * holds the daemon's own. Chosen at link time like fs_behaviour
 * (fs/fs_behaviour.h): the real daemon links
 * grpc_service/service_behaviour_real.c, sandboxd-ref-faulty its wrappers
 * from reference-daemon/faults/. Constant while the daemon runs; called on
 * the loop's thread only. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon_config.h"
#include "grpc_service/service_internal.h"
#include "process.pb-c.h"
#include "process/env.h"
#include "process/proc.h"
#include "sbx_grpc_server.h"

struct start_call;

struct service_behaviour {
    /* Any call. */
    /* The handlers of the five methods' requests (start_on_request,
     * execute_on_request, write_stdin_on_request, send_signal_on_request,
     * resize_tty_on_request; user is the process_service), so that
     * another build may answer some requests itself. A request's unknown
     * fields are skipped, as protobuf readers do (G4). */
    void (*on_start)(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *user);
    void (*on_execute)(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                       void *user);
    void (*on_write_stdin)(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                           void *user);
    void (*on_send_signal)(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                           void *user);
    void (*on_resize_tty)(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                          void *user);
    /* Answers a request that did not decode (G3). */
    void (*reject_undecodable)(struct sbx_grpc_server_call *call, const char *what);
    /* Answers a WriteStdin, SendSignal or ResizeTTY for an id no process
     * has (P12). */
    void (*answer_unknown_id)(struct sbx_grpc_server_call *call, int32_t id,
                              enum svc_method method);

    /* Launches (process_service.c). */
    /* Opens the working directory cwd (NULL or "" for the root) of a
     * launch: an O_PATH descriptor or an fs_resolve_error. */
    int (*open_cwd)(const struct process_service *svc, const char *cwd, enum svc_method method);
    /* The gRPC code (and msg) of a working directory that could not be
     * opened (cwd_error_status). */
    int (*cwd_error)(int fs_error, const char *cwd, char *msg, size_t msglen);
    /* The child's environment from the request's variables (P3: the
     * daemon's own, with the request's laid over it); NULL when out of
     * memory, else released with free(). */
    char **(*child_env)(const struct env_var *vars, size_t nvars);
    /* The spawn options of a launch for method from its request: the
     * command, a PTY of the asked size (P15), the child in its own group
     * (P16), stdin a pipe for Start and none for Execute. The caller adds
     * the environment and the working directory. */
    void (*spawn_options)(struct spawn_opts *o, const struct launch_spec *spec,
                          enum svc_method method);
    /* Launches the process of a validated request (svc_launch), so that
     * another build may act on what it started. */
    int (*launch)(struct process_service *svc, const struct launch_spec *spec,
                  enum svc_method method, const struct proc_callbacks *cb, void *user,
                  struct proc **out, char *msg, size_t msglen);
    /* The gRPC code (and msg) of a failed exec (exec_errno_status). */
    int (*exec_error)(int err, const char *command, char *msg, size_t msglen);
    /* The exit code sent on the wire for a process's exit_code (proc.h). */
    int32_t (*wire_exit_code)(int exit_code);

    /* Start (start_call.c). */
    /* Ends a Start that could not start (P8: no InitEvent, just the
     * status). */
    void (*refuse_start)(struct sbx_grpc_server_call *call, int code, const char *msg);
    /* Registers a Start's process: the id its InitEvent announces (P9),
     * -1 when out of memory. */
    int32_t (*register_start)(struct start_call *c, struct proc *p);
    /* Sends the InitEvent of id. */
    void (*send_init)(struct sbx_grpc_server_call *call, int32_t id);
    /* The Start's process is registered: announces it (start_send_init). */
    void (*announce_start)(struct start_call *c);
    /* Output read from the Start's process: sends it (start_send_output). */
    void (*start_output)(struct start_call *c, struct proc *p, enum proc_stream s,
                         const uint8_t *data, size_t len);
    /* The process manager's callbacks of a Start's process (user is the
     * start_call): start_on_output, start_on_exit (the process finished and
     * its output drained: the ExitEvent, the status, the record freed),
     * start_read_space (the in-place read of a stream that produced much,
     * straight into the call's queue) and start_output_read. */
    struct proc_callbacks start_process;
    /* The wire layer's cancel callback of a Start (user is the
     * start_call): the process group is terminated (P17, G5), the call
     * and its record end (start_end_cancelled). */
    void (*start_on_cancel)(struct sbx_grpc_server_call *call, void *user,
                            enum sbx_grpc_cancel_reason reason);
    /* Ends a Start whose process exited with exit_code (as on the wire):
     * the ExitEvent, then the status (P7, P11). */
    void (*finish_start)(struct sbx_grpc_server_call *call, int32_t exit_code);
    /* Frees a Start's record, once its call and process are let go. */
    void (*start_free)(struct start_call *c);

    /* Execute (execute_call.c). */
    /* Runs an accepted Execute: launches its process, or answers the call
     * and ends it (execute_run). Frees req. */
    void (*execute_run)(struct exec_call *c, Process__V1__ExecuteRequest *req);
    /* The wire layer's cancel callback of an Execute (user is the
     * exec_call): the process group is terminated (P17, G5), the call
     * and its record end (execute_end_cancelled). */
    void (*execute_on_cancel)(struct sbx_grpc_server_call *call, void *user,
                              enum sbx_grpc_cancel_reason reason);
    /* Frees an Execute's record once it is over (answered or cancelled). */
    void (*execute_free)(struct exec_call *c);
    /* Ends an Execute that could not start with its status. */
    void (*refuse_execute)(struct sbx_grpc_server_call *call, int code, const char *msg);
    /* The per-stream bound on Execute output (0 = none). */
    size_t (*execute_output_limit)(const struct daemon_config *cfg);
    /* Sends the answer of an Execute whose process finished (svc_send):
     * an SBX_GRPC_SEND_* result. */
    int (*send_execute_response)(struct sbx_grpc_server_call *call,
                                 const Process__V1__ExecuteResponse *r);

    /* WriteStdin, SendSignal, ResizeTTY (control_calls.c). */
    /* Does what a WriteStdin asks of p: 1 when done at once (the call is
     * then answered empty), 0 when the call is answered elsewhere (by done
     * once the bytes are written, or already), or -errno. */
    int (*write_stdin)(struct proc *p, const Process__V1__WriteStdinRequest *req,
                       struct sbx_grpc_server_call *call, proc_stdin_cb done);
    /* Answers a WriteStdin whose bytes were written (err 0) or not
     * (errno). */
    void (*answer_stdin)(struct sbx_grpc_server_call *call, int err);
    /* Maps a wire signal to a signal number: OK, or INVALID_ARGUMENT
     * (signal_from_wire). */
    int (*signal_number)(int wire, int *signo);
    /* Delivers a SendSignal's signal to p: 0 or -errno. */
    int (*send_signal)(struct proc *p, int signo);
    /* Answers a ResizeTTY for a process without a terminal. */
    void (*answer_no_pty)(struct sbx_grpc_server_call *call);
    /* Resizes p's terminal: 0 or -errno (proc_resize). */
    int (*resize)(struct proc *p, uint16_t cols, uint16_t rows);
};

/* The daemon's own operations that service_real points to. */
void svc_spawn_options_real(struct spawn_opts *o, const struct launch_spec *spec,
                            enum svc_method method);
int svc_open_cwd_real(const struct process_service *svc, const char *cwd, enum svc_method method);
void svc_reject_undecodable_real(struct sbx_grpc_server_call *call, const char *what);
void svc_not_found_real(struct sbx_grpc_server_call *call, int32_t id, enum svc_method method);
int32_t svc_register_start_real(struct start_call *c, struct proc *p);
void svc_send_init_real(struct sbx_grpc_server_call *call, int32_t id);
void svc_finish_start_real(struct sbx_grpc_server_call *call, int32_t exit_code);
/* Finishes call with code and msg. */
void svc_finish_real(struct sbx_grpc_server_call *call, int code, const char *msg);
int svc_write_stdin_real(struct proc *p, const Process__V1__WriteStdinRequest *req,
                         struct sbx_grpc_server_call *call, proc_stdin_cb done);
void svc_answer_stdin_real(struct sbx_grpc_server_call *call, int err);
int svc_send_signal_real(struct proc *p, int signo);
void svc_answer_no_pty_real(struct sbx_grpc_server_call *call);

/* What a Start's behaviour may do with its call (start_call.c). */
/* Sends len bytes of s as events of at most the chunk size (P10). */
void start_send_output(struct start_call *c, enum proc_stream s, const uint8_t *data, size_t len);
/* Sends len bytes of s as one event. */
void start_send_event(struct start_call *c, enum proc_stream s, const uint8_t *data, size_t len);
/* Sends the InitEvent, once. */
void start_send_init(struct start_call *c);
bool start_init_sent(const struct start_call *c);
/* Whether the call is still open (not finished, failed or cancelled). */
bool start_call_open(const struct start_call *c);
/* The call's process (NULL once released or detached). */
struct proc *start_call_proc(const struct start_call *c);
struct process_service *start_call_service(const struct start_call *c);
/* A pointer owned by the service_behaviour in use, released by its
 * start_free. */
void **start_call_extension(struct start_call *c);
/* The daemon's own callbacks of a Start (service_real). */
void start_on_output(struct proc *p, enum proc_stream s, const uint8_t *data, size_t len,
                     void *user);
void start_on_exit(struct proc *p, int exit_code, void *user);
size_t start_read_space(struct proc *p, enum proc_stream s, struct iovec *iov, size_t max_iov,
                        size_t want, void *user);
void start_output_read(struct proc *p, enum proc_stream s, size_t len, void *user);
void start_on_cancel_real(struct sbx_grpc_server_call *call, void *user,
                          enum sbx_grpc_cancel_reason reason);
void start_free_real(struct start_call *c);
/* Ends a cancelled Start: releases call, lets go of the process as it is
 * (unregistered, detached) and frees the record. */
void start_end_cancelled(struct sbx_grpc_server_call *call, struct start_call *c);

/* What an Execute's behaviour may see of its call (execute_call.c). */
/* The call (NULL once answered or cancelled) and its process (NULL once
 * released or detached). */
struct sbx_grpc_server_call *exec_call_server_call(const struct exec_call *c);
struct proc *exec_call_proc(const struct exec_call *c);
struct process_service *exec_call_service(const struct exec_call *c);

/* The daemon's own steps of an Execute (service_real). */
void execute_run(struct exec_call *c, Process__V1__ExecuteRequest *req);
void execute_on_cancel_real(struct sbx_grpc_server_call *call, void *user,
                            enum sbx_grpc_cancel_reason reason);
void execute_free_real(struct exec_call *c);
/* Ends a cancelled Execute: releases call, lets go of the process as it is
 * (detached) and frees the record. */
void execute_end_cancelled(struct sbx_grpc_server_call *call, struct exec_call *c);

extern const struct service_behaviour service_real;
extern const struct service_behaviour *const service_behaviour;

#endif
