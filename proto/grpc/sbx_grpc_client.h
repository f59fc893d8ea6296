/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_CLIENT_H
#define SBX_GRPC_CLIENT_H
/* gRPC client over HTTP/2 cleartext (h2c, prior knowledge) on nghttp2.
 *
 * One connection carries any number of calls. Nothing runs in the
 * background: every blocking function (sbx_grpc_unary, sbx_grpc_call_next,
 * sbx_grpc_conn_pump) drives the whole connection, so reading one call also
 * receives and queues messages of the others.
 *
 * Memory is bounded by HTTP/2 flow control: received DATA is acknowledged
 * (WINDOW_UPDATE) only once its messages have been read with
 * sbx_grpc_call_next, so a call nobody reads stops its sender once its stream
 * window is full; per call at most one stream window plus one message in
 * reassembly is held.
 *
 * Threads: a connection and its calls are used by one thread at a time;
 * different threads may use different connections freely.
 *
 * The per-call options also produce malformed requests on purpose (raw
 * body, wrong content-type, missing te, odd grpc-timeout, compressed flag,
 * split DATA frames) so conformance cases can provoke edge cases. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx_grpc_status.h"
#include "sbx_grpc_wire.h"

struct sbx_grpc_conn;
struct sbx_grpc_call;

/* ---- connection --------------------------------------------------------- */

struct sbx_grpc_header_kv {
    const char *name;
    const char *value;
};

struct sbx_grpc_conn_opts {
    unsigned connect_timeout_ms;    /* 0 = 5000 */
    uint32_t initial_stream_window; /* our SETTINGS_INITIAL_WINDOW_SIZE; 0 = 1 MiB */
    uint32_t initial_conn_window;   /* connection receive window; 0 = 16 MiB */
    size_t max_recv_message;        /* 0 = 4 MiB (SBX_GRPC_DEFAULT_MAX_RECV_MESSAGE) */
    uint32_t max_header_list;       /* our SETTINGS_MAX_HEADER_LIST_SIZE; 0 = 64 KiB */
    const char *authority;          /* :authority; NULL = the target text */
    /* Headers sent on every call of this connection (e.g. routing or
     * credentials a proxy in front of the server needs), after the call's
     * own: a name the call already sends is not sent again. Names lower case.
     * Copied by sbx_grpc_connect. */
    const struct sbx_grpc_header_kv *extra_headers;
    size_t n_extra_headers;
};

/* target: "host:port", "[v6addr]:port" or "unix:/path". Returns NULL on
 * failure with a message in err (if err_len > 0). The HTTP/2 preface and
 * SETTINGS are sent before returning. */
struct sbx_grpc_conn *sbx_grpc_connect(const char *target, const struct sbx_grpc_conn_opts *opts,
                                       char *err, size_t err_len);

/* Closes the socket and releases the connection. Calls not yet freed stay
 * valid: they end with SBX_GRPC_END_CONNECTION and must still be freed. */
void sbx_grpc_conn_close(struct sbx_grpc_conn *c);

/* False once the connection is broken (I/O error, EOF, GOAWAY received and
 * no stream left, protocol error) or closed; new calls then fail at once. */
bool sbx_grpc_conn_usable(const struct sbx_grpc_conn *c);

/* Why the connection broke ("" while usable). */
const char *sbx_grpc_conn_error(const struct sbx_grpc_conn *c);

/* True once the peer sent GOAWAY; *last_stream_id / *error_code if non-NULL. */
bool sbx_grpc_conn_goaway(const struct sbx_grpc_conn *c, int32_t *last_stream_id,
                          uint32_t *error_code);

/* Drives I/O for up to wait_ms (0 = only what is ready now) and returns as
 * soon as something arrived. Returns 0, or -1 if the connection is broken. */
int sbx_grpc_conn_pump(struct sbx_grpc_conn *c, int wait_ms);

/* Writes bytes straight to the socket, bypassing HTTP/2 (garbage-input
 * cases). Pending HTTP/2 output is flushed first. Returns 0 or -1. */
int sbx_grpc_conn_send_raw(struct sbx_grpc_conn *c, const void *data, size_t len);

/* Number of calls started on this connection and not yet ended. */
size_t sbx_grpc_conn_active_calls(const struct sbx_grpc_conn *c);

/* ---- per-call options ----------------------------------------------------- */

struct sbx_grpc_md {
    char *name;  /* lower case */
    char *value; /* NUL-terminated; value_len excludes the NUL */
    size_t value_len;
};

struct sbx_grpc_call_opts {
    unsigned timeout_ms;          /* sent as grpc-timeout; 0 = no grpc-timeout */
    unsigned wait_ms;             /* local bound on the whole call; 0 = timeout_ms + 5000 when
                                     timeout_ms is set, else 60000. When it passes the call is
                                     cancelled (RST_STREAM CANCEL) and ends with
                                     SBX_GRPC_END_TIMEOUT / DEADLINE_EXCEEDED. */
    const char *grpc_timeout_raw; /* sent verbatim as grpc-timeout (overrides timeout_ms) */
    const char *content_type;     /* NULL = "application/grpc" */
    bool omit_content_type;
    bool omit_te;          /* do not send "te: trailers" */
    const char *method;    /* :method; NULL = "POST" */
    bool raw_body;         /* send the request bytes as the DATA payload verbatim, with
                              no 5-byte prefix (use for truncated/garbage framing) */
    bool compressed_flag;  /* set the compressed flag in the prefix (body not compressed) */
    size_t max_data_frame; /* split the body into DATA frames of at most this many bytes;
                              0 = as large as flow control and the frame size allow */
    bool no_half_close;    /* do not end the request stream after the body */
    const struct sbx_grpc_header_kv *extra_headers; /* sent after the standard ones */
    size_t n_extra_headers;
};

