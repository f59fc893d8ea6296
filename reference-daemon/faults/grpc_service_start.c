/* SPDX-License-Identifier: Apache-2.0 */
/* The Start faults and variants of the fault build (grpc_service_faults.h):
 * how the event sequence is broken, the id announced and the stream
 * ended. Each acts while its fault is on and otherwise calls service_real.
 * What they keep for one call lives in its extension. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "grpc_service_faults.h"

/* register-late announces the id this long before it becomes valid. */
#define REGISTER_LATE_MS 20

struct start_faults {
    unsigned chunks; /* output events so far (drop-chunk, reorder-chunks) */
    /* A held-back event (reorder-chunks) and the output held for later
     * (buffer-until-exit, stream-line-buffered), as [stream][len][bytes]. */
    uint8_t *held;
    size_t held_len;
    enum proc_stream held_stream;
    uint8_t *backlog;
    size_t backlog_len, backlog_cap;
    uv_timer_t *register_timer; /* register-late */
    int32_t late_id;
};

static struct start_faults *state_of(struct start_call *c)
{
    void **ext = start_call_extension(c);
    if (!*ext) *ext = calloc(1, sizeof(struct start_faults));
    return *ext;
}

static void free_timer(uv_handle_t *h)
{
    free(h);
}

void fault_start_free(struct start_call *c)
{
    struct start_faults *f = *start_call_extension(c);
    if (f) {
        if (f->register_timer) {
            uv_timer_stop(f->register_timer);
            uv_close((uv_handle_t *)f->register_timer, free_timer);
        }
        free(f->held);
        free(f->backlog);
        free(f);
        *start_call_extension(c) = NULL;
    }
    service_real.start_free(c);
}

/* One event: drop-chunk loses the third, reorder-chunks sends the second
 * after the third; init-late announces the id after the first output. */
static void send_chunk(struct start_call *c, struct start_faults *f, enum proc_stream s,
                       const uint8_t *d, size_t n)
{
    f->chunks++;
    if (f->chunks == 3 && fault_active(FAULT_DROP_CHUNK)) return;
    if (f->chunks == 2 && fault_active(FAULT_REORDER_CHUNKS)) {
        f->held = malloc(n ? n : 1); /* an empty event is held too */
        if (f->held) {
            memcpy(f->held, d, n);
            f->held_len = n;
            f->held_stream = s;
        }
        return;
    }
    start_send_event(c, s, d, n);
    if (!start_init_sent(c)) start_send_init(c);
    if (f->held && f->chunks == 3) {
        start_send_event(c, f->held_stream, f->held, f->held_len);
        free(f->held);
        f->held = NULL;
    }
}

/* variant-tiny-chunks: reads under 1 KiB go out as an empty event and then
 * events of 1 to 7 bytes (chunking is not fixed by the contract). */
static void send_data(struct start_call *c, struct start_faults *f, enum proc_stream s,
                      const uint8_t *d, size_t n)
{
    if (n < 1024 && fault_active(FAULT_VARIANT_TINY_CHUNKS)) {
        send_chunk(c, f, s, d, 0);
        for (size_t off = 0, k = 0; off < n && start_call_open(c); off += k % 7 + 1, k++)
            send_chunk(c, f, s, d + off, n - off < k % 7 + 1 ? n - off : k % 7 + 1);
        return;
    }
    size_t chunk = start_call_service(c)->chunk_size;
    for (size_t off = 0; off < n && start_call_open(c); off += chunk)
        send_chunk(c, f, s, d + off, n - off < chunk ? n - off : chunk);
}

/* Keeps output for later, within the Execute bound. */
static void backlog_add(struct start_call *c, struct start_faults *f, enum proc_stream s,
                        const uint8_t *d, size_t n)
{
    size_t need = f->backlog_len + 1 + sizeof(size_t) + n;
    size_t bound = start_call_service(c)->exec_limit;
    if (need > (bound ? bound : (64u << 20))) return;
    if (need > f->backlog_cap) {
        size_t cap = f->backlog_cap ? f->backlog_cap * 2 : 65536;
        while (cap < need)
            cap *= 2;
        uint8_t *b = realloc(f->backlog, cap);
        if (!b) return;
        f->backlog = b;
        f->backlog_cap = cap;
    }
    f->backlog[f->backlog_len] = (uint8_t)s;
    memcpy(f->backlog + f->backlog_len + 1, &n, sizeof(n));
    memcpy(f->backlog + f->backlog_len + 1 + sizeof(n), d, n);
    f->backlog_len = need;
}

static void backlog_flush(struct start_call *c, struct start_faults *f)
{
    size_t off = 0;
    while (off < f->backlog_len) {
        enum proc_stream s = (enum proc_stream)f->backlog[off];
        size_t n;
        memcpy(&n, f->backlog + off + 1, sizeof(n));
        send_data(c, f, s, f->backlog + off + 1 + sizeof(n), n);
        off += 1 + sizeof(n) + n;
    }
    f->backlog_len = 0;
}

/* The faults that rework the event sequence. */
static bool reworks_events(void)
{
    return fault_active(FAULT_BUFFER_UNTIL_EXIT) || fault_active(FAULT_PTY_STDERR_SPLIT) ||
           fault_active(FAULT_VARIANT_TINY_CHUNKS) || fault_active(FAULT_DROP_CHUNK) ||
           fault_active(FAULT_REORDER_CHUNKS) || fault_active(FAULT_START_TEXT_MODE) ||
           fault_active(FAULT_STREAM_LINE_BUFFERED);
}

/* The in-place read bypasses start_output: off while the events are
 * reworked. */
