/* SPDX-License-Identifier: Apache-2.0 */
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

#include "grpc_service/env_keys.h"
#include "grpc_service/service_behaviour.h"
#include "grpc_service/service_internal.h"

struct start_call {
    struct process_service *svc;
    struct sbx_grpc_server_call *call; /* NULL once finished or released */
    struct proc *p;                    /* NULL once released or detached */
    int32_t id;
    bool init_sent;
    uint64_t streamed;  /* output bytes so far */
    uint8_t *space;     /* in-place read: reserved events, see read_space */
    size_t space_event; /* their payload size (at most chunk_size) */
    void *extension;    /* owned by the service_behaviour in use */
};

void start_free_real(struct start_call *c)
{
    free(c);
}

static void start_call_free(struct start_call *c)
{
    service_behaviour->start_free(c);
}

void start_send_init(struct start_call *c)
{
    if (c->init_sent || !c->call) return;
    c->init_sent = true;
    service_behaviour->send_init(c->call, c->id);
}

void svc_send_init_real(struct sbx_grpc_server_call *call, int32_t id)
{
    Process__V1__InitEvent init = PROCESS__V1__INIT_EVENT__INIT;
    init.process_id = id;
    Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
    r.event_case = PROCESS__V1__START_RESPONSE__EVENT_INIT;
    r.init = &init;
    svc_send(call, &r.base);
}

bool start_init_sent(const struct start_call *c)
{
    return c->init_sent;
}

bool start_call_open(const struct start_call *c)
{
    return c->call != NULL;
}

struct proc *start_call_proc(const struct start_call *c)
{
    return c->p;
}

struct process_service *start_call_service(const struct start_call *c)
{
    return c->svc;
}

void **start_call_extension(struct start_call *c)
{
    return &c->extension;
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
void start_send_event(struct start_call *c, enum proc_stream s, const uint8_t *d, size_t n)
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

void start_send_output(struct start_call *c, enum proc_stream s, const uint8_t *d, size_t n)
{
    size_t chunk = c->svc->chunk_size;
    for (size_t off = 0; off < n && c->call; off += chunk)
        start_send_event(c, s, d + off, n - off < chunk ? n - off : chunk);
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

void start_on_output(struct proc *p, enum proc_stream s, const uint8_t *d, size_t n, void *user)
{
    struct start_call *c = user;
    service_behaviour->start_output(c, p, s, d, n);
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
    return c->call && c->init_sent && c->streamed >= IN_PLACE_AFTER;
}

size_t start_read_space(struct proc *p, enum proc_stream s, struct iovec *iov, size_t max_iov,
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

void start_output_read(struct proc *p, enum proc_stream s, size_t n, void *user)
{
    (void)p;
    struct start_call *c = user;
    size_t ev = c->space_event;
    size_t head = EVENT_PREFIX + varint_len(ev);
    size_t len = 0;
    for (size_t off = 0; off < n; off += ev) {
        size_t k = n - off < ev ? n - off : ev;
        len += frame_event(c->space + len, head, s, k);
    }
    c->streamed += n;
    int rc = c->call ? sbx_grpc_server_call_commit(c->call, len) : SBX_GRPC_SEND_CLOSED;
    if (rc == SBX_GRPC_SEND_FULL || rc == SBX_GRPC_SEND_INVALID)
        fail_stream(c, SBX_GRPC_RESOURCE_EXHAUSTED, "output could not be queued");
    after_output(c);
}

void start_on_exit(struct proc *p, int exit_code, void *user)
{
    struct start_call *c = user;
    start_send_init(c);
    if (c->call) {
        service_behaviour->finish_start(c->call, service_behaviour->wire_exit_code(exit_code));
        c->call = NULL;
    }
    /* The stream has ended: the id is no longer valid (P12 SHOULD). */
    proc_unregister(p);
    proc_release(p);
    c->p = NULL;
    start_call_free(c);
}

void svc_finish_start_real(struct sbx_grpc_server_call *call, int32_t exit_code)
{
    Process__V1__ExitEvent ev = PROCESS__V1__EXIT_EVENT__INIT;
    ev.exit_code = exit_code;
    Process__V1__StartResponse r = PROCESS__V1__START_RESPONSE__INIT;
    r.event_case = PROCESS__V1__START_RESPONSE__EVENT_EXIT;
    r.exit = &ev;
    svc_send(call, &r.base);
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

static void on_writable(struct sbx_grpc_server_call *call, void *user)
{
    struct start_call *c = user;
    (void)call;
    if (c->p) proc_pause_output(c->p, false);
}

void start_end_cancelled(struct sbx_grpc_server_call *call, struct start_call *c)
{
    sbx_grpc_server_call_release(call);
    c->call = NULL;
    if (c->p) {
        proc_unregister(c->p);
        proc_detach(c->p);
        c->p = NULL;
    }
    start_call_free(c);
}

void start_on_cancel_real(struct sbx_grpc_server_call *call, void *user,
                          enum sbx_grpc_cancel_reason reason)
{
    struct start_call *c = user;
    (void)reason;
    /* P17: a cancelled stream takes its process group with it, whatever
     * ended it (G5: a passed deadline too). */
    if (c->p) proc_terminate(c->p, CANCEL_GRACE_MS);
    start_end_cancelled(call, c);
}

int32_t svc_register_start_real(struct start_call *c, struct proc *p)
{
    (void)c;
    return proc_register(p);
}

void start_on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len, void *user)
{
    struct process_service *svc = user;
    if (svc->refusing) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_UNAVAILABLE, "the daemon is shutting down");
        return;
    }
    Process__V1__StartRequest *req = process__v1__start_request__unpack(NULL, len, msg);
    if (!req) {
        service_behaviour->reject_undecodable(call, "StartRequest");
        return;
    }
    char err[512] = "";
    struct launch_spec spec;
    int code;
    code = env_keys_check(msg, len, err, sizeof(err));
    if (code != SBX_GRPC_OK) goto fail;
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
    code = service_behaviour->launch(svc, &spec, SVC_START, &service_behaviour->start_process, c,
                                     &c->p, err, sizeof(err));
    launch_spec_free(&spec);
    if (code != SBX_GRPC_OK) {
        free(c);
        goto fail;
    }
    process__v1__start_request__free_unpacked(req, NULL);

    /* P9: the id is valid before the InitEvent can reach the client. */
    c->id = service_behaviour->register_start(c, c->p);
    if (c->id == -1) { /* ids may be negative (P9 fixes no sign); -1 is never one */
        fail_stream(c, SBX_GRPC_RESOURCE_EXHAUSTED, "out of memory");
        start_call_free(c);
        return;
    }
    sbx_grpc_server_call_on_cancel(call, service_behaviour->start_on_cancel, c);
    sbx_grpc_server_call_on_writable(call, 0, on_writable, c);
    service_behaviour->announce_start(c);
    return;

fail:
    process__v1__start_request__free_unpacked(req, NULL);
    service_behaviour->refuse_start(call, code, err);
}
