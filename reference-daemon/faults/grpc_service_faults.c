/* SPDX-License-Identifier: Apache-2.0 */
/* The ProcessService's faults and variants of sandboxd-ref-faulty that
 * concern every call and the launch of a process
 * (grpc_service/service_behaviour.h): wrappers linked instead of
 * grpc_service/service_behaviour_real.c. Each acts while its fault is on
 * and otherwise calls service_real. */
#include "grpc_service_faults.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "fault.h"
#include "process/cwd.h"
#include "process/env.h"
#include "process_faults.h"

/* unknown-field-reject: a request of desc that decodes and has unknown
 * fields is refused with INVALID_ARGUMENT; true when call was answered. */
static bool refused_for_unknown_fields(struct sbx_grpc_server_call *call,
                                       const ProtobufCMessageDescriptor *desc, const uint8_t *msg,
                                       size_t len)
{
    if (!fault_active(FAULT_UNKNOWN_FIELD_REJECT)) return false;
    ProtobufCMessage *req = protobuf_c_message_unpack(desc, NULL, len, msg);
    bool refused = req && request_unknown_fields(req) > 0;
    if (req) protobuf_c_message_free_unpacked(req, NULL);
    if (refused)
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "unknown fields in request");
    return refused;
}

static void on_write_stdin(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                           void *user)
{
    if (!refused_for_unknown_fields(call, &process__v1__write_stdin_request__descriptor, msg, len))
        service_real.on_write_stdin(call, msg, len, user);
}

static void on_send_signal(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                           void *user)
{
    if (!refused_for_unknown_fields(call, &process__v1__send_signal_request__descriptor, msg, len))
        service_real.on_send_signal(call, msg, len, user);
}

static void on_resize_tty(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                          void *user)
{
    if (!refused_for_unknown_fields(call, &process__v1__resize_ttyrequest__descriptor, msg, len))
        service_real.on_resize_tty(call, msg, len, user);
}

/* bad-message-close: the stream is reset instead of answered. */
static void reject_undecodable(struct sbx_grpc_server_call *call, const char *what)
{
    if (fault_active(FAULT_BAD_MESSAGE_CLOSE)) {
        sbx_grpc_server_call_release(call);
        return;
    }
    service_real.reject_undecodable(call, what);
}

void fault_answer_as_exit(struct sbx_grpc_server_call *call, enum svc_method method,
                          int32_t exit_code)
{
    if (method == SVC_EXECUTE) {
        Process__V1__ExecuteResponse r = PROCESS__V1__EXECUTE_RESPONSE__INIT;
        r.exit_code = exit_code;
        svc_send(call, &r.base);
        sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
        return;
    }
    svc_send_init_real(call, 0);
    svc_finish_start_real(call, exit_code);
}

/* empty-command-ok, missing-config-ok (Execute only): whether config
 * is answered as a process that exited 127. */
static bool config_as_exit(const Process__V1__ProcessConfig *config, enum svc_method method)
{
    return config ? config->n_command == 0 && fault_active(FAULT_EMPTY_COMMAND_OK)
                  : method == SVC_EXECUTE && fault_active(FAULT_MISSING_CONFIG_OK);
}

/* sweep-start-fail, unknown-field-reject, empty-command-ok: the Start
 * handler of the fault build answers these requests itself. */
static void on_start(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *user)
{
    const struct process_service *svc = user;
    if (!svc->refusing && fault_active(FAULT_SWEEP_START_FAIL)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INTERNAL, "cannot start processes");
        return;
    }
    if (!svc->refusing &&
        refused_for_unknown_fields(call, &process__v1__start_request__descriptor, msg, len))
        return;
    Process__V1__StartRequest *req = fault_active(FAULT_EMPTY_COMMAND_OK)
                                         ? process__v1__start_request__unpack(NULL, len, msg)
                                         : NULL;
    bool as_exit = req && config_as_exit(req->config, SVC_START);
    if (req) process__v1__start_request__free_unpacked(req, NULL);
    if (as_exit && !svc->refusing)
        fault_answer_as_exit(call, SVC_START, 127);
    else
        service_real.on_start(call, msg, len, user);
}

/* sweep-execute-fail, unknown-field-reject, empty-command-ok,
 * missing-config-ok: the Execute handler of the fault build answers these
 * requests itself. */
