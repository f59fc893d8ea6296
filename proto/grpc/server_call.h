/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVER_CALL_H
#define SBX_GRPC_SERVER_CALL_H
/* One server call and its connection as the sans-I/O session files share
 * them: server_call.c (memory, references, notifications),
 * server_request.c (what the client sends), server_response.c (what goes
 * back), server_session.c (the connection) and server_handler_api.c (the
 * handler's side of sbx_grpc_server.h). */
#include <nghttp2/nghttp2.h>

#include "server_internal.h"

struct kv {
    char *name;
    char *value;
};

struct req_msg {
    struct req_msg *next;
    uint8_t *data;
    size_t len;
};

enum notify {
    N_REQUEST = 1,
    N_HALF_CLOSE = 2,
    N_CANCEL = 4,
    N_WRITABLE = 8,
};

struct sbx_grpc_server_call {
    struct sconn *conn; /* NULL once detached from the connection */
    struct sbx_grpc_server_call *prev, *next;
    int32_t stream_id;
    int refs;              /* stream + handler + pending notification */
    bool stream_attached;  /* the nghttp2 stream points at us */
    bool handler_owned;    /* the handler received the call */
    bool handler_done;     /* finish/release called */
    bool rejected;         /* the library answered; ignore further input */
    bool status_submitted; /* trailers (or trailers-only) submitted */
    bool half_closed;
    bool rst_received;
    bool cancelled;
    bool cancel_notified;
    enum sbx_grpc_cancel_reason cancel_reason;
    const struct method_entry *method;
    char *path;
    char *http_method;
    char *content_type;
    char *timeout;
    struct kv *hdrs;
    size_t n_hdrs;
    size_t header_bytes;
    bool headers_too_large;
    int64_t deadline_ms;         /* 0 = none */
    int64_t request_deadline_ms; /* the request must be complete by then; 0 = none */
    int64_t stall_since_ms;      /* queued response bytes last moved then; 0 = queue empty */
    struct sbx_grpc_deframer deframer;
    struct req_msg *req_head, *req_tail; /* complete requests not yet delivered */
    size_t n_requests;
    /* response */
    bool headers_sent;
    bool data_deferred;
    struct msg_queue q; /* framed messages the peer's window has not taken yet */
    size_t reserved;    /* bytes of the last sbx_grpc_server_call_reserve */
    size_t low_water;
    bool writable_armed;
    bool finish_pending;
    int status_code;
    char *status_message;
    struct kv *md; /* metadata added by the handler, not yet sent */
    size_t n_md;
    /* notifications */
    unsigned pending;
    struct sbx_grpc_server_call *pend_next;
    bool in_pending;
    void (*on_cancel)(struct sbx_grpc_server_call *, void *, enum sbx_grpc_cancel_reason);
    void *on_cancel_user;
    void (*on_writable)(struct sbx_grpc_server_call *, void *);
    void *on_writable_user;
    void *user;
    struct sbx_grpc_server *srv;
};

struct sconn {
    struct sbx_grpc_server *srv;
    nghttp2_session *session;
    void (*want_write)(void *io);
    void *io;
    struct sbx_grpc_server_call *calls;
    size_t streams;
    bool fatal;
    bool handshaken;     /* the client's SETTINGS arrived (after its preface) */
    struct out_list out; /* serialised output waiting for the socket */
    size_t fill_want;    /* sbx_grpc_sconn_fill stops serialising at this many unsent bytes */
    size_t pulled;       /* sbx_grpc_sconn_send: bytes handed out by the previous call */
};

/* ---- call memory and notifications (server_call.c) ---------------------- */

void sbx_grpc_skv_free(struct kv *a, size_t n);
int sbx_grpc_skv_add(struct kv **a, size_t *n, const char *name, size_t nlen, const char *value,
                     size_t vlen);
/* Frees the response bytes still queued. */
void sbx_grpc_scall_drop_queue(struct sbx_grpc_server_call *call);
/* Frees the requests not yet delivered. */
void sbx_grpc_scall_drop_requests(struct sbx_grpc_server_call *call);
/* Detaches the call from its connection's list. */
void sbx_grpc_scall_unlink(struct sbx_grpc_server_call *call);
/* Drops one reference; the last one frees the call. */
void sbx_grpc_scall_unref(struct sbx_grpc_server_call *call);
/* Queues notifications (enum notify bits) for sbx_grpc_server_dispatch. */
void sbx_grpc_scall_schedule(struct sbx_grpc_server_call *call, unsigned what);
/* Tells the connection's owner there is output. */
void sbx_grpc_sconn_kick(struct sconn *c);
/* Marks a call cancelled and, if the handler holds it, queues on_cancel. */
void sbx_grpc_scall_cancel(struct sbx_grpc_server_call *call, enum sbx_grpc_cancel_reason reason);

/* ---- responses (server_response.c) -------------------------------------- */

/* Submits the status: trailers, or a trailers-only response. */
void sbx_grpc_scall_submit_status(struct sbx_grpc_server_call *call, int code, const char *message);
/* Ends a call from the library side (reject, deadline, protocol error). */
void sbx_grpc_scall_library_status(struct sbx_grpc_server_call *call, int code, const char *message,
                                   enum sbx_grpc_cancel_reason reason);
/* Answers with a bare HTTP status (not a gRPC request). */
void sbx_grpc_scall_http_reject(struct sbx_grpc_server_call *call, const char *status);
/* Submits the response headers with the deferred data provider, once. */
void sbx_grpc_scall_ensure_headers(struct sbx_grpc_server_call *call);
/* Registers the callbacks that emit DATA frames from the calls' queues. */
void sbx_grpc_server_response_callbacks(nghttp2_session_callbacks *cbs);

/* ---- requests (server_request.c) ---------------------------------------- */

/* Registers the callbacks that receive requests. */
void sbx_grpc_server_request_callbacks(nghttp2_session_callbacks *cbs);

#endif
