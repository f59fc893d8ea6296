/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVER_H
#define SBX_GRPC_SERVER_H
/* gRPC server over HTTP/2 cleartext on nghttp2, driven by a libuv loop the
 * caller owns. Everything (handlers, callbacks) runs on that loop's thread;
 * no function here may be called from another thread.
 *
 * Call lifetime (the one rule): every call handed to a handler must be
 * ended exactly once with sbx_grpc_server_call_finish (or, after the call was
 * cancelled, equivalently sbx_grpc_server_call_release). Until then the handle
 * stays valid memory whatever the peer does, so a late send or finish after
 * a cancellation is harmless (it fails with SBX_GRPC_SEND_CLOSED). After
 * finish/release the handle must not be touched.
 *
 * Callbacks are never invoked from inside another library function called
 * by the handler: they are delivered from the loop, so handlers may call any
 * function of this file from any callback.
 *
 * Output is bounded: each call queues at most `max_call_queue` bytes (sends
 * beyond fail with SBX_GRPC_SEND_FULL); data leaves the queue only as the
 * peer's flow-control window allows; per connection at most
 * `max_conn_output` bytes are handed to uv_write at a time.
 *
 * The process must ignore SIGPIPE (signal(SIGPIPE, SIG_IGN)): libuv writes
 * with write(2), and a peer that closes mid-response would otherwise kill
 * the process. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "sbx_grpc_status.h"
#include "sbx_grpc_wire.h"

struct sbx_grpc_server;
struct sbx_grpc_server_call;
/* libuv's loop (uv_loop_t), declared rather than included: the server runs
 * on the caller's loop, and its users need not see libuv's header. */
struct uv_loop_s;

struct sbx_grpc_server_opts {
    size_t max_recv_message;         /* 0 = 4 MiB; larger: RESOURCE_EXHAUSTED */
    uint32_t max_concurrent_streams; /* SETTINGS_MAX_CONCURRENT_STREAMS; 0 = 1000 */
    uint32_t initial_stream_window;  /* our receive window per stream; 0 = 1 MiB */
    uint32_t max_header_list;        /* SETTINGS_MAX_HEADER_LIST_SIZE; 0 = 16 KiB */
    size_t max_call_queue;           /* per-call send queue bound; 0 = 4 MiB */
    size_t writable_low_water;       /* on_writable fires when the queue drops below; 0 = 64 KiB */
    size_t max_conn_output;          /* bytes in flight in uv_write per connection; 0 = 256 KiB */
    /* Bounds against hostile peers; 0 = no bound for each. */
    size_t max_connections;         /* more are accepted and closed at once */
    unsigned handshake_timeout_ms;  /* client preface and SETTINGS must arrive within */
    unsigned idle_timeout_ms;       /* no open stream this long: GOAWAY, then close */
    unsigned request_timeout_ms;    /* a unary or server-streaming request must be complete
                                       this long after its headers, else RST (CANCEL) */
    unsigned send_stall_timeout_ms; /* response bytes queued that the peer takes none of
                                       this long (its window stays closed, or it does not
                                       read): RST (CANCEL), on_cancel with STALLED */
    /* Admission of each TCP connection within max_connections by its peer's
       address, for limits the caller keeps (a per-client cap): called on the
       loop; false closes the connection at once. Every admitted connection is
       released exactly once, when it closes, with the tag admit set. NULL =
       every peer admitted. */
    bool (*admit_peer)(const struct sockaddr *peer, void **tag, void *user);
    void (*release_peer)(void *tag, void *user);
    void *peer_user;
    /* Response encodings the gRPC protocol leaves to the server; all off /
       NULL is this library's choice. */
    const char *content_type;    /* NULL = "application/grpc"; a "application/grpc+..."
                                    literal, or a string that outlives the server */
    bool omit_status_message;    /* never send grpc-message */
    bool never_trailers_only;    /* a handler's status with no message before it goes out
                                    as response headers, then trailers */
    bool deadline_resets_stream; /* an expired grpc-timeout resets the stream (RST_STREAM
                                    CANCEL, as grpc-go servers do) instead of sending
                                    DEADLINE_EXCEEDED */
    /* The status a call to an unregistered path is answered with; NULL =
       UNIMPLEMENTED. Called on the loop with the request path ("" if none). */
    int (*unknown_method_status)(const char *path, void *user);
    void *unknown_method_user;
};

