/* Start: a server-streaming call that owns one process. InitEvent first
 * (the id is registered before it is queued, P9), then stdout/stderr events
 * of at most --stream-chunk-size bytes as the child produces them (P10),
 * then one ExitEvent once the process exited and its output drained (P7,
 * P11), then status OK. The child's pipe is not read while the call's send
 * queue is above START_PAUSE_BYTES, so memory does not grow with output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "fault.h"
#include "grpc_service/env_keys.h"
#include "grpc_service/service_internal.h"

/* Fault injection: register-late announces the id this long before it
 * becomes valid. */
#define REGISTER_LATE_MS 300

struct start_call {
    struct process_service *svc;
    struct sbx_grpc_server_call *call; /* NULL once finished or released */
    struct proc *p;                    /* NULL once released or detached */
    int32_t id;
    bool init_sent;
    unsigned chunks;    /* output events so far, for the chunk faults */
    uint64_t streamed;  /* output bytes so far */
    uint8_t *space;     /* in-place read: reserved events, see read_space */
    size_t space_event; /* their payload size (at most chunk_size) */
    /* Fault injection state: a held-back chunk (reorder-chunks) and the
     * output held until exit (buffer-until-exit), as [stream][len][bytes]. */
    uint8_t *held;
    size_t held_len;
    enum proc_stream held_stream;
    uint8_t *backlog;
    size_t backlog_len, backlog_cap;
    uv_timer_t *register_timer;
};

static void free_timer(uv_handle_t *h)
{
    free(h);
}

static void start_call_free(struct start_call *c)
{
    if (c->register_timer) {
        uv_timer_stop(c->register_timer);
        uv_close((uv_handle_t *)c->register_timer, free_timer);
    }
    free(c->held);
    free(c->backlog);
    free(c);
}

static void send_init(struct start_call *c)
{
    if (c->init_sent || !c->call) return;
    c->init_sent = true;
    if (fault_active(FAULT_START_NO_INIT)) return;
    Process__V1__InitEvent init = PROCESS__V1__INIT_EVENT__INIT;
    init.process_id = c->id;
    Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
    r.event_case = PROCESS__V1__START_RESPONSE__EVENT_INIT;
    r.init = &init;
    svc_send(c->call, &r.base);
}

/* Kills the process and ends the call when its output cannot be queued. */
static void fail_stream(struct start_call *c, int code, const char *msg)
{
    if (c->call) {
        sbx_grpc_server_call_finish(c->call, code, msg);
        c->call = NULL;
    }
    if (c->p) {
        proc_terminate(c->p, 0);
        proc_unregister(c->p);
        proc_detach(c->p);
        c->p = NULL;
    }
}

/* A StartResponse with stdout (field 2) or stderr (field 3) is the field's
 * tag, the length as a varint and the bytes. Writes the tag and length;
 * returns how many bytes they took. */
static size_t event_head(uint8_t *out, enum proc_stream s, size_t n)
{
    size_t off = 0;
    out[off++] = s == PROC_STDOUT ? 0x12 : 0x1a;
    for (size_t v = n;; v >>= 7) {
        out[off++] = (uint8_t)(v < 0x80 ? v : (v & 0x7f) | 0x80);
        if (v < 0x80) break;
    }
    return off;
}

/* The hot path of a large stream: the bytes are copied once, straight into
 * the call's queue. */
static void send_output(struct start_call *c, enum proc_stream s, const uint8_t *d, size_t n)
{
    if (!c->call) return;
    uint8_t head[16];
    size_t off = event_head(head, s, n);
    c->streamed += n;
    struct iovec parts[2] = {{head, off}, {(void *)(uintptr_t)d, n}};
    int rc = sbx_grpc_server_call_send_messagev(c->call, parts, 2);
    if (rc == SBX_GRPC_SEND_FULL || rc == SBX_GRPC_SEND_INVALID)
        fail_stream(c, SBX_GRPC_RESOURCE_EXHAUSTED, "output could not be queued");
    /* SBX_GRPC_SEND_CLOSED: the call is being cancelled; on_cancel follows. */
}

