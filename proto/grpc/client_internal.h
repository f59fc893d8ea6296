/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_CLIENT_INTERNAL_H
#define SBX_GRPC_CLIENT_INTERNAL_H
/* One client connection and its calls as the client's files share them:
 * client_conn.c (the connection and the pump), client_call.c (the calls)
 * and client_response.c (the nghttp2 callbacks that receive responses).
 * Received DATA is acknowledged to the peer only once its messages were
 * read (manual flow control), so unread calls cannot grow without bound. */
#include <nghttp2/nghttp2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client_inbox.h"
#include "client_transport.h"

#define READ_CHUNK 65536
#define OUT_HIGH_WATER 65536
#define DEFAULT_STREAM_WINDOW (1u << 20)
#define DEFAULT_CONN_WINDOW (16u << 20)
#define DEFAULT_MAX_HEADER_LIST 65536u
#define HEADER_ENTRY_OVERHEAD 32 /* RFC 7541 4.1 */
/* A stream the server refused before processing it is sent again on the same
 * connection this many times at most (gRPC's transparent retry). */
#define MAX_REFUSED_RETRIES 3

struct sbx_grpc_call {
    struct sbx_grpc_conn *conn;
    struct sbx_grpc_call *prev, *next; /* conn->calls */
    int32_t stream_id;
    bool ended;
    bool stream_open; /* the nghttp2 stream exists and points at us */
    bool end_stream_seen;
    bool rst_received;
    bool response_headers_done;
    size_t header_bytes;
    struct sbx_grpc_result res;
    struct grpc_inbox inbox; /* received messages, read in place by next() */
    size_t unconsumed;       /* DATA bytes received and not yet acknowledged */
    uint8_t *body;           /* request DATA payload, kept until the server takes the
                                stream (response headers) so a refused stream can be
                                sent again */
    size_t body_len, body_off, max_frame;
    nghttp2_nv *nv; /* request headers (one block with their bytes), kept for a retry */
    size_t n_nv;
    unsigned retries;
    bool body_sent;     /* the last request DATA went out */
    bool retry_pending; /* refused; to be sent again on a new stream */
    bool no_half_close;
    int64_t deadline_ms;
};

struct sbx_grpc_conn {
    nghttp2_session *session;
    const struct sbx_grpc_transport_ops *ops;
    void *ctx;
    bool transport_open;
    bool broken;
    bool user_closed;
    char error[256];
    bool goaway;
    bool peer_settings; /* the server's first SETTINGS arrived */
    /* The start of the last bytes the server sent, for a message that says
     * what was observed when nghttp2 ends the session on bytes that are not
     * HTTP/2. */
    uint8_t first_in[16];
    size_t first_len;
    uint64_t bytes_in;
    int32_t goaway_last_id;
    uint32_t goaway_code;
    char *authority;
    /* Headers for every call (sbx_grpc_conn_opts.extra_headers), copied in
     * one block with their strings. */
    struct sbx_grpc_header_kv *extra_headers;
    size_t n_extra_headers;
    size_t max_recv;
    uint32_t max_header_list;
    uint8_t *out;
    size_t out_len, out_off, out_cap;
    struct sbx_grpc_call *calls;
    size_t n_calls; /* handles not yet freed */
    size_t active;  /* calls whose stream is open */
};

/* ---- the connection (client_conn.c) ------------------------------------- */

void sbx_grpc_client_set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Marks the connection broken (the first reason is kept), ends every call
 * and closes the transport. */
void sbx_grpc_client_break(struct sbx_grpc_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Moves nghttp2 output to the transport until it would block. */
int sbx_grpc_client_flush(struct sbx_grpc_conn *c);
/* Frees a connection the user closed once no call handle is left. */
void sbx_grpc_client_conn_release(struct sbx_grpc_conn *c);

/* ---- calls (client_call.c) ---------------------------------------------- */

void sbx_grpc_client_call_end(struct sbx_grpc_call *call, enum sbx_grpc_end end, int code,
                              const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Acknowledges received bytes to the peer (stream and connection windows). */
void sbx_grpc_client_call_consume(struct sbx_grpc_call *call);
/* Resets the stream of a call that ends locally and detaches it. */
void sbx_grpc_client_call_reset_stream(struct sbx_grpc_call *call, uint32_t code);
/* Opens a stream for the call and queues its headers and body. */
int sbx_grpc_client_call_submit(struct sbx_grpc_call *call);

/* ---- responses (client_response.c) -------------------------------------- */

/* Registers the callbacks that receive responses. */
void sbx_grpc_client_response_callbacks(nghttp2_session_callbacks *cbs);

#endif
