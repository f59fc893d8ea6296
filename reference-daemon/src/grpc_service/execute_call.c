/* SPDX-License-Identifier: Apache-2.0 */
/* Execute: runs a command to completion with stdin on /dev/null (P1) and
 * answers exit code, stdout and stderr in one message. Output is buffered
 * up to --execute-output-limit per stream; beyond it the process group is
 * killed and the call fails with RESOURCE_EXHAUSTED (use Start to stream).
 * A cancelled call or a passed deadline terminates the group (P17, G5). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grpc_service/env_keys.h"
#include "grpc_service/service_behaviour.h"
#include "grpc_service/service_internal.h"

struct out_buf {
    uint8_t *data;
    size_t len, cap;
};

struct exec_call {
    struct process_service *svc;
    struct sbx_grpc_server_call *call; /* NULL once finished or released */
    struct proc *p;                    /* NULL once released or detached */
    struct out_buf out, err;
};

struct sbx_grpc_server_call *exec_call_server_call(const struct exec_call *c)
{
    return c->call;
}

struct proc *exec_call_proc(const struct exec_call *c)
{
    return c->p;
}

struct process_service *exec_call_service(const struct exec_call *c)
{
    return c->svc;
}

void execute_free_real(struct exec_call *c)
{
    free(c->out.data);
    free(c->err.data);
    free(c);
}

/* The call is over (answered or cancelled): free it. */
static void exec_call_done(struct exec_call *c)
{
    service_behaviour->execute_free(c);
}

static int buf_append(struct out_buf *b, const uint8_t *d, size_t n, size_t limit)
{
    if (limit && (b->len > limit || n > limit - b->len)) return -1;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        if (limit && cap > limit) cap = limit;
        uint8_t *nd = realloc(b->data, cap);
        if (!nd) return -1;
        b->data = nd;
        b->cap = cap;
    }
    memcpy(b->data + b->len, d, n);
    b->len += n;
    return 0;
}

static void on_output(struct proc *p, enum proc_stream s, const uint8_t *d, size_t n, void *user)
{
    struct exec_call *c = user;
    struct out_buf *b = s == PROC_STDOUT ? &c->out : &c->err;
    if (buf_append(b, d, n, c->svc->exec_limit) == 0) return;
    char msg[256];
    snprintf(msg, sizeof(msg),
             "%s exceeded the Execute output limit of %zu bytes; use Start to stream large "
             "outputs",
             s == PROC_STDOUT ? "stdout" : "stderr", c->svc->exec_limit);
    proc_signal_group(p, SIGKILL);
    proc_detach(p);
    c->p = NULL;
    if (c->call) sbx_grpc_server_call_finish(c->call, SBX_GRPC_RESOURCE_EXHAUSTED, msg);
    c->call = NULL;
    exec_call_done(c);
}

static void on_finished(struct proc *p, int exit_code, void *user)
{
    struct exec_call *c = user;
    proc_release(p);
    c->p = NULL;
    Process__V1__ExecuteResponse r = PROCESS__V1__EXECUTE_RESPONSE__INIT;
    r.exit_code = service_behaviour->wire_exit_code(exit_code);
    r.stdout = (ProtobufCBinaryData){c->out.len, c->out.data};
    r.stderr = (ProtobufCBinaryData){c->err.len, c->err.data};
    int rc = service_behaviour->send_execute_response(c->call, &r);
    if (rc == SBX_GRPC_SEND_OK)
        sbx_grpc_server_call_finish(c->call, SBX_GRPC_OK, NULL);
    else if (rc == SBX_GRPC_SEND_CLOSED)
        sbx_grpc_server_call_finish(c->call, SBX_GRPC_CANCELLED, NULL);
    else
        sbx_grpc_server_call_finish(c->call, SBX_GRPC_RESOURCE_EXHAUSTED,
                                    "the response is too large to send; use Start");
    c->call = NULL;
    exec_call_done(c);
}

void execute_end_cancelled(struct sbx_grpc_server_call *call, struct exec_call *c)
{
    sbx_grpc_server_call_release(call);
    c->call = NULL;
    if (c->p) {
        proc_detach(c->p);
        c->p = NULL;
    }
    exec_call_done(c);
}

void execute_on_cancel_real(struct sbx_grpc_server_call *call, void *user,
                            enum sbx_grpc_cancel_reason reason)
{
    struct exec_call *c = user;
    (void)reason;
    /* P17, G5: a cancelled call or a passed deadline takes the group. */
    if (c->p) proc_terminate(c->p, CANCEL_GRACE_MS);
    execute_end_cancelled(call, c);
}

static const struct proc_callbacks callbacks = {on_output, on_finished};

void execute_run(struct exec_call *c, Process__V1__ExecuteRequest *req)
{
    char err[512] = "";
    struct launch_spec spec;
    int code = launch_spec_init(&spec, req->config, NULL, err, sizeof(err));
    if (code == SBX_GRPC_OK) {
        code = service_behaviour->launch(c->svc, &spec, SVC_EXECUTE, &callbacks, c, &c->p, err,
                                         sizeof(err));
        launch_spec_free(&spec); /* its strings point into req */
    }
    process__v1__execute_request__free_unpacked(req, NULL);
    if (code == SBX_GRPC_OK) return;
    service_behaviour->refuse_execute(c->call, code, err);
    c->call = NULL;
    exec_call_done(c);
}

void execute_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                        void *user)
{
    struct process_service *svc = user;
    if (svc->refusing) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_UNAVAILABLE, "the daemon is shutting down");
        return;
    }
    Process__V1__ExecuteRequest *req = process__v1__execute_request__unpack(NULL, len, msg);
    if (!req) {
        service_behaviour->reject_undecodable(call, "ExecuteRequest");
        return;
    }
    char why[160];
    if (env_keys_check(msg, len, why, sizeof(why)) != SBX_GRPC_OK) {
        process__v1__execute_request__free_unpacked(req, NULL);
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, why);
        return;
    }
    struct exec_call *c = calloc(1, sizeof(*c));
    if (!c) {
        process__v1__execute_request__free_unpacked(req, NULL);
        sbx_grpc_server_call_finish(call, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    c->svc = svc;
    c->call = call;
    sbx_grpc_server_call_on_cancel(call, service_behaviour->execute_on_cancel, c);
    service_behaviour->execute_run(c, req);
}
