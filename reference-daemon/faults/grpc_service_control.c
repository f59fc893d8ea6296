/* SPDX-License-Identifier: Apache-2.0 */
/* The WriteStdin, SendSignal and ResizeTTY faults and variants of the fault
 * build (grpc_service_faults.h). Each acts while its fault is on and
 * otherwise calls service_real. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "fault.h"
#include "grpc_service_faults.h"
#include "process/proc_internal.h"

/* stdin-drop: WriteStdin calls that reached their process lookup. */
static unsigned stdin_calls;

/* stdin-unknown-ok, signal-unknown-ok, resize-unknown-ok: an unknown id
 * answered OK. */
void fault_answer_unknown_id(struct sbx_grpc_server_call *call, int32_t id, enum svc_method method)
{
    if (method == SVC_WRITE_STDIN) stdin_calls++;
    if ((method == SVC_WRITE_STDIN && fault_active(FAULT_STDIN_UNKNOWN_OK)) ||
        (method == SVC_SEND_SIGNAL && fault_active(FAULT_SIGNAL_UNKNOWN_OK)) ||
        (method == SVC_RESIZE_TTY && fault_active(FAULT_RESIZE_UNKNOWN_OK))) {
        svc_answer_empty(call);
        return;
    }
    service_real.answer_unknown_id(call, id, method);
}

/* stdin-partial-drop: an input written to an idle stdin whose full pipe
 * takes only part of it at once (the manager queued the rest) has the
 * rest dropped and is answered done. */
static int write_dropping_rest(struct proc *p, const Process__V1__WriteStdinRequest *req,
                               struct sbx_grpc_server_call *call, proc_stdin_cb done)
{
    bool idle = !p->wq_head;
    int rc = service_real.write_stdin(p, req, call, done);
    if (rc != 0 || !idle || !p->wq_head) return rc;
    struct stdin_req *rest = p->wq_head;
    p->wq_head = p->wq_tail = NULL;
    p->wq_bytes -= rest->len;
    free(rest);
    proc_update_polls(p);
    return 1;
}

/* stdin-drop: every second input answered OK and not written;
 * stdin-empty-eof: an empty input taken for eof; variant-empty-input-
 * invalid: an empty input refused (its answer is not fixed);
 * stdin-ignore-eof; pty-eof-hangup: eof closes the terminal. */
int fault_write_stdin(struct proc *p, const Process__V1__WriteStdinRequest *req,
                      struct sbx_grpc_server_call *call, proc_stdin_cb done)
{
    bool input = req->payload_case == PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_INPUT;
    bool eof = req->payload_case == PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_EOF;
    stdin_calls++;
    if (fault_active(FAULT_STDIN_DROP) && stdin_calls % 2 == 0 && input) return 1;
    if (input && req->input.len == 0 && fault_active(FAULT_STDIN_EMPTY_EOF))
        return proc_close_stdin(p, false, done, call);
    if (input && req->input.len == 0 && fault_active(FAULT_VARIANT_EMPTY_INPUT_INVALID)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT, "empty input");
        return 0;
    }
    if (eof && fault_active(FAULT_STDIN_IGNORE_EOF)) return 1;
    if (eof && fault_active(FAULT_PTY_EOF_HANGUP)) return proc_close_stdin(p, true, done, call);
    if (input && fault_active(FAULT_STDIN_PARTIAL_DROP))
        return write_dropping_rest(p, req, call, done);
    return service_real.write_stdin(p, req, call, done);
}

/* stdin-closed-ok; variant-stdin-closed-unknown: the code for a closed
 * stdin is not fixed by the contract. */
void fault_answer_stdin(struct sbx_grpc_server_call *call, int err)
{
    bool closed = err == EPIPE || err == EIO || err == EBADF;
    if (closed && fault_active(FAULT_STDIN_CLOSED_OK)) {
        svc_answer_empty(call);
        return;
    }
    if (closed && fault_active(FAULT_VARIANT_STDIN_CLOSED_UNKNOWN)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_UNKNOWN, "the process's stdin is closed");
        return;
    }
    service_real.answer_stdin(call, err);
}

/* signal-unspecified-ok: SIGNAL_UNSPECIFIED accepted, and nothing sent
 * (signal number 0). */
int fault_signal_number(int wire, int *signo)
{
    int code = service_real.signal_number(wire, signo);
    if (code != SBX_GRPC_OK && fault_active(FAULT_SIGNAL_UNSPECIFIED_OK) &&
        wire == PROCESS__V1__SIGNAL__SIGNAL_UNSPECIFIED) {
        *signo = 0;
        return SBX_GRPC_OK;
    }
    return code;
}

/* signal-ignored, signal-leader-only, signal-always-kill. */
int fault_send_signal(struct proc *p, int signo)
{
    if (signo == 0 || fault_active(FAULT_SIGNAL_IGNORED)) return 0;
    if (fault_active(FAULT_SIGNAL_LEADER_ONLY)) return proc_signal_leader(p, signo);
    if (fault_active(FAULT_SIGNAL_ALWAYS_KILL)) return proc_signal_group(p, SIGKILL);
    return service_real.send_signal(p, signo);
}

/* resize-no-pty-ok. */
void fault_answer_no_pty(struct sbx_grpc_server_call *call)
{
    if (fault_active(FAULT_RESIZE_NO_PTY_OK))
        svc_answer_empty(call);
    else
        service_real.answer_no_pty(call);
}

/* resize-noop: answered OK, the terminal left as it was. */
int fault_resize(struct proc *p, uint16_t cols, uint16_t rows)
{
    return fault_active(FAULT_RESIZE_NOOP) ? 0 : service_real.resize(p, cols, rows);
}