/* ---- call outcome --------------------------------------------------------- */

enum sbx_grpc_end {
    SBX_GRPC_END_NONE = 0,   /* the call has not ended yet */
    SBX_GRPC_END_STATUS,     /* a grpc-status arrived (trailers or trailers-only) */
    SBX_GRPC_END_PROTOCOL,   /* the response broke gRPC rules or a local limit: non-200
                                :status, bad content-type, no grpc-status, truncated or
                                oversized message, compressed flag; `code` is what a gRPC
                                client derives, `error` says what happened */
    SBX_GRPC_END_RESET,      /* the peer reset the stream (`rst_code`) */
    SBX_GRPC_END_CONNECTION, /* the connection broke, was closed or refused the stream */
    SBX_GRPC_END_TIMEOUT,    /* the local wait bound passed; we cancelled the call */
    SBX_GRPC_END_CANCELLED,  /* cancelled locally with sbx_grpc_call_cancel */
};

struct sbx_grpc_result {
    enum sbx_grpc_end end;
    int code;                    /* gRPC status code: the received grpc-status for END_STATUS, else
                                    derived (RESET: CANCELLED/UNAVAILABLE/INTERNAL, CONNECTION:
                                    UNAVAILABLE, TIMEOUT: DEADLINE_EXCEEDED, CANCELLED: CANCELLED) */
    char *message;               /* grpc-message percent-decoded, NULL if absent */
    char *raw_message;           /* grpc-message as received, NULL if absent */
    bool has_grpc_status;        /* a grpc-status header was received */
    int http_status;             /* :status of the response, 0 if no response headers */
    char *content_type;          /* response content-type, NULL if absent */
    bool trailers_only;          /* status came in the only HEADERS frame */
    struct sbx_grpc_md *headers; /* response headers without pseudo headers */
    size_t n_headers;
    struct sbx_grpc_md *trailers;
    size_t n_trailers;
    uint32_t rst_code; /* RST_STREAM error code for END_RESET */
    bool refused;      /* the server refused the stream unprocessed (REFUSED_STREAM, or a
                          stream above a GOAWAY's last stream id): safe to send again. The
                          client already does so on the same connection while it takes new
                          streams; a call still ending so may be sent on a new connection */
    int32_t stream_id;
    size_t n_messages; /* response messages received */
    uint8_t *response; /* sbx_grpc_unary only: the first response message (malloc'd) */
    size_t response_len;
    char error[256]; /* human-readable detail for everything but a clean status */
};

/* Frees the strings and arrays in r and zeroes it. */
void sbx_grpc_result_free(struct sbx_grpc_result *r);

/* Header/trailer lookup (first match, name lower case); NULL if absent. */
const char *sbx_grpc_md_get(const struct sbx_grpc_md *md, size_t n, const char *name);

/* ---- blocking unary call -------------------------------------------------- */

/* Sends one request on path ("/pkg.Service/Method") and waits for the end
 * of the call. The result is filled in every case (free it with
 * sbx_grpc_result_free). Returns result->code, or -1 if the call ended
 * without a gRPC status (END_RESET, END_CONNECTION, END_TIMEOUT). A response
 * carrying more than one message is kept as the first one and counted. */
int sbx_grpc_unary(struct sbx_grpc_conn *c, const char *path, const void *req, size_t req_len,
                   const struct sbx_grpc_call_opts *opts, struct sbx_grpc_result *result);

/* ---- event-driven calls --------------------------------------------------- */

/* Sends the request (headers, one message, END_STREAM unless
 * opts->no_half_close) and returns a handle without waiting for a
 * response. NULL on failure (connection unusable, stream ids exhausted) with
 * the reason in err. opts may be NULL; the handle copies what it needs. */
struct sbx_grpc_call *sbx_grpc_call_start(struct sbx_grpc_conn *c, const char *path,
                                          const void *req, size_t req_len,
                                          const struct sbx_grpc_call_opts *opts, char *err,
                                          size_t err_len);

enum sbx_grpc_next {
    SBX_GRPC_NEXT_MESSAGE = 0, /* *msg, *len: one response message, valid until the next
                                  sbx_grpc_call_next or sbx_grpc_call_free on this call */
    SBX_GRPC_NEXT_END,         /* the call ended with a status (END_STATUS or END_PROTOCOL) */
    SBX_GRPC_NEXT_TIMEOUT,     /* nothing arrived within wait_ms; the call goes on */
    SBX_GRPC_NEXT_ERROR,       /* the call ended without a status: reset, connection,
                                  local wait bound, local cancel */
};

/* Returns the next queued message, else drives the connection for up to
 * wait_ms (0 = do not wait). Once the call has ended, returns END/ERROR every
 * time; the details are in sbx_grpc_call_result. */
int sbx_grpc_call_next(struct sbx_grpc_call *call, int wait_ms, const uint8_t **msg, size_t *len);

/* True if sbx_grpc_call_next would return without waiting. */
bool sbx_grpc_call_ready(const struct sbx_grpc_call *call);

/* Response headers, trailers and status received so far (final once the call
 * ended). Owned by the call. */
const struct sbx_grpc_result *sbx_grpc_call_result(const struct sbx_grpc_call *call);

/* Sends RST_STREAM with CANCEL (no-op once ended); the call ends with
 * SBX_GRPC_END_CANCELLED. */
void sbx_grpc_call_cancel(struct sbx_grpc_call *call);

/* Sends RST_STREAM with an arbitrary HTTP/2 error code (no-op once ended). */
void sbx_grpc_call_reset(struct sbx_grpc_call *call, uint32_t http2_error_code);

/* Cancels the call if still running and frees it. NULL is allowed. */
void sbx_grpc_call_free(struct sbx_grpc_call *call);

#endif