static void send_chunk(struct start_call *c, enum proc_stream s, const uint8_t *d, size_t n)
{
    c->chunks++;
    if (c->chunks == 3 && fault_active(FAULT_DROP_CHUNK)) return;
    if (c->chunks == 2 && fault_active(FAULT_REORDER_CHUNKS)) {
        c->held = malloc(n ? n : 1); /* an empty event is held too */
        if (c->held) {
            memcpy(c->held, d, n);
            c->held_len = n;
            c->held_stream = s;
        }
        return;
    }
    send_output(c, s, d, n);
    if (!c->init_sent) send_init(c); /* init-late: only after the first output */
    if (c->held && c->chunks == 3) {
        send_output(c, c->held_stream, c->held, c->held_len);
        free(c->held);
        c->held = NULL;
    }
}

static void send_data(struct start_call *c, enum proc_stream s, const uint8_t *d, size_t n)
{
    size_t chunk = c->svc->chunk_size;
    /* Legal variant: reads under 1 KiB go out as an empty event and then events of
     * 1 to 7 bytes (chunking is not fixed by the contract). */
    if (n < 1024 && fault_active(FAULT_VARIANT_TINY_CHUNKS)) {
        send_chunk(c, s, d, 0);
        for (size_t off = 0, k = 0; off < n && c->call; off += k % 7 + 1, k++)
            send_chunk(c, s, d + off, n - off < k % 7 + 1 ? n - off : k % 7 + 1);
        return;
    }
    for (size_t off = 0; off < n && c->call; off += chunk)
        send_chunk(c, s, d + off, n - off < chunk ? n - off : chunk);
}

/* Fault injection (buffer-until-exit): keeps output until the exit, within
 * the Execute bound. */
static void backlog_add(struct start_call *c, enum proc_stream s, const uint8_t *d, size_t n)
{
    size_t need = c->backlog_len + 1 + sizeof(size_t) + n;
    size_t limit = c->svc->exec_limit ? c->svc->exec_limit : (64u << 20);
    if (need > limit) return;
    if (need > c->backlog_cap) {
        size_t cap = c->backlog_cap ? c->backlog_cap * 2 : 65536;
        while (cap < need)
            cap *= 2;
        uint8_t *b = realloc(c->backlog, cap);
        if (!b) return;
        c->backlog = b;
        c->backlog_cap = cap;
    }
    c->backlog[c->backlog_len] = (uint8_t)s;
    memcpy(c->backlog + c->backlog_len + 1, &n, sizeof(n));
    memcpy(c->backlog + c->backlog_len + 1 + sizeof(n), d, n);
    c->backlog_len = need;
}

static void backlog_flush(struct start_call *c)
{
    size_t off = 0;
    while (off < c->backlog_len) {
        enum proc_stream s = (enum proc_stream)c->backlog[off];
        size_t n;
        memcpy(&n, c->backlog + off + 1, sizeof(n));
        send_data(c, s, c->backlog + off + 1 + sizeof(n), n);
        off += 1 + sizeof(n) + n;
    }
    c->backlog_len = 0;
}

/* After output was queued: the end of a failed stream, or backpressure. */
static void after_output(struct start_call *c)
{
    if (!c->call && !c->p) { /* fail_stream ended both */
        start_call_free(c);
        return;
    }
    if (c->call && c->p && sbx_grpc_server_call_queued(c->call) >= START_PAUSE_BYTES)
        proc_pause_output(c->p, true);
}

