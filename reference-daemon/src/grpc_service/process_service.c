/* ProcessService set-up and the pieces its handlers share: launching a
 * process from a validated request and sending messages. */
#include "grpc_service/process_service.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "grpc_service/service_internal.h"
#include "process/cwd.h"
#include "process/env.h"

extern char **environ;

int svc_launch(struct process_service *svc, const struct launch_spec *spec,
               const struct launch_mode *mode, const struct proc_callbacks *cb, void *user,
               struct proc **out, char *msg, size_t msglen)
{
    int cwd_fd;
    char host[8192];
    if ((!spec->cwd || !*spec->cwd) && fault_active(FAULT_CWD_DEFAULT_DAEMON))
        cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    /* Fault injection: Start (the launch with a stdin pipe) joins cwd to the
     * root's path as a string, unconfined; Execute stays confined. */
    else if (fault_active(FAULT_START_CWD_UNCONFINED) && mode->stdin_mode == SPAWN_STDIN_PIPE &&
             snprintf(host, sizeof(host), "%s/%s", svc->root_abs, spec->cwd ? spec->cwd : "") <
                 (int)sizeof(host))
        cwd_fd = open(host, O_PATH | O_DIRECTORY | O_CLOEXEC);
    /* Fault injection: Start ignores cwd and runs in the root. */
    else if (fault_active(FAULT_START_CWD_IGNORE) && mode->stdin_mode == SPAWN_STDIN_PIPE)
        cwd_fd = cwd_open(svc->st->root_fd, svc->root_abs, "");
    else
        cwd_fd = cwd_open(svc->st->root_fd, svc->root_abs, spec->cwd);
    if (cwd_fd < 0) {
        int code = cwd_error_status(cwd_fd, spec->cwd, msg, msglen);
        if (code == SBX_GRPC_NOT_FOUND && fault_active(FAULT_CWD_MISSING_INTERNAL))
            code = SBX_GRPC_INTERNAL;
        /* Legal variant: the code for a cwd that is not a directory is not fixed. */
        if (code == SBX_GRPC_FAILED_PRECONDITION && fault_active(FAULT_VARIANT_CWD_NOTDIR_INVALID))
            code = SBX_GRPC_INVALID_ARGUMENT;
        return code;
    }
    enum env_merge merge = ENV_MERGE_REQUEST_WINS;
    if (fault_active(FAULT_ENV_REPLACE))
        merge = ENV_MERGE_REPLACE;
    else if (fault_active(FAULT_ENV_NO_OVERRIDE))
        merge = ENV_MERGE_DAEMON_WINS;
    char **envp = env_build(environ, spec->env, spec->nenv, merge);
    if (!envp) {
        close(cwd_fd);
        snprintf(msg, msglen, "out of memory");
        return SBX_GRPC_RESOURCE_EXHAUSTED;
    }

    struct spawn_opts o = {
        .argv = spec->argv,
        .envp = envp,
        .cwd_fd = cwd_fd,
        .stdin_mode = mode->stdin_mode,
        .pty = spec->pty && !fault_active(FAULT_NO_PTY),
        .pty_cols = spec->cols,
        .pty_rows = spec->rows,
        .own_group = !fault_active(FAULT_NO_SETPGID),
        .merge_stderr = mode->merge_stderr,
        .outlive_daemon =
            fault_active(FAULT_SHUTDOWN_NO_KILL) || fault_active(FAULT_SHUTDOWN_NO_SIGKILL),
        .pty_size_after_exec = fault_active(FAULT_PTY_SIZE_AFTER_EXEC),
        .setpgid_after_exec = fault_active(FAULT_SETPGID_AFTER_EXEC),
        .leak_failed_pty = fault_active(FAULT_PTY_FAIL_LEAK_MASTER),
    };
    if (fault_active(FAULT_PTY_SIZE_IGNORED)) {
        o.pty_cols = 80;
        o.pty_rows = 24;
    }
    int e = proc_spawn(svc->pm, &o, cb, user, out);
    free(envp);
    close(cwd_fd);
    if (e == 0 && fault_active(FAULT_PROC_HANDLE_LEAK)) fault_keep_record();
    if (e == 0) return SBX_GRPC_OK;
    int code = exec_errno_status(e, spec->argv[0], msg, msglen);
    if (code == SBX_GRPC_PERMISSION_DENIED && fault_active(FAULT_NOEXEC_INTERNAL))
        code = SBX_GRPC_INTERNAL;
    return code;
}

