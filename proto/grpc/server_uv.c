/* SPDX-License-Identifier: Apache-2.0 */
/* The server's libuv glue: listeners, accepted connections feeding their
 * sans-I/O sessions, bounded uv_write output, deadline timers, handler
 * callback delivery and shutdown. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_transport.h" /* sbx_grpc_now_ms */
#include "server_internal.h"

#define READ_BUF 65536
/* One writev: up to WRITE_IOV pieces, WRITE_BATCH bytes. */
#define WRITE_IOV 64
#define WRITE_BATCH (256u * 1024u)

struct uv_listener {
    struct uv_listener *next;
    struct sbx_grpc_server *srv;
    union {
        uv_tcp_t tcp;
        uv_pipe_t pipe;
        uv_handle_t handle;
        uv_stream_t stream;
    } h;
    bool is_pipe;
    char *path; /* Unix socket file to remove on close */
};

struct uv_conn {
    struct uv_conn *prev, *next;
    struct sbx_grpc_server *srv;
    union {
        uv_tcp_t tcp;
        uv_pipe_t pipe;
        uv_handle_t handle;
        uv_stream_t stream;
    } h;
    uv_timer_t timer;
    uv_idle_t flush_idle;
    struct sconn *sc;
    size_t outstanding;
    int handles_open;
    bool closing;
    bool reading;
    bool idle_goaway;      /* the idle timeout sent GOAWAY */
    int64_t accepted_ms;   /* for the handshake deadline */
    int64_t idle_since_ms; /* no stream open since then; 0 while one is */
    bool admitted;         /* admit_peer said yes: release_peer at the close */
    void *peer_tag;
};

/* Output the socket did not take at once; its bytes stay in the session's
 * output list until the write completes. */
struct write_req {
    uv_write_t req;
    struct uv_conn *conn;
    size_t len;
};

static void server_maybe_finish_close(struct sbx_grpc_server *s);

/* ---- registry ------------------------------------------------------------ */

const struct method_entry *sbx_grpc_server_find_method(const struct sbx_grpc_server *s,
                                                       const char *path, size_t len)
{
    for (size_t i = 0; i < s->n_methods; i++) {
        const struct method_entry *e = &s->methods[i];
        if (strlen(e->path) == len && memcmp(e->path, path, len) == 0) return e;
    }
    return NULL;
}

int sbx_grpc_server_add_method(struct sbx_grpc_server *s, const struct sbx_grpc_method *m)
{
    if (!m || !m->path || m->path[0] != '/' || !m->on_request ||
        sbx_grpc_server_find_method(s, m->path, strlen(m->path)))
        return -1;
    /* Entries are referenced by live calls: the array never moves once a
     * call could point into it, so it is sized once. */
    if (s->n_methods == 64) return -1;
    if (!s->methods) {
        s->methods = calloc(64, sizeof *s->methods);
        if (!s->methods) return -1;
    }
    struct method_entry *e = &s->methods[s->n_methods];
    e->path = strdup(m->path);
    if (!e->path) return -1;
    e->m = *m;
    e->m.path = e->path;
    s->n_methods++;
    return 0;
}

/* ---- server object -------------------------------------------------------- */

static void dispatch_idle_cb(uv_idle_t *h)
{
    struct sbx_grpc_server *s = h->data;
    uv_idle_stop(h);
    sbx_grpc_server_dispatch(s);
}

static void kick_dispatch(struct sbx_grpc_server *s)
{
    uv_idle_start(&s->dispatch_idle, dispatch_idle_cb);
}

static void ensure_handles(struct sbx_grpc_server *s)
{
    if (s->handles_init) return;
    uv_timer_init(s->loop, &s->grace_timer);
    uv_idle_init(s->loop, &s->dispatch_idle);
    s->grace_timer.data = s;
    s->dispatch_idle.data = s;
    s->handles_init = true;
    s->open_handles += 2;
    s->kick_dispatch = kick_dispatch;
}