static void on_output(struct proc *p, enum proc_stream s, const uint8_t *d, size_t n, void *user)
{
    struct start_call *c = user;
    if (proc_has_pty(p) && fault_active(FAULT_PTY_STDERR_SPLIT)) s = PROC_STDERR;
    if (fault_active(FAULT_BUFFER_UNTIL_EXIT)) {
        backlog_add(c, s, d, n);
        return;
    }
    /* Fault injection: reads cut at their first NUL byte (output as C strings). */
    if (fault_active(FAULT_START_TEXT_MODE)) {
        const uint8_t *z = memchr(d, 0, n);
        if (z) n = (size_t)(z - d);
    }
    /* Fault injection: stdout sent line by line, a partial line held back. */
    if (fault_active(FAULT_STREAM_LINE_BUFFERED) && s == PROC_STDOUT) {
        const uint8_t *nl = memrchr(d, '\n', n);
        size_t whole = nl ? (size_t)(nl - d) + 1 : 0;
        if (whole) {
            backlog_flush(c);
            send_data(c, s, d, whole);
        }
        if (n > whole) backlog_add(c, s, d + whole, n - whole);
        after_output(c);
        return;
    }
    send_data(c, s, d, n);
    after_output(c);
}

/* A stream that has produced this much reads its child straight into the
 * call's queue: events of chunk_size bytes laid out with room for their
 * headers, readv(2) into the gaps, headers written afterwards. Quiet
 * streams keep the plain path and its small allocations. */
#define IN_PLACE_AFTER (64u * 1024u)
#define EVENT_PREFIX (SBX_GRPC_PREFIX_LEN + 1) /* message prefix and field tag */