int32_t svc_wire_exit_code(int exit_code)
{
    if (exit_code < 0 && fault_active(FAULT_SIGNAL_EXIT_ZERO)) return 0;
    if (fault_active(FAULT_EXIT_CODE_MASK)) return exit_code & 0x7f;
    return exit_code;
}

int svc_send(struct sbx_grpc_server_call *call, const ProtobufCMessage *msg)
{
    size_t n = protobuf_c_message_get_packed_size(msg);
    uint8_t small[256];
    uint8_t *buf = n <= sizeof(small) ? small : malloc(n);
    if (!buf) return SBX_GRPC_SEND_INVALID;
    protobuf_c_message_pack(msg, buf);
    int rc = sbx_grpc_server_call_send_message(call, buf, n);
    if (buf != small) free(buf);
    return rc;
}

void svc_reject_undecodable(struct sbx_grpc_server_call *call, const char *what)
{
    if (fault_active(FAULT_BAD_MESSAGE_CLOSE)) {
        sbx_grpc_server_call_release(call);
        return;
    }
    char msg[128];
    snprintf(msg, sizeof(msg), "request is not a valid %s message", what);
    sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, msg);
}

static int add(struct process_service *svc, const char *name, enum sbx_grpc_method_kind kind,
               void (*on_request)(struct sbx_grpc_server_call *, const uint8_t *, size_t, void *))
{
    char path[96];
    snprintf(path, sizeof(path), "/process.v1.ProcessService/%s", name);
    struct sbx_grpc_method m = {.path = path, .kind = kind, .on_request = on_request, .user = svc};
    return sbx_grpc_server_add_method(svc->srv, &m);
}

struct process_service *process_service_new(uv_loop_t *loop, struct daemon_state *st,
                                            struct proc_manager *pm, struct sbx_grpc_server *srv,
                                            const char *root_abs)
{
    struct process_service *svc = calloc(1, sizeof(*svc));
    if (!svc) return NULL;
    svc->loop = loop;
    svc->st = st;
    svc->pm = pm;
    svc->srv = srv;
    svc->root_abs = strdup(root_abs);
    svc->chunk_size = st->cfg->stream_chunk_size;
    svc->exec_limit = fault_active(FAULT_EXECUTE_LIMIT_OFF) ? 0 : st->cfg->execute_output_limit;
    if (!svc->root_abs ||
        add(svc, "Start", SBX_GRPC_METHOD_SERVER_STREAMING, start_on_request) != 0 ||
        add(svc, "Execute", SBX_GRPC_METHOD_UNARY, execute_on_request) != 0 ||
        add(svc, "WriteStdin", SBX_GRPC_METHOD_UNARY, write_stdin_on_request) != 0 ||
        add(svc, "SendSignal", SBX_GRPC_METHOD_UNARY, send_signal_on_request) != 0 ||
        add(svc, "ResizeTTY", SBX_GRPC_METHOD_UNARY, resize_tty_on_request) != 0) {
        free(svc->root_abs);
        free(svc);
        return NULL;
    }
    return svc;
}

void process_service_refuse_new(struct process_service *svc)
{
    if (!fault_active(FAULT_SHUTDOWN_ACCEPTS_NEW)) svc->refusing = true;
}

void process_service_free(struct process_service *svc)
{
    if (!svc) return;
    free(svc->root_abs);
    free(svc);
}