struct sbx_grpc_server *sbx_grpc_server_new(uv_loop_t *loop,
                                            const struct sbx_grpc_server_opts *opts)
{
    struct sbx_grpc_server *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->loop = loop;
    if (opts) s->opts = *opts;
    struct sbx_grpc_server_opts *o = &s->opts;
    if (!o->max_recv_message) o->max_recv_message = SBX_GRPC_DEFAULT_MAX_RECV_MESSAGE;
    if (!o->max_concurrent_streams) o->max_concurrent_streams = 1000;
    if (!o->initial_stream_window) o->initial_stream_window = 1u << 20;
    if (o->initial_stream_window > (1u << 31) - 1) o->initial_stream_window = (1u << 31) - 1;
    if (!o->max_header_list) o->max_header_list = 16384;
    if (!o->max_call_queue) o->max_call_queue = 4u << 20;
    if (!o->writable_low_water) o->writable_low_water = 65536;
    if (!o->max_conn_output) o->max_conn_output = 256u * 1024;
    return s;
}

int sbx_grpc_server_add_cleanup(struct sbx_grpc_server *s, void (*fn)(void *arg), void *arg)
{
    if (s->n_cleanups == sizeof s->cleanups / sizeof s->cleanups[0]) return -1;
    s->cleanups[s->n_cleanups].fn = fn;
    s->cleanups[s->n_cleanups].arg = arg;
    s->n_cleanups++;
    return 0;
}

static void really_free(struct sbx_grpc_server *s)
{
    for (size_t i = 0; i < s->n_cleanups; i++)
        s->cleanups[i].fn(s->cleanups[i].arg);
    for (size_t i = 0; i < s->n_methods; i++)
        free(s->methods[i].path);
    free(s->methods);
    sbx_grpc_out_pool_clear(&s->out_pool);
    free(s->rbuf);
    free(s);
}

void sbx_grpc_server_call_gone(struct sbx_grpc_server *s)
{
    if (s->free_requested && s->live_calls == 0) really_free(s);
}

void sbx_grpc_server_free(struct sbx_grpc_server *s)
{
    if (!s) return;
    s->kick_dispatch = NULL;
    /* Deliver what is still pending (cancellations) so handlers can release. */
    sbx_grpc_server_dispatch(s);
    if (s->handles_init && !s->closed_notified) {
        /* Its handles are still on the loop: freeing would corrupt it. */
        fprintf(stderr, "sbx_grpc_server_free: server still open; close it first\n");
        return;
    }
    if (s->live_calls > 0) {
        s->free_requested = true;
        return;
    }
    really_free(s);
}

size_t sbx_grpc_server_connections(const struct sbx_grpc_server *s)
{
    return s->n_conns;
}

size_t sbx_grpc_server_active_calls(const struct sbx_grpc_server *s)
{
    return s->live_calls;
}

/* ---- connections ---------------------------------------------------------- */

static void conn_flush(struct uv_conn *uc);
static void conn_close(struct uv_conn *uc, enum sbx_grpc_cancel_reason reason);

static void conn_handle_closed(uv_handle_t *h)
{
    struct uv_conn *uc = h->data;
    if (--uc->handles_open > 0) return;
    struct sbx_grpc_server *s = uc->srv;
    if (uc->admitted) s->opts.release_peer(uc->peer_tag, s->opts.peer_user);
    sbx_grpc_sconn_free(uc->sc);
    free(uc);
    s->n_conns--;
    if (s->n_conns == 0) {
        /* Idle: give the spares back, and the heap pages the sessions of
         * many closed connections left scattered (glibc keeps them). */
        sbx_grpc_out_pool_clear(&s->out_pool);
        malloc_trim(0);
    }
    server_maybe_finish_close(s);
}

