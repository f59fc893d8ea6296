/* SPDX-License-Identifier: Apache-2.0 */
/* WriteStdin, SendSignal and ResizeTTY: unary calls addressing a Start
 * process by the id from its InitEvent (P9, P12, P13, P14). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "grpc_service/service_behaviour.h"
#include "grpc_service/service_internal.h"

void svc_answer_stdin_real(struct sbx_grpc_server_call *call, int err)
{
    bool closed = err == EPIPE || err == EIO || err == EBADF;
    if (err == 0) {
        svc_answer_empty(call);
    } else if (closed) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_FAILED_PRECONDITION,
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
    service_behaviour->answer_stdin(user, err);
}

int svc_write_stdin_real(struct proc *p, const Process__V1__WriteStdinRequest *req,
                         struct sbx_grpc_server_call *call, proc_stdin_cb done)
{
    switch (req->payload_case) {
    case PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_INPUT:
        return proc_write_stdin(p, req->input.data, req->input.len, done, call);
    case PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_EOF:
        return proc_close_stdin(p, false, done, call);
    default: /* neither input nor eof: nothing to write */
        return 1;
    }
}

void write_stdin_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                            void *user)
{
    struct process_service *svc = user;
    Process__V1__WriteStdinRequest *req = process__v1__write_stdin_request__unpack(NULL, len, msg);
    if (!req) {
        service_behaviour->reject_undecodable(call, "WriteStdinRequest");
        return;
    }
    struct proc *p = proc_lookup(svc->pm, req->process_id);
    if (!p) {
        service_behaviour->answer_unknown_id(call, req->process_id, SVC_WRITE_STDIN);
    } else {
        int rc = service_behaviour->write_stdin(p, req, call, on_stdin_done);
        if (rc == 1)
            svc_answer_empty(call);
        else if (rc < 0)
            service_behaviour->answer_stdin(call, -rc);
        /* rc == 0: on_stdin_done answers once the bytes are written. */
    }
    process__v1__write_stdin_request__free_unpacked(req, NULL);
}

int svc_send_signal_real(struct proc *p, int signo)
{
    return proc_signal_group(p, signo);
}

void send_signal_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                            void *user)
{
    struct process_service *svc = user;
    Process__V1__SendSignalRequest *req = process__v1__send_signal_request__unpack(NULL, len, msg);
    if (!req) {
        service_behaviour->reject_undecodable(call, "SendSignalRequest");
        return;
    }
    int signo = 0;
    int sig_code = service_behaviour->signal_number((int)req->signal, &signo);
    struct proc *p = proc_lookup(svc->pm, req->process_id);
    if (sig_code != SBX_GRPC_OK) {
        char m[64];
        snprintf(m, sizeof(m), "unsupported signal %d", (int)req->signal);
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, m);
    } else if (!p) {
        service_behaviour->answer_unknown_id(call, req->process_id, SVC_SEND_SIGNAL);
    } else {
        int rc = service_behaviour->send_signal(p, signo);
        /* ESRCH: the group is already gone, which is what was asked for. */
        if (rc == 0 || rc == -ESRCH)
            svc_answer_empty(call);
        else
            sbx_grpc_server_call_finish(call, SBX_GRPC_INTERNAL, strerror(-rc));
    }
    process__v1__send_signal_request__free_unpacked(req, NULL);
}

void svc_answer_no_pty_real(struct sbx_grpc_server_call *call)
{
    sbx_grpc_server_call_finish(call, SBX_GRPC_FAILED_PRECONDITION,
                                "the process has no pseudo-terminal");
}

void resize_tty_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                           void *user)
{
    struct process_service *svc = user;
    Process__V1__ResizeTTYRequest *req = process__v1__resize_ttyrequest__unpack(NULL, len, msg);
    if (!req) {
        service_behaviour->reject_undecodable(call, "ResizeTTYRequest");
        return;
    }
    struct proc *p = proc_lookup(svc->pm, req->process_id);
    if (!p) {
        service_behaviour->answer_unknown_id(call, req->process_id, SVC_RESIZE_TTY);
    } else if (!proc_has_pty(p)) {
        service_behaviour->answer_no_pty(call);
    } else {
        uint16_t cols = req->cols > 65535 ? 65535 : (uint16_t)req->cols;
        uint16_t rows = req->rows > 65535 ? 65535 : (uint16_t)req->rows;
        int rc = service_behaviour->resize(p, cols, rows);
        if (rc == 0)
            svc_answer_empty(call);
        else
            sbx_grpc_server_call_finish(call, SBX_GRPC_FAILED_PRECONDITION,
                                        "the terminal is closed");
    }
    process__v1__resize_ttyrequest__free_unpacked(req, NULL);
}