static void on_execute(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                       void *user)
{
    const struct process_service *svc = user;
    if (!svc->refusing && fault_active(FAULT_SWEEP_EXECUTE_FAIL)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_UNIMPLEMENTED,
                                    "Execute switched off (fault sweep-execute-fail)");
        return;
    }
    if (!svc->refusing &&
        refused_for_unknown_fields(call, &process__v1__execute_request__descriptor, msg, len))
        return;
    Process__V1__ExecuteRequest *req =
        fault_active(FAULT_EMPTY_COMMAND_OK) || fault_active(FAULT_MISSING_CONFIG_OK)
            ? process__v1__execute_request__unpack(NULL, len, msg)
            : NULL;
    bool as_exit = req && config_as_exit(req->config, SVC_EXECUTE);
    if (req) process__v1__execute_request__free_unpacked(req, NULL);
    if (as_exit && !svc->refusing)
        fault_answer_as_exit(call, SVC_EXECUTE, 127);
    else
        service_real.on_execute(call, msg, len, user);
}

static int open_host_dir(const char *path)
{
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -1;
}

/* start-cwd-unconfined: Start joins cwd to the root's path as a string,
 * unconfined; start-cwd-ignore: Start runs in the root. Execute stays
 * confined. (cwd-default-daemon and the other cwd faults are the process
 * manager's: process_cwd.c.) */
static int open_cwd(const struct process_service *svc, const char *cwd, enum svc_method method)
{
    char host[8192];
    if (method == SVC_START && fault_active(FAULT_START_CWD_UNCONFINED) &&
        snprintf(host, sizeof(host), "%s/%s", svc->root_abs, cwd ? cwd : "") < (int)sizeof(host))
        return open_host_dir(host);
    if (method == SVC_START && fault_active(FAULT_START_CWD_IGNORE))
        return service_real.open_cwd(svc, "", method);
    return service_real.open_cwd(svc, cwd, method);
}

/* cwd-missing-internal; variant-cwd-notdir-invalid: the code for a cwd
 * that is not a directory is not fixed. */
static int cwd_error(int fs_error, const char *cwd, char *msg, size_t msglen)
{
    int code = service_real.cwd_error(fs_error, cwd, msg, msglen);
    if (code == SBX_GRPC_NOT_FOUND && fault_active(FAULT_CWD_MISSING_INTERNAL))
        code = SBX_GRPC_INTERNAL;
    if (code == SBX_GRPC_FAILED_PRECONDITION && fault_active(FAULT_VARIANT_CWD_NOTDIR_INVALID))
        code = SBX_GRPC_INVALID_ARGUMENT;
    return code;
}

/* env-replace: the request's variables only; env-no-override: a name the
 * daemon's environment has keeps the daemon's value. */
static char **child_env(const struct env_var *vars, size_t nvars)
{
    if (fault_active(FAULT_ENV_REPLACE)) return env_build(NULL, vars, nvars);
    if (!fault_active(FAULT_ENV_NO_OVERRIDE)) return service_real.child_env(vars, nvars);
    struct env_var *kept = calloc(nvars ? nvars : 1, sizeof(*kept));
    if (!kept) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < nvars; i++)
        if (!getenv(vars[i].key)) kept[n++] = vars[i];
    char **env = service_real.child_env(kept, n);
    free(kept);
    return env;
}

/* no-pty, no-setpgid, shutdown-no-kill, shutdown-no-sigkill,
 * pty-size-ignored; exec-stdin-inherit, exec-merge-stderr (Execute).
 * (pty-size-after-exec, setpgid-after-exec and pty-fail-leak-master are
 * the process manager's: process_faults.c.) */
static void spawn_options(struct spawn_opts *o, const struct launch_spec *spec,
                          enum svc_method method)
{
    service_real.spawn_options(o, spec, method);
    if (fault_active(FAULT_NO_PTY)) o->pty = false;
    if (fault_active(FAULT_NO_SETPGID)) o->own_group = false;
    if (fault_active(FAULT_SHUTDOWN_NO_KILL) || fault_active(FAULT_SHUTDOWN_NO_SIGKILL))
        o->outlive_daemon = true;
    if (fault_active(FAULT_PTY_SIZE_IGNORED)) {
        o->pty_cols = 80;
        o->pty_rows = 24;
    }
    if (method == SVC_EXECUTE && fault_active(FAULT_EXEC_STDIN_INHERIT))
        o->stdin_mode = SPAWN_STDIN_PIPE;
    if (method == SVC_EXECUTE && fault_active(FAULT_EXEC_MERGE_STDERR)) o->merge_stderr = true;
}