enum sbx_grpc_method_kind {
    SBX_GRPC_METHOD_UNARY = 0,        /* one request message, one response message */
    SBX_GRPC_METHOD_SERVER_STREAMING, /* one request message, any number of responses */
    SBX_GRPC_METHOD_BIDI_STREAMING,   /* requests delivered one by one as they arrive */
};

/* on_request: UNARY / SERVER_STREAMING: called once, after the client
 * half-closed, with the single request message (zero requests or more than
 * one are answered with INTERNAL by the library). BIDI: called for every
 * request message as soon as it is complete; then on_half_close (may be
 * NULL) once the client ended its side. msg is valid during the callback
 * only. Invalid protobuf is the handler's business (answer INTERNAL or
 * INVALID_ARGUMENT with sbx_grpc_server_call_finish). */
struct sbx_grpc_method {
    const char *path; /* "/package.Service/Method"; copied */
    enum sbx_grpc_method_kind kind;
    void (*on_request)(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                       void *user);
    void (*on_half_close)(struct sbx_grpc_server_call *call, void *user);
    void *user;
};

enum sbx_grpc_cancel_reason {
    SBX_GRPC_CANCEL_RESET = 1,  /* the client sent RST_STREAM */
    SBX_GRPC_CANCEL_CONNECTION, /* the connection was lost or closed */
    SBX_GRPC_CANCEL_DEADLINE,   /* grpc-timeout passed; DEADLINE_EXCEEDED was sent */
    SBX_GRPC_CANCEL_SHUTDOWN,   /* sbx_grpc_server_close / the shutdown grace ran out */
    SBX_GRPC_CANCEL_PROTOCOL,   /* the request broke the protocol (e.g. a message over the
                                   limit mid-stream); the library sent the status */
    SBX_GRPC_CANCEL_STALLED,    /* the peer took none of the queued response for
                                   send_stall_timeout_ms; the stream was reset */
};

enum sbx_grpc_send_result {
    SBX_GRPC_SEND_OK = 0,
    SBX_GRPC_SEND_CLOSED = -1, /* cancelled, finished or the stream is gone */
    SBX_GRPC_SEND_FULL = -2,   /* queue would exceed max_call_queue; nothing queued */
    SBX_GRPC_SEND_INVALID = -3 /* bad argument (message > 4 GiB, NULL data with len) */
};

/* ---- server ------------------------------------------------------------- */

/* opts may be NULL. Returns NULL on allocation failure. */
struct sbx_grpc_server *sbx_grpc_server_new(struct uv_loop_s *loop,
                                            const struct sbx_grpc_server_opts *opts);

/* Registers a handler (before or after listening). Returns 0, or -1 if the
 * path is already registered or invalid. Unregistered paths are answered
 * UNIMPLEMENTED (trailers-only). */
int sbx_grpc_server_add_method(struct sbx_grpc_server *s, const struct sbx_grpc_method *m);

/* Listens on host:port (host is an IPv4 or IPv6 literal or a name; port 0 =
 * ephemeral). *bound_port (may be NULL) receives the actual port. Returns 0
 * or -1 with a message in err. May be called several times. */
int sbx_grpc_server_listen_tcp(struct sbx_grpc_server *s, const char *host, int port,
                               int *bound_port, char *err, size_t err_len);

/* Listens on a Unix socket path (an existing socket file there is
 * replaced). Returns 0 or -1 with a message in err. */
int sbx_grpc_server_listen_unix(struct sbx_grpc_server *s, const char *path, char *err,
                                size_t err_len);

/* Graceful shutdown: stops listening, sends GOAWAY on every connection,
 * lets active calls finish, closes each connection when it has no call
 * left. When grace_ms (> 0) passes first, the remaining calls are cancelled
 * (SBX_GRPC_CANCEL_SHUTDOWN) and the connections closed. on_closed (may be
 * NULL) runs on the loop once every handle of the server is closed. */
void sbx_grpc_server_shutdown(struct sbx_grpc_server *s, unsigned grace_ms,
                              void (*on_closed)(struct sbx_grpc_server *s, void *user), void *user);

/* Hard close: like shutdown with the grace already over. */
void sbx_grpc_server_close(struct sbx_grpc_server *s,
                           void (*on_closed)(struct sbx_grpc_server *s, void *user), void *user);

/* Frees the server. Only after on_closed ran (it may be called from
 * on_closed), or if the server never listened. Calls still held by handlers
 * stay valid until finished. */
void sbx_grpc_server_free(struct sbx_grpc_server *s);