static void conn_close(struct uv_conn *uc, enum sbx_grpc_cancel_reason reason)
{
    if (uc->closing) return;
    uc->closing = true;
    struct sbx_grpc_server *s = uc->srv;
    if (uc->prev)
        uc->prev->next = uc->next;
    else
        s->conns = uc->next;
    if (uc->next) uc->next->prev = uc->prev;
    sbx_grpc_sconn_lost(uc->sc, reason);
    uv_close((uv_handle_t *)&uc->timer, conn_handle_closed);
    uv_close((uv_handle_t *)&uc->flush_idle, conn_handle_closed);
    uv_close(&uc->h.handle, conn_handle_closed);
}

/* The connection's own deadlines: handshake, then idle (-1 when none). */
static int64_t conn_deadline(const struct uv_conn *uc)
{
    const struct sbx_grpc_server_opts *o = &uc->srv->opts;
    if (!sbx_grpc_sconn_handshaken(uc->sc))
        return o->handshake_timeout_ms ? uc->accepted_ms + o->handshake_timeout_ms : -1;
    if (uc->idle_since_ms && o->idle_timeout_ms && !uc->idle_goaway)
        return uc->idle_since_ms + o->idle_timeout_ms;
    return -1;
}

static void deadline_cb(uv_timer_t *t)
{
    struct uv_conn *uc = t->data;
    if (uc->closing) return;
    int64_t now = sbx_grpc_now_ms(), own = conn_deadline(uc);
    if (own >= 0 && own <= now) {
        if (!sbx_grpc_sconn_handshaken(uc->sc)) {
            /* Not an HTTP/2 client, or one that never finished its preface. */
            conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
            return;
        }
        uc->idle_goaway = true; /* closes once the GOAWAY is out (no stream is open) */
        sbx_grpc_sconn_goaway(uc->sc);
    }
    sbx_grpc_sconn_expire(uc->sc, now);
    conn_flush(uc);
}

static void rearm_timer(struct uv_conn *uc)
{
    if (sbx_grpc_sconn_streams(uc->sc) > 0)
        uc->idle_since_ms = 0;
    else if (!uc->idle_since_ms)
        uc->idle_since_ms = sbx_grpc_now_ms();
    int64_t d = sbx_grpc_sconn_next_deadline(uc->sc), own = conn_deadline(uc);
    if (own >= 0 && (d < 0 || own < d)) d = own;
    if (d < 0) {
        uv_timer_stop(&uc->timer);
        return;
    }
    int64_t left = d - sbx_grpc_now_ms();
    uv_timer_start(&uc->timer, deadline_cb, left > 0 ? (uint64_t)left : 0, 0);
}

static void on_write(uv_write_t *req, int status)
{
    struct write_req *w = (struct write_req *)req;
    struct uv_conn *uc = w->conn;
    uc->outstanding -= w->len;
    if (!uc->closing && status == 0) sbx_grpc_sconn_written(uc->sc, w->len);
    free(w);
    if (uc->closing) return;
    if (status < 0) {
        conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
        return;
    }
    conn_flush(uc);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    struct uv_conn *uc = h->data;
    struct sbx_grpc_server *s = uc->srv;
    if (!s->rbuf) s->rbuf = malloc(READ_BUF);
    /* A null buffer makes libuv report UV_ENOBUFS: the connection closes. */
    *buf = uv_buf_init((char *)s->rbuf, s->rbuf ? READ_BUF : 0);
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    struct uv_conn *uc = st->data;
    if (uc->closing) return;
    if (nread < 0) {
        conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
        return;
    }
    if (nread == 0) return;
    if (sbx_grpc_sconn_recv(uc->sc, uc->srv->rbuf, (size_t)nread) < 0) {
        /* Fatal protocol error: stop reading, let a GOAWAY out, then close. */
        uv_read_stop(st);
        uc->reading = false;
    }
    conn_flush(uc);
}

static void flush_idle_cb(uv_idle_t *h)
{
    struct uv_conn *uc = h->data;
    uv_idle_stop(h);
    if (!uc->closing) conn_flush(uc);
}

static void want_write(void *io)
{
    struct uv_conn *uc = io;
    if (!uc->closing) uv_idle_start(&uc->flush_idle, flush_idle_cb);
}