static size_t varint_len(size_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static bool in_place_allowed(const struct start_call *c)
{
    /* Faults that rework the event sequence take the plain path. */
    return c->call && c->init_sent && c->streamed >= IN_PLACE_AFTER &&
           !fault_active(FAULT_BUFFER_UNTIL_EXIT) && !fault_active(FAULT_PTY_STDERR_SPLIT) &&
           !fault_active(FAULT_VARIANT_TINY_CHUNKS) && !fault_active(FAULT_DROP_CHUNK) &&
           !fault_active(FAULT_REORDER_CHUNKS) && !fault_active(FAULT_START_TEXT_MODE) &&
           !fault_active(FAULT_STREAM_LINE_BUFFERED);
}

static size_t read_space(struct proc *p, enum proc_stream s, struct iovec *iov, size_t max_iov,
                         size_t want, void *user)
{
    (void)p;
    (void)s;
    struct start_call *c = user;
    if (!in_place_allowed(c)) return 0;
    /* A chunk size above the read size gives one event per read, as the
     * plain path does. */
    size_t ev = c->svc->chunk_size < want ? c->svc->chunk_size : want;
    size_t slot = EVENT_PREFIX + varint_len(ev) + ev;
    size_t events = (want + ev - 1) / ev;
    if (events > max_iov) events = max_iov;
    c->space = sbx_grpc_server_call_reserve(c->call, events * slot);
    if (!c->space) return 0;
    c->space_event = ev;
    for (size_t i = 0; i < events; i++) {
        iov[i].iov_base = c->space + i * slot + (slot - ev);
        iov[i].iov_len = ev;
    }
    return events;
}

/* Writes the prefix, tag and length of an event of n bytes that ends at
 * slot + head + n, where head is the room left for them; a shorter header
 * moves the bytes down. Returns the event's length. */
static size_t frame_event(uint8_t *slot, size_t head, enum proc_stream s, size_t n)
{
    size_t h = EVENT_PREFIX + varint_len(n);
    if (h < head) memmove(slot + h, slot + head, n);
    sbx_grpc_frame_prefix(slot, false, (uint32_t)(h - SBX_GRPC_PREFIX_LEN + n));
    event_head(slot + SBX_GRPC_PREFIX_LEN, s, n);
    return h + n;
}

static void output_read(struct proc *p, enum proc_stream s, size_t n, void *user)
{
    (void)p;
    struct start_call *c = user;
    size_t ev = c->space_event;
    size_t head = EVENT_PREFIX + varint_len(ev);
    size_t len = 0;
    for (size_t off = 0; off < n; off += ev) {
        size_t k = n - off < ev ? n - off : ev;
        len += frame_event(c->space + len, head, s, k);
        c->chunks++;
    }
    c->streamed += n;
    int rc = c->call ? sbx_grpc_server_call_commit(c->call, len) : SBX_GRPC_SEND_CLOSED;
    if (rc == SBX_GRPC_SEND_FULL || rc == SBX_GRPC_SEND_INVALID)
        fail_stream(c, SBX_GRPC_RESOURCE_EXHAUSTED, "output could not be queued");
    after_output(c);
}

static void on_finished(struct proc *p, int exit_code, void *user)
{
    struct start_call *c = user;
    backlog_flush(c);
    if (c->held) {
        send_output(c, c->held_stream, c->held, c->held_len);
        free(c->held);
        c->held = NULL;
    }
    send_init(c);
    if (c->call) {
        Process__V1__ExitEvent ev = PROCESS__V1__EXIT_EVENT__INIT;
        ev.exit_code = svc_wire_exit_code(exit_code);
        Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
        r.event_case = PROCESS__V1__START_RESPONSE__EVENT_EXIT;
        r.exit = &ev;
        svc_send(c->call, &r.base);
        if (fault_active(FAULT_DOUBLE_EXIT)) svc_send(c->call, &r.base);
        int code = fault_active(FAULT_START_STATUS_UNKNOWN) ? SBX_GRPC_UNKNOWN : SBX_GRPC_OK;
        sbx_grpc_server_call_finish(c->call, code, NULL);
        c->call = NULL;
    }
    /* The stream has ended: the id is no longer valid (P12 SHOULD). */
    proc_unregister(p);
    proc_release(p);
    c->p = NULL;
    start_call_free(c);
}

static void on_writable(struct sbx_grpc_server_call *call, void *user)
{
    struct start_call *c = user;
    (void)call;
    if (c->p) proc_pause_output(c->p, false);
}

static void on_cancel(struct sbx_grpc_server_call *call, void *user,
                      enum sbx_grpc_cancel_reason reason)
{
    struct start_call *c = user;
    sbx_grpc_server_call_release(call);
    c->call = NULL;
    if (!c->p) {
        start_call_free(c);
        return;
    }
    /* P17: a cancelled stream takes its process group with it. */
    bool keep = fault_active(FAULT_CANCEL_NO_KILL) ||
                (reason == SBX_GRPC_CANCEL_DEADLINE && fault_active(FAULT_IGNORE_DEADLINE));
    if (!keep) proc_terminate(c->p, CANCEL_GRACE_MS);
    proc_unregister(c->p);
    proc_detach(c->p);
    c->p = NULL;
    start_call_free(c);
}

static void on_register_late(uv_timer_t *t)
{
    struct start_call *c = t->data;
    if (c->p) proc_register_as(c->p, c->id);
}

static const struct proc_callbacks callbacks = {on_output, on_finished, read_space, output_read};

/* Fault injection: a failure that still looks like a started process. */
static void answer_as_exit(struct sbx_grpc_server_call *call, int exit_code)
{
    Process__V1__InitEvent init = PROCESS__V1__INIT_EVENT__INIT;
    Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
    r.event_case = PROCESS__V1__START_RESPONSE__EVENT_INIT;
    r.init = &init;
    svc_send(call, &r.base);
    Process__V1__ExitEvent ev = PROCESS__V1__EXIT_EVENT__INIT;
    ev.exit_code = exit_code;
    r.event_case = PROCESS__V1__START_RESPONSE__EVENT_EXIT;
    r.exit = &ev;
    svc_send(call, &r.base);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

/* Ends a Start that could not start (P8: no InitEvent, just the status). */
static void answer_error(struct sbx_grpc_server_call *call, int code, const char *msg)
{
    if (fault_active(FAULT_START_ERROR_AFTER_INIT)) {
        Process__V1__InitEvent init = PROCESS__V1__INIT_EVENT__INIT;
        Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
        r.event_case = PROCESS__V1__START_RESPONSE__EVENT_INIT;
        r.init = &init;
        svc_send(call, &r.base);
    }
    sbx_grpc_server_call_finish(call, code, msg);
}

void start_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *user)
{
    struct process_service *svc = user;
    if (svc->refusing) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_UNAVAILABLE, "the daemon is shutting down");
        return;
    }
    if (fault_active(FAULT_SWEEP_START_FAIL)) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INTERNAL, "cannot start processes");
        return;
    }
    Process__V1__StartRequest *req = process__v1__start_request__unpack(NULL, len, msg);
    if (!req) {
        svc_reject_undecodable(call, "StartRequest");
        return;
    }
    char err[512] = "";
    struct launch_spec spec;
    int code;
    if (fault_active(FAULT_UNKNOWN_FIELD_REJECT) && request_unknown_fields(&req->base)) {
        code = SBX_GRPC_INVALID_ARGUMENT;
        snprintf(err, sizeof(err), "unknown fields in request");
        goto fail;
    }
    code = env_keys_check(msg, len, err, sizeof(err));
    if (code != SBX_GRPC_OK) goto fail;
    if (req->config && req->config->n_command == 0 && fault_active(FAULT_EMPTY_COMMAND_OK)) {
        answer_as_exit(call, 127);
        process__v1__start_request__free_unpacked(req, NULL);
        return;
    }
    code = launch_spec_init(
        &spec, req->config,
        req->_pty_case == PROCESS__V1__START_REQUEST___PTY_PTY ? req->pty : NULL, err, sizeof(err));
    if (code != SBX_GRPC_OK) goto fail;

    struct start_call *c = calloc(1, sizeof(*c));
    if (!c) {
        launch_spec_free(&spec);
        code = SBX_GRPC_RESOURCE_EXHAUSTED;
        snprintf(err, sizeof(err), "out of memory");
        goto fail;
    }
    c->svc = svc;
    c->call = call;
    struct launch_mode mode = {.stdin_mode = SPAWN_STDIN_PIPE};
    code = svc_launch(svc, &spec, &mode, &callbacks, c, &c->p, err, sizeof(err));
    launch_spec_free(&spec);
    if (code != SBX_GRPC_OK) {
        free(c);
        if (code == SBX_GRPC_NOT_FOUND && fault_active(FAULT_NOTFOUND_EXIT_127) &&
            strncmp(err, "command not found", 17) == 0) {
            answer_as_exit(call, 127);
            process__v1__start_request__free_unpacked(req, NULL);
            return;
        }
        goto fail;
    }
    process__v1__start_request__free_unpacked(req, NULL);

    /* P9: the id is valid before the InitEvent can reach the client. */
    c->id = proc_register(c->p);
    /* Fault injection (os-pid-ids): the OS pid exposed as the handle. */
    if (c->id > 0 && fault_active(FAULT_OS_PID_IDS)) {
        proc_unregister(c->p);
        c->id = proc_register_as(c->p, (int32_t)proc_pid(c->p)) == 0 ? (int32_t)proc_pid(c->p) : -1;
    }
    if (c->id == -1) { /* ids may be negative (legal variant); -1 is never one */
        fail_stream(c, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        start_call_free(c);
        return;
    }
    if (fault_active(FAULT_REGISTER_LATE)) {
        proc_unregister(c->p);
        c->register_timer = malloc(sizeof(*c->register_timer));
        if (c->register_timer) {
            uv_timer_init(svc->loop, c->register_timer);
            c->register_timer->data = c;
            uv_timer_start(c->register_timer, on_register_late, REGISTER_LATE_MS, 0);
        }
    }
    sbx_grpc_server_call_on_cancel(call, on_cancel, c);
    sbx_grpc_server_call_on_writable(call, 0, on_writable, c);
    if (!fault_active(FAULT_INIT_LATE)) send_init(c);
    return;

fail:
    process__v1__start_request__free_unpacked(req, NULL);
    answer_error(call, code, err);
}