/* proc-handle-leak; shutdown-execute-leader-only: the shutdown kills the
 * Execute's direct child and spares its group (process_faults.c). Both act
 * on a process the real launch started. */
static int launch(struct process_service *svc, const struct launch_spec *spec,
                  enum svc_method method, const struct proc_callbacks *cb, void *user,
                  struct proc **out, char *msg, size_t msglen)
{
    int code = service_real.launch(svc, spec, method, cb, user, out, msg, msglen);
    if (code != SBX_GRPC_OK) return code;
    if (fault_active(FAULT_PROC_HANDLE_LEAK)) fault_keep_record();
    if (method == SVC_EXECUTE && fault_active(FAULT_SHUTDOWN_EXECUTE_LEADER_ONLY))
        fault_spare_group(*out);
    return code;
}

/* noexec-internal. */
static int exec_error(int err, const char *command, char *msg, size_t msglen)
{
    int code = service_real.exec_error(err, command, msg, msglen);
    if (code == SBX_GRPC_PERMISSION_DENIED && fault_active(FAULT_NOEXEC_INTERNAL))
        code = SBX_GRPC_INTERNAL;
    return code;
}

/* signal-exit-zero, exit-code-mask. */
static int32_t wire_exit_code(int exit_code)
{
    if (exit_code < 0 && fault_active(FAULT_SIGNAL_EXIT_ZERO)) return 0;
    if (fault_active(FAULT_EXIT_CODE_MASK)) return exit_code & 0x7f;
    return service_real.wire_exit_code(exit_code);
}

/* cancel-no-kill, ignore-deadline: the call ends, its process runs on. */
static bool cancel_spares_process(enum sbx_grpc_cancel_reason reason)
{
    return fault_active(FAULT_CANCEL_NO_KILL) ||
           (reason == SBX_GRPC_CANCEL_DEADLINE && fault_active(FAULT_IGNORE_DEADLINE));
}

static void start_on_cancel(struct sbx_grpc_server_call *call, void *user,
                            enum sbx_grpc_cancel_reason reason)
{
    if (cancel_spares_process(reason))
        start_end_cancelled(call, user);
    else
        service_real.start_on_cancel(call, user, reason);
}

static void execute_on_cancel(struct sbx_grpc_server_call *call, void *user,
                              enum sbx_grpc_cancel_reason reason)
{
    if (cancel_spares_process(reason))
        execute_end_cancelled(call, user);
    else
        service_real.execute_on_cancel(call, user, reason);
}

static const struct service_behaviour service_faulty = {
    .on_start = on_start,
    .on_execute = on_execute,
    .on_write_stdin = on_write_stdin,
    .on_send_signal = on_send_signal,
    .on_resize_tty = on_resize_tty,
    .reject_undecodable = reject_undecodable,
    .answer_unknown_id = fault_answer_unknown_id,
    .open_cwd = open_cwd,
    .cwd_error = cwd_error,
    .child_env = child_env,
    .spawn_options = spawn_options,
    .launch = launch,
    .exec_error = exec_error,
    .wire_exit_code = wire_exit_code,
    .refuse_start = fault_refuse_start,
    .register_start = fault_register_start,
    .send_init = fault_send_init,
    .announce_start = fault_announce_start,
    .start_output = fault_start_output,
    .start_process = {start_on_output, fault_start_on_exit, fault_start_read_space,
                      start_output_read},
    .start_on_cancel = start_on_cancel,
    .finish_start = fault_finish_start,
    .start_free = fault_start_free,
    .execute_run = fault_execute_run,
    .execute_on_cancel = execute_on_cancel,
    .execute_free = fault_execute_free,
    .refuse_execute = fault_refuse_execute,
    .execute_output_limit = fault_execute_output_limit,
    .send_execute_response = fault_send_execute_response,
    .write_stdin = fault_write_stdin,
    .answer_stdin = fault_answer_stdin,
    .signal_number = fault_signal_number,
    .send_signal = fault_send_signal,
    .answer_no_pty = fault_answer_no_pty,
    .resize = fault_resize,
};

const struct service_behaviour *const service_behaviour = &service_faulty;