/* Writes session output straight from its blocks: a synchronous writev
 * when nothing is in flight, uv_write for what the socket did not take,
 * keeping at most max_conn_output in flight. */
static void conn_flush(struct uv_conn *uc)
{
    struct sbx_grpc_server *s = uc->srv;
    while (!uc->closing && uc->outstanding < s->opts.max_conn_output) {
        if (sbx_grpc_sconn_fill(uc->sc, WRITE_BATCH) < 0) {
            conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
            return;
        }
        struct iovec iov[WRITE_IOV];
        uv_buf_t bufs[WRITE_IOV];
        size_t bytes;
        size_t n = sbx_grpc_sconn_next_output(uc->sc, iov, WRITE_IOV, WRITE_BATCH, &bytes);
        if (n == 0) break;
        for (size_t i = 0; i < n; i++)
            bufs[i] = uv_buf_init(iov[i].iov_base, (unsigned)iov[i].iov_len);
        size_t done = 0;
        if (uc->outstanding == 0) {
            int rv = uv_try_write(&uc->h.stream, bufs, (unsigned)n);
            if (rv < 0 && rv != UV_EAGAIN) {
                conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
                return;
            }
            done = rv > 0 ? (size_t)rv : 0;
            sbx_grpc_sconn_written(uc->sc, done);
        }
        if (done == bytes) continue;
        size_t left = bytes - done, first = 0;
        while (done >= bufs[first].len) {
            done -= bufs[first].len;
            first++;
        }
        bufs[first].base += done;
        bufs[first].len -= done;
        struct write_req *w = malloc(sizeof *w);
        if (!w) {
            conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
            return;
        }
        w->conn = uc;
        w->len = left;
        if (uv_write(&w->req, &uc->h.stream, bufs + first, (unsigned)(n - first), on_write) < 0) {
            free(w);
            conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
            return;
        }
        uc->outstanding += left;
    }
    if (uc->closing) return;
    /* Input waits while output is backed up, so a peer that does not read
     * cannot make us queue without bound. */
    if (uc->reading && uc->outstanding >= s->opts.max_conn_output) {
        uv_read_stop(&uc->h.stream);
        uc->reading = false;
    } else if (!uc->reading && uc->outstanding < s->opts.max_conn_output / 2 &&
               !sbx_grpc_sconn_finished(uc->sc)) {
        uv_read_start(&uc->h.stream, alloc_cb, on_read);
        uc->reading = true;
    }
    if (sbx_grpc_sconn_finished(uc->sc) && uc->outstanding == 0) {
        conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
        return;
    }
    rearm_timer(uc);
}

static void on_connection(uv_stream_t *server, int status)
{
    struct uv_listener *l = server->data;
    struct sbx_grpc_server *s = l->srv;
    if (status < 0) return;
    struct uv_conn *uc = calloc(1, sizeof *uc);
    if (!uc) return;
    uc->srv = s;
    if (l->is_pipe)
        uv_pipe_init(s->loop, &uc->h.pipe, 0);
    else
        uv_tcp_init(s->loop, &uc->h.tcp);
    uc->h.handle.data = uc;
    uv_timer_init(s->loop, &uc->timer);
    uc->timer.data = uc;
    uv_idle_init(s->loop, &uc->flush_idle);
    uc->flush_idle.data = uc;
    uc->handles_open = 3;
    s->n_conns++;
    uc->next = s->conns;
    if (s->conns) s->conns->prev = uc;
    s->conns = uc;
    uc->sc = sbx_grpc_sconn_new(s, want_write, uc);
    if (uv_accept(server, &uc->h.stream) < 0 || !uc->sc) {
        if (!uc->sc) uc->sc = NULL;
        uc->closing = true;
        if (uc->prev)
            uc->prev->next = uc->next;
        else
            s->conns = uc->next;
        if (uc->next) uc->next->prev = uc->prev;
        uv_close((uv_handle_t *)&uc->timer, conn_handle_closed);
        uv_close((uv_handle_t *)&uc->flush_idle, conn_handle_closed);
        uv_close(&uc->h.handle, conn_handle_closed);
        return;
    }
    if (s->opts.max_connections && s->n_conns > s->opts.max_connections) {
        /* Over the cap: accepted (so the backlog drains) and closed. */
        s->refused_conns++;
        conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
        return;
    }
    if (!l->is_pipe && s->opts.admit_peer && s->opts.release_peer) {
        struct sockaddr_storage peer;
        int len = (int)sizeof peer;
        if (uv_tcp_getpeername(&uc->h.tcp, (struct sockaddr *)&peer, &len) != 0 ||
            !s->opts.admit_peer((struct sockaddr *)&peer, &uc->peer_tag, s->opts.peer_user)) {
            s->refused_conns++;
            conn_close(uc, SBX_GRPC_CANCEL_CONNECTION);
            return;
        }
        uc->admitted = true;
    }
    uc->accepted_ms = sbx_grpc_now_ms();
    if (!l->is_pipe) uv_tcp_nodelay(&uc->h.tcp, 1);
    if (s->shutting_down) sbx_grpc_sconn_goaway(uc->sc);
    uv_read_start(&uc->h.stream, alloc_cb, on_read);
    uc->reading = true;
    conn_flush(uc);
}

