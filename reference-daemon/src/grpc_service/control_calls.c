/* WriteStdin, SendSignal and ResizeTTY: unary calls addressing a Start
 * process by the id from its InitEvent (P9, P12, P13, P14). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "fault.h"
#include "grpc_service/service_internal.h"

static void answer_empty(struct sbx_grpc_server_call *call)
{
    /* WriteStdinResponse, SendSignalResponse and ResizeTTYResponse have no
     * fields: each is the empty message. */
    sbx_grpc_server_call_send_message(call, "", 0);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

static void not_found(struct sbx_grpc_server_call *call, int32_t id)
{
    char msg[64];
    snprintf(msg, sizeof(msg), "no process with id %d", (int)id);
    sbx_grpc_server_call_finish(call, SBX_GRPC_NOT_FOUND, msg);
}

static void stdin_status(struct sbx_grpc_server_call *call, int err)
{
    bool closed = err == EPIPE || err == EIO || err == EBADF;
    if (err == 0 || (closed && fault_active(FAULT_STDIN_CLOSED_OK))) {
        answer_empty(call);
    } else if (closed) {
        /* Legal variant: the code is not fixed by the contract. */
        sbx_grpc_server_call_finish(call,
                                    fault_active(FAULT_VARIANT_STDIN_CLOSED_UNKNOWN)
                                        ? SBX_GRPC_UNKNOWN
                                        : SBX_GRPC_FAILED_PRECONDITION,
                                    "the process's stdin is closed");
    } else if (err == ENOBUFS) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_RESOURCE_EXHAUSTED,
                                    "too much input queued for the process's stdin");
    } else {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INTERNAL, strerror(err));
    }
}

static void on_stdin_done(struct proc *p, int err, void *user)
{
    (void)p;
    stdin_status(user, err);
}

void write_stdin_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                            void *user)
{
    struct process_service *svc = user;
    Process__V1__WriteStdinRequest *req = process__v1__write_stdin_request__unpack(NULL, len, msg);
    if (!req) {
        svc_reject_undecodable(call, "WriteStdinRequest");
        return;
    }
    if (fault_active(FAULT_UNKNOWN_FIELD_REJECT) && request_unknown_fields(&req->base)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "unknown fields in request");
        goto out;
    }
    struct proc *p = proc_lookup(svc->pm, req->process_id);
    svc->stdin_calls++;
    if (!p) {
        if (fault_active(FAULT_STDIN_UNKNOWN_OK))
            answer_empty(call);
        else
            not_found(call, req->process_id);
        goto out;
    }
    if (fault_active(FAULT_STDIN_DROP) && svc->stdin_calls % 2 == 0 &&
        req->payload_case == PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_INPUT) {
        answer_empty(call);
        goto out;
    }
    int rc;
    switch (req->payload_case) {
    case PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_INPUT:
        /* Fault injection: an empty input taken for eof. */
        if (req->input.len == 0 && fault_active(FAULT_STDIN_EMPTY_EOF)) {
            rc = proc_close_stdin(p, false, on_stdin_done, call);
        } else if (req->input.len == 0 && fault_active(FAULT_VARIANT_EMPTY_INPUT_INVALID)) {
            /* Legal variant: the answer to an empty input is not fixed. */
            sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "empty input");
            goto out;
        } else {
            rc = proc_write_stdin(p, req->input.data, req->input.len, on_stdin_done, call);
        }
        break;
    case PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_EOF:
        if (fault_active(FAULT_STDIN_IGNORE_EOF)) {
            rc = 1;
            break;
        }
        rc = proc_close_stdin(p, fault_active(FAULT_PTY_EOF_HANGUP), on_stdin_done, call);
        break;
    default: /* neither input nor eof: nothing to write */
        rc = 1;
        break;
    }
    if (rc == 1)
        answer_empty(call);
    else if (rc < 0)
        stdin_status(call, -rc);
    /* rc == 0: on_stdin_done answers once the bytes are written. */
out:
    process__v1__write_stdin_request__free_unpacked(req, NULL);
}

void send_signal_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                            void *user)
{
    struct process_service *svc = user;
    Process__V1__SendSignalRequest *req = process__v1__send_signal_request__unpack(NULL, len, msg);
    if (!req) {
        svc_reject_undecodable(call, "SendSignalRequest");
        return;
    }
    int signo = 0;
    int code = signal_from_wire((int)req->signal, &signo);
    struct proc *p = proc_lookup(svc->pm, req->process_id);
    if (fault_active(FAULT_UNKNOWN_FIELD_REJECT) && request_unknown_fields(&req->base)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "unknown fields in request");
    } else if (code != SBX_GRPC_OK && !(fault_active(FAULT_SIGNAL_UNSPECIFIED_OK) &&
                                        req->signal == PROCESS__V1__SIGNAL__SIGNAL_UNSPECIFIED)) {
        char m[64];
        snprintf(m, sizeof(m), "unsupported signal %d", (int)req->signal);
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, m);
    } else if (!p) {
        if (fault_active(FAULT_SIGNAL_UNKNOWN_OK))
            answer_empty(call);
        else
            not_found(call, req->process_id);
    } else {
        int rc = 0;
        if (code != SBX_GRPC_OK || fault_active(FAULT_SIGNAL_IGNORED))
            rc = 0;
        else if (fault_active(FAULT_SIGNAL_LEADER_ONLY))
            rc = proc_signal_leader(p, signo);
        else if (fault_active(FAULT_SIGNAL_ALWAYS_KILL))
            rc = proc_signal_group(p, SIGKILL);
        else
            rc = proc_signal_group(p, signo);
        /* ESRCH: the group is already gone, which is what was asked for. */
        if (rc == 0 || rc == -ESRCH)
            answer_empty(call);
        else
            sbx_grpc_server_call_finish(call, SBX_GRPC_INTERNAL, strerror(-rc));
    }
    process__v1__send_signal_request__free_unpacked(req, NULL);
}

void resize_tty_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                           void *user)
{
    struct process_service *svc = user;
    Process__V1__ResizeTTYRequest *req = process__v1__resize_ttyrequest__unpack(NULL, len, msg);
    if (!req) {
        svc_reject_undecodable(call, "ResizeTTYRequest");
        return;
    }
    struct proc *p = proc_lookup(svc->pm, req->process_id);
    if (fault_active(FAULT_UNKNOWN_FIELD_REJECT) && request_unknown_fields(&req->base)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "unknown fields in request");
    } else if (!p) {
        if (fault_active(FAULT_RESIZE_UNKNOWN_OK))
            answer_empty(call);
        else
            not_found(call, req->process_id);
    } else if (!proc_has_pty(p)) {
        if (fault_active(FAULT_RESIZE_NO_PTY_OK))
            answer_empty(call);
        else
            sbx_grpc_server_call_finish(call, SBX_GRPC_FAILED_PRECONDITION,
                                        "the process has no pseudo-terminal");
    } else if (fault_active(FAULT_RESIZE_NOOP)) {
        answer_empty(call);
    } else {
        uint16_t cols = req->cols > 65535 ? 65535 : (uint16_t)req->cols;
        uint16_t rows = req->rows > 65535 ? 65535 : (uint16_t)req->rows;
        int rc = proc_resize(p, cols, rows);
        if (rc == 0)
            answer_empty(call);
        else
            sbx_grpc_server_call_finish(call, SBX_GRPC_FAILED_PRECONDITION,
                                        "the terminal is closed");
    }
    process__v1__resize_ttyrequest__free_unpacked(req, NULL);
}