size_t fault_start_read_space(struct proc *p, enum proc_stream s, struct iovec *iov, size_t max_iov,
                              size_t want, void *user)
{
    if (reworks_events()) return 0;
    return service_real.start_process.read_space(p, s, iov, max_iov, want, user);
}

/* pty-stderr-split: PTY output labelled stderr; buffer-until-exit;
 * start-text-mode: reads cut at their first NUL byte (output as C
 * strings); stream-line-buffered: stdout sent line by line, a partial line
 * held back. */
void fault_start_output(struct start_call *c, struct proc *p, enum proc_stream s, const uint8_t *d,
                        size_t n)
{
    struct start_faults *f = reworks_events() || fault_active(FAULT_INIT_LATE) ? state_of(c) : NULL;
    if (!f) {
        service_real.start_output(c, p, s, d, n);
        return;
    }
    if (proc_has_pty(p) && fault_active(FAULT_PTY_STDERR_SPLIT)) s = PROC_STDERR;
    if (fault_active(FAULT_BUFFER_UNTIL_EXIT)) {
        backlog_add(c, f, s, d, n);
        return;
    }
    if (fault_active(FAULT_START_TEXT_MODE)) {
        const uint8_t *z = memchr(d, 0, n);
        if (z) n = (size_t)(z - d);
    }
    if (fault_active(FAULT_STREAM_LINE_BUFFERED) && s == PROC_STDOUT) {
        const uint8_t *nl = memrchr(d, '\n', n);
        size_t whole = nl ? (size_t)(nl - d) + 1 : 0;
        if (whole) {
            backlog_flush(c, f);
            send_data(c, f, s, d, whole);
        }
        if (n > whole) backlog_add(c, f, s, d + whole, n - whole);
        return;
    }
    send_data(c, f, s, d, n);
}

/* What buffer-until-exit, stream-line-buffered and reorder-chunks held
 * goes out before the ExitEvent. */
void fault_start_on_exit(struct proc *p, int exit_code, void *user)
{
    struct start_call *c = user;
    struct start_faults *f = *start_call_extension(c);
    if (f) {
        backlog_flush(c, f);
        if (f->held) {
            start_send_event(c, f->held_stream, f->held, f->held_len);
            free(f->held);
            f->held = NULL;
        }
    }
    service_real.start_process.finished(p, exit_code, user);
}

/* start-no-init. */
void fault_send_init(struct sbx_grpc_server_call *call, int32_t id)
{
    if (!fault_active(FAULT_START_NO_INIT)) service_real.send_init(call, id);
}

/* init-late: the InitEvent waits for the first output (or the exit). */
void fault_announce_start(struct start_call *c)
{
    if (!fault_active(FAULT_INIT_LATE)) service_real.announce_start(c);
}

static void on_register_late(uv_timer_t *t)
{
    struct start_call *c = t->data;
    struct start_faults *f = *start_call_extension(c);
    if (start_call_proc(c)) proc_register_as(start_call_proc(c), f->late_id);
}

/* os-pid-ids: the OS pid exposed as the handle; register-late: the id is
 * announced REGISTER_LATE_MS before it becomes valid. */
int32_t fault_register_start(struct start_call *c, struct proc *p)
{
    int32_t id = service_real.register_start(c, p);
    if (id > 0 && fault_active(FAULT_OS_PID_IDS)) {
        proc_unregister(p);
        id = proc_register_as(p, (int32_t)proc_pid(p)) == 0 ? (int32_t)proc_pid(p) : -1;
    }
    if (id != -1 && fault_active(FAULT_REGISTER_LATE)) {
        proc_unregister(p);
        struct start_faults *f = state_of(c);
        if (f) f->register_timer = malloc(sizeof(*f->register_timer));
        if (f && f->register_timer) {
            f->late_id = id;
            uv_timer_init(start_call_service(c)->loop, f->register_timer);
            f->register_timer->data = c;
            uv_timer_start(f->register_timer, on_register_late, REGISTER_LATE_MS, 0);
        }
    }
    return id;
}

/* double-exit, start-status-unknown. */
void fault_finish_start(struct sbx_grpc_server_call *call, int32_t exit_code)
{
    if (!fault_active(FAULT_DOUBLE_EXIT) && !fault_active(FAULT_START_STATUS_UNKNOWN)) {
        service_real.finish_start(call, exit_code);
        return;
    }
    Process__V1__ExitEvent ev = PROCESS__V1__EXIT_EVENT__INIT;
    ev.exit_code = exit_code;
    Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
    r.event_case = PROCESS__V1__START_RESPONSE__EVENT_EXIT;
    r.exit = &ev;
    svc_send(call, &r.base);
    if (fault_active(FAULT_DOUBLE_EXIT)) svc_send(call, &r.base);
    int code = fault_active(FAULT_START_STATUS_UNKNOWN) ? SBX_GRPC_UNKNOWN : SBX_GRPC_OK;
    sbx_grpc_server_call_finish(call, code, NULL);
}

/* notfound-exit-127: a missing command answered as a process that exited
 * 127; start-error-after-init: an InitEvent before the error status. */
void fault_refuse_start(struct sbx_grpc_server_call *call, int code, const char *msg)
{
    if (code == SBX_GRPC_NOT_FOUND && fault_active(FAULT_NOTFOUND_EXIT_127) &&
        strncmp(msg, "command not found", 17) == 0) {
        fault_answer_as_exit(call, SVC_START, 127);
        return;
    }
    if (fault_active(FAULT_START_ERROR_AFTER_INIT)) svc_send_init_real(call, 0);
    service_real.refuse_start(call, code, msg);
}