/* ---- listeners ------------------------------------------------------------ */

static void fmt_err(char *err, size_t err_len, const char *what, int rv)
{
    if (err && err_len) snprintf(err, err_len, "%s: %s", what, uv_strerror(rv));
}

static void listener_closed(uv_handle_t *h)
{
    struct uv_listener *l = h->data;
    struct sbx_grpc_server *s = l->srv;
    if (l->path) {
        unlink(l->path);
        free(l->path);
    }
    free(l);
    s->open_handles--;
    server_maybe_finish_close(s);
}

static void add_listener(struct sbx_grpc_server *s, struct uv_listener *l)
{
    l->next = s->listeners;
    s->listeners = l;
    s->open_handles++;
}

int sbx_grpc_server_listen_tcp(struct sbx_grpc_server *s, const char *host, int port,
                               int *bound_port, char *err, size_t err_len)
{
    if (s->shutting_down || port < 0 || port > 65535) {
        fmt_err(err, err_len, "listen", UV_EINVAL);
        return -1;
    }
    ensure_handles(s);
    struct sockaddr_storage ss;
    char portstr[8];
    snprintf(portstr, sizeof portstr, "%d", port);
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)&ss) != 0 &&
        uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss) != 0) {
        uv_getaddrinfo_t gai;
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
        int rv = uv_getaddrinfo(s->loop, &gai, NULL, host, portstr, &hints);
        if (rv != 0) {
            fmt_err(err, err_len, host, rv);
            return -1;
        }
        memcpy(&ss, gai.addrinfo->ai_addr, gai.addrinfo->ai_addrlen);
        uv_freeaddrinfo(gai.addrinfo);
    }
    struct uv_listener *l = calloc(1, sizeof *l);
    if (!l) {
        fmt_err(err, err_len, "listen", UV_ENOMEM);
        return -1;
    }
    l->srv = s;
    uv_tcp_init(s->loop, &l->h.tcp);
    l->h.handle.data = l;
    add_listener(s, l);
    int rv = uv_tcp_bind(&l->h.tcp, (struct sockaddr *)&ss, 0);
    if (rv == 0) rv = uv_listen(&l->h.stream, 511, on_connection);
    if (rv != 0) {
        char what[300];
        snprintf(what, sizeof what, "listen %s:%d", host, port);
        fmt_err(err, err_len, what, rv);
        s->listeners = l->next;
        uv_close(&l->h.handle, listener_closed);
        return -1;
    }
    if (bound_port) {
        struct sockaddr_storage got;
        int len = sizeof got;
        uv_tcp_getsockname(&l->h.tcp, (struct sockaddr *)&got, &len);
        *bound_port = got.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&got)->sin6_port)
                                                : ntohs(((struct sockaddr_in *)&got)->sin_port);
    }
    return 0;
}

