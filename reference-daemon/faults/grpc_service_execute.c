/* SPDX-License-Identifier: Apache-2.0 */
/* The Execute faults of the fault build (grpc_service_faults.h). Each acts
 * while its fault is on and otherwise calls service_real. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "fault.h"
#include "grpc_service/service_internal.h"
#include "grpc_service_faults.h"
#include "process/proc.h"
#include "sbx_grpc_server.h"

/* deadline-answers-ok: shortly before an Execute's grpc-timeout passes, its
 * process group is killed, and the call is answered as the process's exit
 * (status OK) instead of DEADLINE_EXCEEDED, as the upstream reference does
 * just after the deadline. The margin lets the answer beat the gRPC
 * library's own deadline, a few milliseconds later, on a loaded machine. */
#define DEADLINE_OK_MARGIN_MS 150

struct deadline_kill {
    struct deadline_kill *next;
    struct exec_call *c; /* NULL once the call is over */
    uv_timer_t timer;
};

static struct deadline_kill *deadline_kills;

static void deadline_kill_closed(uv_handle_t *h)
{
    free(h->data);
}

static void deadline_kill_remove(struct deadline_kill *k)
{
    for (struct deadline_kill **pp = &deadline_kills; *pp; pp = &(*pp)->next) {
        if (*pp != k) continue;
        *pp = k->next;
        break;
    }
    uv_timer_stop(&k->timer);
    uv_close((uv_handle_t *)&k->timer, deadline_kill_closed);
}

static void on_deadline_kill(uv_timer_t *t)
{
    struct deadline_kill *k = t->data;
    struct proc *p = k->c ? exec_call_proc(k->c) : NULL;
    if (p) proc_signal_group(p, SIGKILL); /* on_finished then answers OK */
}

static void arm_deadline_kill(struct exec_call *c)
{
    struct sbx_grpc_server_call *call = exec_call_server_call(c);
    int64_t left = call ? sbx_grpc_server_call_deadline_left_ms(call) : -1;
    if (left < 0) return;
    struct deadline_kill *k = calloc(1, sizeof(*k));
    if (!k) return;
    k->c = c;
    k->timer.data = k;
    uv_timer_init(exec_call_service(c)->loop, &k->timer);
    uv_timer_start(&k->timer, on_deadline_kill,
                   left > DEADLINE_OK_MARGIN_MS ? (uint64_t)(left - DEADLINE_OK_MARGIN_MS) : 0, 0);
    k->next = deadline_kills;
    deadline_kills = k;
}

static void disarm_deadline_kill(struct exec_call *c)
{
    for (struct deadline_kill *k = deadline_kills; k; k = k->next) {
        if (k->c != c) continue;
        k->c = NULL;
        deadline_kill_remove(k);
        return;
    }
}

/* serialize-rpcs: one Execute runs at a time; the others wait, in order,
 * with their requests. The daemon has one service, so one queue. */
struct queued_execute {
    struct queued_execute *next;
    struct exec_call *c;
    Process__V1__ExecuteRequest *req;
};

static struct queued_execute *queue_head, **queue_tail = &queue_head;
static struct exec_call *running;
static bool starting; /* run_queued is on the stack */

static void run_queued(void)
{
    if (starting) return;
    starting = true;
    while (!running && queue_head) {
        struct queued_execute *q = queue_head;
        queue_head = q->next;
        if (!queue_head) queue_tail = &queue_head;
        running = q->c;
        struct exec_call *c = q->c;
        Process__V1__ExecuteRequest *req = q->req;
        free(q);
        service_real.execute_run(c, req); /* an answered call is over at once */
    }
    starting = false;
}

void fault_execute_run(struct exec_call *c, Process__V1__ExecuteRequest *req)
{
    if (fault_active(FAULT_DEADLINE_ANSWERS_OK)) arm_deadline_kill(c); /* before: c may end */
    if (!fault_active(FAULT_SERIALIZE_RPCS)) {
        service_real.execute_run(c, req);
        return;
    }
    struct queued_execute *q = malloc(sizeof(*q));
    if (!q) {
        service_real.execute_run(c, req);
        return;
    }
    *q = (struct queued_execute){NULL, c, req};
    *queue_tail = q;
    queue_tail = &q->next;
    run_queued();
}

/* Cancelled while it waited: it never runs. */
static void unqueue(struct exec_call *c)
{
    for (struct queued_execute **pp = &queue_head; *pp; pp = &(*pp)->next) {
        if ((*pp)->c != c) continue;
        struct queued_execute *q = *pp;
        *pp = q->next;
        if (!*pp) queue_tail = pp;
        process__v1__execute_request__free_unpacked(q->req, NULL);
        free(q);
        return;
    }
}

/* The Execute is over: the next one in the queue runs. */
void fault_execute_free(struct exec_call *c)
{
    disarm_deadline_kill(c);
    bool was_running = c == running;
    if (!was_running) unqueue(c);
    service_real.execute_free(c);
    if (was_running) {
        running = NULL;
        run_queued();
    }
}

/* notfound-exit-127: a missing command answered as a process that exited
 * 127. */
void fault_refuse_execute(struct sbx_grpc_server_call *call, int code, const char *msg)
{
    if (code == SBX_GRPC_NOT_FOUND && fault_active(FAULT_NOTFOUND_EXIT_127) &&
        strncmp(msg, "command not found", 17) == 0) {
        fault_answer_as_exit(call, SVC_EXECUTE, 127);
        return;
    }
    service_real.refuse_execute(call, code, msg);
}

/* execute-limit-off: Execute output is unbounded. */
size_t fault_execute_output_limit(const struct daemon_config *cfg)
{
    return fault_active(FAULT_EXECUTE_LIMIT_OFF) ? 0 : service_real.execute_output_limit(cfg);
}

/* exec-truncate-1m: output beyond 1 MiB silently dropped (up to the
 * output limit, which still answers RESOURCE_EXHAUSTED). */
static size_t truncated_len(size_t len)
{
    return fault_active(FAULT_EXEC_TRUNCATE_1M) && len > (1u << 20) ? (1u << 20) : len;
}

/* exec-text-mode: output handled as a C string. */
static size_t text_len(const uint8_t *data, size_t len)
{
    const uint8_t *nul = len && fault_active(FAULT_EXEC_TEXT_MODE) ? memchr(data, 0, len) : NULL;
    return nul ? (size_t)(nul - data) : len;
}

/* exec-truncate-1m, exec-text-mode: the answer carries less output than
 * the process wrote. */
int fault_send_execute_response(struct sbx_grpc_server_call *call,
                                const Process__V1__ExecuteResponse *r)
{
    Process__V1__ExecuteResponse cut = *r;
    cut.stdout.len = text_len(r->stdout.data, truncated_len(r->stdout.len));
    cut.stderr.len = text_len(r->stderr.data, truncated_len(r->stderr.len));
    return service_real.send_execute_response(call, &cut);
}
