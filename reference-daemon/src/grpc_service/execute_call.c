/* Execute: runs a command to completion with stdin on /dev/null (P1) and
 * answers exit code, stdout and stderr in one message. Output is buffered
 * up to --execute-output-limit per stream; beyond it the process group is
 * killed and the call fails with RESOURCE_EXHAUSTED (use Start to stream).
 * A cancelled call or a passed deadline terminates the group (P17, G5). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "grpc_service/env_keys.h"
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
    /* serialize-rpcs (fault injection): a queued call keeps its request. */
    struct exec_call *next;
    Process__V1__ExecuteRequest *queued_req;
};

static void exec_call_free(struct exec_call *c)
{
    free(c->out.data);
    free(c->err.data);
    if (c->queued_req) process__v1__execute_request__free_unpacked(c->queued_req, NULL);
    free(c);
}

static void run_next_serialized(struct process_service *svc);

/* The call is over (answered or cancelled): free it and let the next
 * serialized call run. */
static void exec_call_done(struct exec_call *c)
{
    struct process_service *svc = c->svc;
    exec_call_free(c);
    if (fault_active(FAULT_SERIALIZE_RPCS)) {
        svc->serial_busy = false;
        run_next_serialized(svc);
    }
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
    /* Fault injection (exec-truncate-1m): output beyond 1 MiB silently dropped. */
    if (fault_active(FAULT_EXEC_TRUNCATE_1M) && b->len + n > (1u << 20))
        n = b->len < (1u << 20) ? (1u << 20) - b->len : 0;
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

/* Fault injection (exec-text-mode): output handled as a C string. */
static size_t text_len(const struct out_buf *b)
{
    const uint8_t *nul = b->len ? memchr(b->data, 0, b->len) : NULL;
    return nul ? (size_t)(nul - b->data) : b->len;
}

static void on_finished(struct proc *p, int exit_code, void *user)
{
    struct exec_call *c = user;
    proc_release(p);
    c->p = NULL;
    Process__V1__ExecuteResponse r = PROCESS__V1__EXECUTE_RESPONSE__INIT;
    r.exit_code = svc_wire_exit_code(exit_code);
    r.stdout = (ProtobufCBinaryData){c->out.len, c->out.data};
    r.stderr = (ProtobufCBinaryData){c->err.len, c->err.data};
    if (fault_active(FAULT_EXEC_TEXT_MODE)) {
        r.stdout.len = text_len(&c->out);
        r.stderr.len = text_len(&c->err);
    }
    int rc = svc_send(c->call, &r.base);
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

static void on_cancel(struct sbx_grpc_server_call *call, void *user,
                      enum sbx_grpc_cancel_reason reason)
{
    struct exec_call *c = user;
    sbx_grpc_server_call_release(call);
    c->call = NULL;
    if (c->queued_req) { /* never started (serialize-rpcs) */
        struct exec_call **pp = &c->svc->serial_head;
        while (*pp && *pp != c)
            pp = &(*pp)->next;
        if (*pp) *pp = c->next;
        if (c->svc->serial_tail == c) {
            c->svc->serial_tail = NULL;
            for (struct exec_call *q = c->svc->serial_head; q; q = q->next)
                c->svc->serial_tail = q;
        }
        exec_call_free(c);
        return;
    }
    if (c->p) {
        bool keep = fault_active(FAULT_CANCEL_NO_KILL) ||
                    (reason == SBX_GRPC_CANCEL_DEADLINE && fault_active(FAULT_IGNORE_DEADLINE));
        if (!keep) proc_terminate(c->p, CANCEL_GRACE_MS);
        proc_detach(c->p);
        c->p = NULL;
    }
    exec_call_done(c);
}

static const struct proc_callbacks callbacks = {on_output, on_finished};

static void answer_exit(struct sbx_grpc_server_call *call, int exit_code)
{
    Process__V1__ExecuteResponse r = PROCESS__V1__EXECUTE_RESPONSE__INIT;
    r.exit_code = exit_code;
    svc_send(call, &r.base);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

/* Starts the process of an accepted call. Returns false when the call was
 * answered (and freed) instead. */
static bool launch(struct exec_call *c, Process__V1__ExecuteRequest *req)
{
    char err[512] = "";
    struct launch_spec spec;
    int code;
    if (fault_active(FAULT_UNKNOWN_FIELD_REJECT) && request_unknown_fields(&req->base)) {
        code = SBX_GRPC_INVALID_ARGUMENT;
        snprintf(err, sizeof(err), "unknown fields in request");
    } else if ((req->config ? req->config->n_command == 0 && fault_active(FAULT_EMPTY_COMMAND_OK)
                            : fault_active(FAULT_MISSING_CONFIG_OK))) {
        answer_exit(c->call, 127);
        c->call = NULL;
        return false;
    } else {
        code = launch_spec_init(&spec, req->config, NULL, err, sizeof(err));
        if (code == SBX_GRPC_OK) {
            struct launch_mode mode = {
                .stdin_mode =
                    fault_active(FAULT_EXEC_STDIN_INHERIT) ? SPAWN_STDIN_PIPE : SPAWN_STDIN_NULL,
                .merge_stderr = fault_active(FAULT_EXEC_MERGE_STDERR),
            };
            code = svc_launch(c->svc, &spec, &mode, &callbacks, c, &c->p, err, sizeof(err));
            launch_spec_free(&spec);
#ifdef SBX_FAULTS
            /* shutdown-execute-leader-only: the shutdown kills the Execute's
             * direct child and spares its group (faults/process_faults.c). */
            if (code == SBX_GRPC_OK && fault_active(FAULT_SHUTDOWN_EXECUTE_LEADER_ONLY))
                fault_spare_group(c->p);
#endif
        }
    }
    if (code == SBX_GRPC_OK) return true;
    if (code == SBX_GRPC_NOT_FOUND && fault_active(FAULT_NOTFOUND_EXIT_127) &&
        strncmp(err, "command not found", 17) == 0)
        answer_exit(c->call, 127);
    else
        sbx_grpc_server_call_finish(c->call, code, err);
    c->call = NULL;
    return false;
}

static void run_next_serialized(struct process_service *svc)
{
    while (!svc->serial_busy && svc->serial_head) {
        struct exec_call *c = svc->serial_head;
        svc->serial_head = c->next;
        if (!svc->serial_head) svc->serial_tail = NULL;
        Process__V1__ExecuteRequest *req = c->queued_req;
        c->queued_req = NULL;
        svc->serial_busy = true;
        bool started = launch(c, req);
        process__v1__execute_request__free_unpacked(req, NULL);
        if (!started) { /* answered by launch */
            svc->serial_busy = false;
            exec_call_free(c);
        }
    }
}

void execute_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                        void *user)
{
    struct process_service *svc = user;
    if (svc->refusing) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_UNAVAILABLE, "the daemon is shutting down");
        return;
    }
    if (fault_active(FAULT_SWEEP_EXECUTE_FAIL)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_UNIMPLEMENTED,
                                    "Execute switched off (fault sweep-execute-fail)");
        return;
    }
    Process__V1__ExecuteRequest *req = process__v1__execute_request__unpack(NULL, len, msg);
    if (!req) {
        svc_reject_undecodable(call, "ExecuteRequest");
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
    sbx_grpc_server_call_on_cancel(call, on_cancel, c);
    if (fault_active(FAULT_SERIALIZE_RPCS)) {
        c->queued_req = req;
        if (svc->serial_tail)
            svc->serial_tail->next = c;
        else
            svc->serial_head = c;
        svc->serial_tail = c;
        run_next_serialized(svc);
        return;
    }
    bool started = launch(c, req);
    process__v1__execute_request__free_unpacked(req, NULL);
    if (!started) exec_call_free(c);
}
