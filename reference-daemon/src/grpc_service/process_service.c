/* SPDX-License-Identifier: Apache-2.0 */
/* ProcessService set-up and the pieces its handlers share: launching a
 * process from a validated request and sending messages. */
#include "grpc_service/process_service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grpc_service/service_behaviour.h"
#include "grpc_service/service_internal.h"
#include "process/cwd.h"
#include "process/env.h"

int svc_launch(struct process_service *svc, const struct launch_spec *spec, enum svc_method method,
               const struct proc_callbacks *cb, void *user, struct proc **out, char *msg,
               size_t msglen)
{
    int cwd_fd = service_behaviour->open_cwd(svc, spec->cwd, method);
    if (cwd_fd < 0) return service_behaviour->cwd_error(cwd_fd, spec->cwd, msg, msglen);
    char **envp = service_behaviour->child_env(spec->env, spec->nenv);
    if (!envp) {
        close(cwd_fd);
        snprintf(msg, msglen, "out of memory");
        return SBX_GRPC_RESOURCE_EXHAUSTED;
    }

    struct spawn_opts o;
    service_behaviour->spawn_options(&o, spec, method);
    o.envp = envp;
    o.cwd_fd = cwd_fd;
    int e = proc_spawn(svc->pm, &o, cb, user, out);
    free(envp);
    close(cwd_fd);
    if (e == 0) return SBX_GRPC_OK;
    return service_behaviour->exec_error(e, spec->argv[0], msg, msglen);
}

void svc_spawn_options_real(struct spawn_opts *o, const struct launch_spec *spec,
                            enum svc_method method)
{
    *o = (struct spawn_opts){
        .argv = spec->argv,
        .cwd_fd = -1,
        /* Start's stdin is a pipe for WriteStdin (P12); Execute has none. */
        .stdin_mode = method == SVC_START ? SPAWN_STDIN_PIPE : SPAWN_STDIN_NULL,
        .pty = spec->pty,
        .pty_cols = spec->cols,
        .pty_rows = spec->rows,
        .own_group = true, /* P16 */
    };
}

int svc_open_cwd_real(const struct process_service *svc, const char *cwd, enum svc_method method)
{
    (void)method; /* Start and Execute resolve alike (P4) */
    return cwd_open(svc->st->root_fd, svc->root_abs, cwd);
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

void svc_answer_empty(struct sbx_grpc_server_call *call)
{
    /* WriteStdinResponse, SendSignalResponse and ResizeTTYResponse have no
     * fields: each is the empty message. */
    sbx_grpc_server_call_send_message(call, "", 0);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

void svc_reject_undecodable_real(struct sbx_grpc_server_call *call, const char *what)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "request is not a valid %s message", what);
    sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, msg);
}

void svc_not_found_real(struct sbx_grpc_server_call *call, int32_t id, enum svc_method method)
{
    (void)method;
    char msg[64];
    snprintf(msg, sizeof(msg), "no process with id %d", (int)id);
    sbx_grpc_server_call_finish(call, SBX_GRPC_NOT_FOUND, msg);
}

void svc_finish_real(struct sbx_grpc_server_call *call, int code, const char *msg)
{
    sbx_grpc_server_call_finish(call, code, msg);
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
    svc->exec_limit = service_behaviour->execute_output_limit(st->cfg);
    if (!svc->root_abs ||
        add(svc, "Start", SBX_GRPC_METHOD_SERVER_STREAMING, service_behaviour->on_start) != 0 ||
        add(svc, "Execute", SBX_GRPC_METHOD_UNARY, service_behaviour->on_execute) != 0 ||
        add(svc, "WriteStdin", SBX_GRPC_METHOD_UNARY, service_behaviour->on_write_stdin) != 0 ||
        add(svc, "SendSignal", SBX_GRPC_METHOD_UNARY, service_behaviour->on_send_signal) != 0 ||
        add(svc, "ResizeTTY", SBX_GRPC_METHOD_UNARY, service_behaviour->on_resize_tty) != 0) {
        free(svc->root_abs);
        free(svc);
        return NULL;
    }
    return svc;
}

void process_service_refuse_new(struct process_service *svc)
{
    svc->refusing = true;
}

void process_service_free(struct process_service *svc)
{
    if (!svc) return;
    free(svc->root_abs);
    free(svc);
}