/* Number of open connections and of calls not yet finished/released. */
size_t sbx_grpc_server_connections(const struct sbx_grpc_server *s);
size_t sbx_grpc_server_active_calls(const struct sbx_grpc_server *s);

/* ---- calls (handler side) ------------------------------------------------- */

/* Queues one response message (framed by the library). The response
 * headers go out with the first message. Returns an sbx_grpc_send_result. */
int sbx_grpc_server_call_send_message(struct sbx_grpc_server_call *call, const void *msg,
                                      size_t len);

/* The same for a message given in parts (their concatenation): saves the
 * caller assembling it, e.g. a small header before a large payload. */
int sbx_grpc_server_call_send_messagev(struct sbx_grpc_server_call *call, const struct iovec *parts,
                                       size_t n_parts);

/* Messages built in place, for a handler that reads many of them at once
 * (e.g. readv(2) between their headers): space for up to cap bytes of
 * complete messages, each the 5-byte prefix (sbx_grpc_frame_prefix) and its
 * body. Valid until sbx_grpc_server_call_commit, which must come before any
 * other call into this library. NULL when the call cannot send any more or
 * cap would take its queue beyond max_call_queue. */
uint8_t *sbx_grpc_server_call_reserve(struct sbx_grpc_server_call *call, size_t cap);

/* Queues the first len bytes written at the reserved space (0 queues
 * nothing). Returns an sbx_grpc_send_result. */
int sbx_grpc_server_call_commit(struct sbx_grpc_server_call *call, size_t len);

/* Bytes queued on this call and not yet accepted by the peer's window. */
size_t sbx_grpc_server_call_queued(const struct sbx_grpc_server_call *call);

/* on_writable runs (on the loop) each time the queue drops below
 * low_water (0 = the server's writable_low_water) after having been at or
 * above it, or after a send failed with SBX_GRPC_SEND_FULL. NULL disables. */
void sbx_grpc_server_call_on_writable(struct sbx_grpc_server_call *call, size_t low_water,
                                      void (*on_writable)(struct sbx_grpc_server_call *call,
                                                          void *user),
                                      void *user);

/* on_cancel runs at most once, when the call ends before the handler's
 * finish was delivered (see enum sbx_grpc_cancel_reason). The handler must
 * still call sbx_grpc_server_call_finish or sbx_grpc_server_call_release afterwards, from
 * the callback or later. If the call was already cancelled when this is
 * set, on_cancel is scheduled at once. */
void sbx_grpc_server_call_on_cancel(struct sbx_grpc_server_call *call,
                                    void (*on_cancel)(struct sbx_grpc_server_call *call, void *user,
                                                      enum sbx_grpc_cancel_reason reason),
                                    void *user);

/* Adds response metadata: before the first message (headers) or before
 * finish (trailers, once headers went out). Name must be lower case.
 * Returns 0, or -1 if invalid or too late. */
int sbx_grpc_server_call_add_metadata(struct sbx_grpc_server_call *call, const char *name,
                                      const char *value);

/* Ends the call: queued messages are sent first, then trailers with
 * grpc-status and grpc-message (percent-encoded; NULL or "" = none).
 * Nothing sent yet: a trailers-only response. Releases the handler's
 * reference: the handle must not be used afterwards. Also valid after a
 * cancellation (then it only releases). */
void sbx_grpc_server_call_finish(struct sbx_grpc_server_call *call, int code, const char *message);

/* Releases the handler's reference without sending a status. If the call
 * is still live it is reset (RST_STREAM CANCEL). */
void sbx_grpc_server_call_release(struct sbx_grpc_server_call *call);

/* True once the call was cancelled (on_cancel may still be pending). */
bool sbx_grpc_server_call_cancelled(const struct sbx_grpc_server_call *call);

/* The request's :path; valid until finish/release. */
const char *sbx_grpc_server_call_path(const struct sbx_grpc_server_call *call);

/* A request header value (lower case name), NULL if absent; valid until
 * finish/release. */
const char *sbx_grpc_server_call_header(const struct sbx_grpc_server_call *call, const char *name);

/* Milliseconds left until the grpc-timeout deadline; -1 without deadline. */
int64_t sbx_grpc_server_call_deadline_left_ms(const struct sbx_grpc_server_call *call);

/* Opaque per-call pointer for the handler. */
void sbx_grpc_server_call_set_user(struct sbx_grpc_server_call *call, void *user);
void *sbx_grpc_server_call_get_user(const struct sbx_grpc_server_call *call);

#endif
