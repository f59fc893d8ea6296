/* SPDX-License-Identifier: Apache-2.0 */
/* service_real: the ProcessService's own decisions (service_behaviour.h). */
#include "grpc_service/service_behaviour.h"

#include "process/env.h"

extern char **environ;

static char **daemon_env_with_request(const struct env_var *vars, size_t nvars)
{
    return env_build(environ, vars, nvars);
}

static int32_t exit_code_as_is(int exit_code)
{
    return exit_code;
}

static void start_output_real(struct start_call *c, struct proc *p, enum proc_stream s,
                              const uint8_t *data, size_t len)
{
    (void)p;
    start_send_output(c, s, data, len);
}

static size_t output_limit(const struct daemon_config *cfg)
{
    return cfg->execute_output_limit;
}

static int send_execute_response(struct sbx_grpc_server_call *call,
                                 const Process__V1__ExecuteResponse *r)
{
    return svc_send(call, &r->base);
}

const struct service_behaviour service_real = {
    .on_start = start_on_request,
    .on_execute = execute_on_request,
    .on_write_stdin = write_stdin_on_request,
    .on_send_signal = send_signal_on_request,
    .on_resize_tty = resize_tty_on_request,
    .reject_undecodable = svc_reject_undecodable_real,
    .answer_unknown_id = svc_not_found_real,
    .open_cwd = svc_open_cwd_real,
    .cwd_error = cwd_error_status,
    .child_env = daemon_env_with_request,
    .spawn_options = svc_spawn_options_real,
    .launch = svc_launch,
    .exec_error = exec_errno_status,
    .wire_exit_code = exit_code_as_is,
    .refuse_start = svc_finish_real,
    .register_start = svc_register_start_real,
    .send_init = svc_send_init_real,
    .announce_start = start_send_init,
    .start_output = start_output_real,
    .start_process = {start_on_output, start_on_exit, start_read_space, start_output_read},
    .start_on_cancel = start_on_cancel_real,
    .finish_start = svc_finish_start_real,
    .start_free = start_free_real,
    .execute_run = execute_run,
    .execute_on_cancel = execute_on_cancel_real,
    .execute_free = execute_free_real,
    .refuse_execute = svc_finish_real,
    .execute_output_limit = output_limit,
    .send_execute_response = send_execute_response,
    .write_stdin = svc_write_stdin_real,
    .answer_stdin = svc_answer_stdin_real,
    .signal_number = signal_from_wire,
    .send_signal = svc_send_signal_real,
    .answer_no_pty = svc_answer_no_pty_real,
    .resize = proc_resize,
};
