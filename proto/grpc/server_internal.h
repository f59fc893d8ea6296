/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVER_INTERNAL_H
#define SBX_GRPC_SERVER_INTERNAL_H
/* Internals shared by the sans-I/O server session (server_session.c and
 * the files of server_call.h) and the libuv glue (server_uv.c). Unit tests
 * drive sessions through this header without sockets. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "sbx_grpc_server.h"
#include "server_output.h"

struct sconn;
struct uv_listener;
struct uv_conn;

struct method_entry {
    char *path;
    struct sbx_grpc_method m;
};

struct sbx_grpc_server {
    uv_loop_t *loop;
    struct sbx_grpc_server_opts opts; /* with defaults filled in */
    struct method_entry *methods;
    size_t n_methods;
    size_t live_calls;   /* call objects alive (stream and/or handler holds them) */
    bool free_requested; /* sbx_grpc_server_free ran while calls were still held */
    /* handler notifications waiting for sbx_grpc_server_dispatch */
    struct sbx_grpc_server_call *pend_head, *pend_tail;
    bool dispatching;
    void (*kick_dispatch)(
        struct sbx_grpc_server *s); /* asks the owner to run sbx_grpc_server_dispatch */
    /* libuv glue */
    struct uv_listener *listeners;
    struct uv_conn *conns;
    size_t n_conns;
    size_t open_handles; /* libuv handles not yet closed */
    bool shutting_down;
    bool hard_closing;
    uv_timer_t grace_timer;
    uv_idle_t dispatch_idle;
    bool handles_init;
    bool final_close_started;
    void (*on_closed)(struct sbx_grpc_server *s, void *user);
    void *on_closed_user;
    bool closed_notified;
    /* released with the server (state owned by registered services) */
    struct {
        void (*fn)(void *arg);
        void *arg;
    } cleanups[4];
    size_t n_cleanups;
    struct out_pool out_pool; /* spare output blocks of all connections */
    /* One read buffer for every connection: the loop reads one socket at a
     * time and each read is consumed before the next (64 KiB per idle
     * connection otherwise). */
    uint8_t *rbuf;
    size_t refused_conns; /* over max_connections */
};

/* Registers fn(arg) to run when the server's memory is released. */
int sbx_grpc_server_add_cleanup(struct sbx_grpc_server *s, void (*fn)(void *arg), void *arg);

/* Delivers pending handler callbacks (on_request, on_half_close,
 * on_writable, on_cancel). Never called from inside nghttp2. */
void sbx_grpc_server_dispatch(struct sbx_grpc_server *s);

/* A call object died: frees a server whose free was requested. */
void sbx_grpc_server_call_gone(struct sbx_grpc_server *s);

const struct method_entry *sbx_grpc_server_find_method(const struct sbx_grpc_server *s,
                                                       const char *path, size_t len);

/* ---- one HTTP/2 server connection, sans-I/O ------------------------------ */

/* want_write: the session has output; the owner should soon call
 * sbx_grpc_sconn_send (never from inside a library call). */
struct sconn *sbx_grpc_sconn_new(struct sbx_grpc_server *srv, void (*want_write)(void *io),
                                 void *io);

/* Feeds received bytes. Returns 0, or -1 if the connection must close
 * (protocol error; a GOAWAY may still be pending in sbx_grpc_sconn_send). */
int sbx_grpc_sconn_recv(struct sconn *c, const uint8_t *data, size_t len);

/* Next chunk of output (valid until the next call), 0 if none, -1 on error.
 * The simple pull interface (tests); the socket glue uses the three below. */
ssize_t sbx_grpc_sconn_send(struct sconn *c, const uint8_t **data);

/* Serialises pending frames until at least want bytes wait to be handed
 * out, or nothing more is pending. Returns the bytes waiting, -1 on a fatal
 * error. */
ssize_t sbx_grpc_sconn_fill(struct sconn *c, size_t want);

/* Hands out waiting output as up to max_iov iovecs, max_bytes in all
 * (*bytes); they stay valid until sbx_grpc_sconn_written covers them. */
size_t sbx_grpc_sconn_next_output(struct sconn *c, struct iovec *iov, size_t max_iov,
                                  size_t max_bytes, size_t *bytes);

/* The first len bytes handed out (in order) were written: releases them. */
void sbx_grpc_sconn_written(struct sconn *c, size_t len);

/* The client preface and the client's first SETTINGS frame arrived. */
bool sbx_grpc_sconn_handshaken(const struct sconn *c);

/* Earliest grpc-timeout or request deadline (monotonic ms) of a live call,
 * -1 if none. */
int64_t sbx_grpc_sconn_next_deadline(const struct sconn *c);

/* Ends calls whose deadline passed with DEADLINE_EXCEEDED, and resets the
 * streams whose request was not complete within request_timeout_ms. */
void sbx_grpc_sconn_expire(struct sconn *c, int64_t now_ms);

/* Graceful: GOAWAY with the last processed stream; running calls go on. */
void sbx_grpc_sconn_goaway(struct sconn *c);

/* True when the session has nothing more to read or write (after GOAWAY
 * with no stream left, or after a fatal error). */
bool sbx_grpc_sconn_finished(const struct sconn *c);

/* Number of open streams. */
size_t sbx_grpc_sconn_streams(const struct sconn *c);

/* The connection is gone (peer closed, I/O error, hard close): every live
 * call is cancelled with reason (callbacks go through sbx_grpc_server_dispatch). */
void sbx_grpc_sconn_lost(struct sconn *c, enum sbx_grpc_cancel_reason reason);

/* Frees the session; calls still held by handlers are detached first. */
void sbx_grpc_sconn_free(struct sconn *c);

#endif