int sbx_grpc_server_listen_unix(struct sbx_grpc_server *s, const char *path, char *err,
                                size_t err_len)
{
    if (s->shutting_down || !path || !*path) {
        fmt_err(err, err_len, "listen", UV_EINVAL);
        return -1;
    }
    ensure_handles(s);
    struct uv_listener *l = calloc(1, sizeof *l);
    if (!l) {
        fmt_err(err, err_len, "listen", UV_ENOMEM);
        return -1;
    }
    l->srv = s;
    l->is_pipe = true;
    uv_pipe_init(s->loop, &l->h.pipe, 0);
    l->h.handle.data = l;
    add_listener(s, l);
    unlink(path);
    int rv = uv_pipe_bind(&l->h.pipe, path);
    if (rv == 0) {
        l->path = strdup(path);
        rv = uv_listen(&l->h.stream, 511, on_connection);
    }
    if (rv != 0) {
        char what[300];
        snprintf(what, sizeof what, "listen unix:%s", path);
        fmt_err(err, err_len, what, rv);
        s->listeners = l->next;
        uv_close(&l->h.handle, listener_closed);
        return -1;
    }
    return 0;
}

/* ---- shutdown ------------------------------------------------------------- */

static void server_handle_closed(uv_handle_t *h)
{
    struct sbx_grpc_server *s = h->data;
    if (--s->open_handles > 0 || s->closed_notified) return;
    s->closed_notified = true;
    if (s->on_closed) s->on_closed(s, s->on_closed_user);
}

static void server_maybe_finish_close(struct sbx_grpc_server *s)
{
    if (!s->shutting_down || s->n_conns > 0 || !s->handles_init || s->final_close_started ||
        s->open_handles != 2)
        return;
    s->final_close_started = true;
    /* Cancellations of the last connections reach handlers before the end. */
    sbx_grpc_server_dispatch(s);
    s->kick_dispatch = NULL;
    uv_close((uv_handle_t *)&s->dispatch_idle, server_handle_closed);
    uv_close((uv_handle_t *)&s->grace_timer, server_handle_closed);
}

static void close_listeners(struct sbx_grpc_server *s)
{
    struct uv_listener *l = s->listeners;
    s->listeners = NULL;
    while (l) {
        struct uv_listener *next = l->next;
        uv_close(&l->h.handle, listener_closed);
        l = next;
    }
}

static void hard_close_conns(struct sbx_grpc_server *s)
{
    s->hard_closing = true;
    while (s->conns)
        conn_close(s->conns, SBX_GRPC_CANCEL_SHUTDOWN);
}

static void grace_expired(uv_timer_t *t)
{
    struct sbx_grpc_server *s = t->data;
    hard_close_conns(s);
    server_maybe_finish_close(s);
}

void sbx_grpc_server_shutdown(struct sbx_grpc_server *s, unsigned grace_ms,
                              void (*on_closed)(struct sbx_grpc_server *s, void *user), void *user)
{
    ensure_handles(s);
    s->on_closed = on_closed;
    s->on_closed_user = user;
    if (s->shutting_down) {
        if (grace_ms == 0 && !s->hard_closing) hard_close_conns(s);
        return;
    }
    s->shutting_down = true;
    close_listeners(s);
    for (struct uv_conn *uc = s->conns; uc; uc = uc->next) {
        sbx_grpc_sconn_goaway(uc->sc);
        want_write(uc);
    }
    if (grace_ms > 0) uv_timer_start(&s->grace_timer, grace_expired, grace_ms, 0);
    /* With no listener to close the end is reached from this timer. */
    if (!s->conns && !s->listeners) uv_timer_start(&s->grace_timer, grace_expired, 0, 0);
}

void sbx_grpc_server_close(struct sbx_grpc_server *s,
                           void (*on_closed)(struct sbx_grpc_server *s, void *user), void *user)
{
    sbx_grpc_server_shutdown(s, 0, on_closed, user);
    if (!s->hard_closing) hard_close_conns(s);
}
