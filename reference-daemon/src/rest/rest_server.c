/* SPDX-License-Identifier: Apache-2.0 */
/* The REST server (contract section 2): libmicrohttpd on epoll, a small
 * pool of event-loop threads serving every connection, so an idle or slow
 * connection costs a descriptor and a few KiB, never a thread. Whatever may
 * wait on the file system (opening, listing, writing, renaming, removing)
 * runs on the blocking pool with the connection suspended, so a slow disk
 * never delays another request (C5) and a health probe never waits behind
 * a file transfer; downloads leave by sendfile from the loop. Hostile
 * clients are bounded by a total and a per-address connection limit sized
 * from the descriptor table, a header-block deadline and strict framing.
 * This file owns the listening socket, the per-request state and the
 * routing; the handlers live beside it. */
#include "rest_server.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "fs/resolve.h"
#include "rest/blocking_pool.h"
#include "rest/header_deadline.h"
#include "rest/http_response.h"
#include "rest/request.h"
#include "rest/request_framing.h"
#include "rest/request_offload.h"
#include "rest/request_path.h"
#include "rest/rest_behaviour.h"

#define FILES_PREFIX "/v1/files"
/* The methods each route serves (its 405's Allow header). */
#define FILES_ALLOW "GET, HEAD, PUT, DELETE"
#define PROBE_ALLOW "GET, HEAD"
/* Request line and headers fit in this (a maximal path, percent-encoded,
 * is 12 KiB). libmicrohttpd zeroes the whole pool after every request of a
 * keep-alive connection, so its size is paid per request. */
#define CONNECTION_MEMORY (64 * 1024)
/* Per thread of the loop and of the blocking pool. The deepest path is a
 * DELETE's tree walk (512 levels of a few hundred bytes), on the pool;
 * 256 KiB leaves ample room. */
#define THREAD_STACK (256 * 1024)
/* Threads serving connections: parsing, small answers and sendfile keep
 * two cores busy; more would only contend for them. */
#define LOOP_THREADS 2
/* Threads for file-system work: enough that a few slow disk operations
 * leave others running, few enough to stay cheap. */
#define BLOCKING_THREADS 4
/* Descriptors kept from REST connections beyond gRPC's share: Execute's
 * pipes, open files of transfers, listeners, the loop's own. */
#define FD_RESERVE 256

struct rest_server {
    struct daemon_state *st;
    struct MHD_Daemon *mhd;
    struct header_deadline *deadline;
    struct blocking_pool *pool;
    int listen_fd;
};

/* A request as the server keeps it: the handlers' state and what moving a
 * call to the blocking pool needs. */
struct served_request {
    struct rest_request rq; /* first: handlers and behaviours see only this */
    struct request_offload offload;
    const char *url, *method; /* libmicrohttpd's, valid for the request */
    bool headers_handed;      /* a PUT's headers went to the pool */
};

/* The path and query are taken raw: this server decodes them itself,
 * exactly once (F12). */
static size_t keep_escaped(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s);
}

/* must_wait, when not NULL: called on the event loop, which must not wait
 * for the disk. A GET or HEAD is then answered only from what the kernel
 * has cached; every other request, and a GET or HEAD that would wait, sets
 * *must_wait with nothing queued, for the blocking pool to route again. */
static enum MHD_Result route_files(struct rest_request *rq, struct MHD_Connection *c,
                                   const char *raw_path, const char *method,
                                   const char *upload_data, size_t *upload_size, bool *must_wait)
{
    bool is_put = strcmp(method, MHD_HTTP_METHOD_PUT) == 0;
    enum MHD_Result redirected;
    if (!rq->path && rest_behaviour->answer_early(c, raw_path, &redirected)) {
        rq->started = true;
        rq->responded = true;
        return redirected;
    }
    if (!rq->path) {
        const char *why = "";
        int status = rest_decode_path(raw_path, &rq->path, &why);
        if (status != 0) {
            rq->started = true;
            rq->responded = true;
            return rest_reply_error(c, (unsigned)status, "%s", why);
        }
    }
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
    bool head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (must_wait) {
        if (get || head) {
            rq->on_loop = true;
            fs_resolve_cached_only(1);
            enum MHD_Result answered = rest_behaviour->files_get(rq, c, head);
            fs_resolve_cached_only(0);
            rq->on_loop = false;
            if (!rq->must_wait) {
                rq->responded = true;
                return answered;
            }
            rq->must_wait = false;
        }
        *must_wait = true;
        return MHD_YES;
    }
    if (is_put) return rest_behaviour->files_put(rq, c, upload_data, upload_size);
    rq->responded = true;
    if (get || head) return rest_behaviour->files_get(rq, c, head);
    if (strcmp(method, MHD_HTTP_METHOD_DELETE) == 0) return rest_behaviour->files_delete(rq, c);
    return rest_reply_405(c, FILES_ALLOW);
}

const char *rest_files_raw_path(const char *url)
{
    size_t plen = strlen(FILES_PREFIX);
    if (strncmp(url, FILES_PREFIX, plen) != 0) return NULL;
    if (url[plen] == '\0') return url + plen;
    return url[plen] == '/' ? url + plen + 1 : NULL;
}

const char *rest_route_allow(const char *url)
{
    if (rest_files_raw_path(url)) return FILES_ALLOW;
    if (strcmp(url, "/v1/health") == 0 || strcmp(url, "/v1/metadata") == 0) return PROBE_ALLOW;
    return NULL;
}

enum MHD_Result rest_route(struct rest_request *rq, struct MHD_Connection *c, const char *url,
                           const char *method, const char *upload_data, size_t *upload_size,
                           bool *must_wait)
{
    const char *raw_path = rest_files_raw_path(url);
    if (raw_path) return route_files(rq, c, raw_path, method, upload_data, upload_size, must_wait);
    rq->responded = true;
    bool get =
        strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (strcmp(url, "/v1/health") == 0)
        return get ? probe_health(rq, c) : rest_reply_405(c, PROBE_ALLOW);
    if (strcmp(url, "/v1/metadata") == 0)
        return get ? probe_metadata(rq, c) : rest_reply_405(c, PROBE_ALLOW);
    return rest_reply_error(c, 404, "no such route");
}

static enum MHD_Result route_on_pool(struct request_offload *o, const char *data, size_t *size)
{
    struct served_request *s =
        (struct served_request *)((char *)o - offsetof(struct served_request, offload));
    enum MHD_Result r = rest_behaviour->route(&s->rq, o->c, s->url, s->method, data, size, NULL);
    /* The file a PUT replaced is closed, and its blocks freed, after the
     * reply is on its way rather than before (fs/atomic_write.h). */
    if (!o->close_pending) {
        o->close_after_reply = fs_atomic_take_replaced(&s->rq.file);
        o->close_pending = o->close_after_reply >= 0;
    }
    return r;
}

/* libmicrohttpd (0.9.75) hands a chunked body's next chunk to the handler
 * in the same loop as the previous one even when that call suspended the
 * connection; a call while suspended must leave its bytes, which ends that
 * loop, and they come again after the resume. */
static bool connection_suspended(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_SUSPENDED);
    /* The answer points at the connection's int field, not at an aligned
     * union: copy the int rather than read the union's member. */
    int suspended = MHD_NO;
    if (info) memcpy(&suspended, (const void *)info, sizeof(suspended));
    return suspended == MHD_YES;
}

/* libmicrohttpd (0.9.75, epoll) takes a short read for "nothing more to
 * read" and waits for the next edge, so a client that hung up right after
 * its last bytes is noticed only at the idle timeout. A hand-off's resume
 * makes it read again and see the end: body bytes are kept back for a
 * later hand-off only while the client has not hung up. */
static bool client_hung_up(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!info) return true;
    char byte;
    ssize_t n = recv(info->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Whether a PUT of a file is checked with its body rather than at once:
 * when the whole body is small enough to be gathered, so that a refusal
 * still comes after a complete request and the connection stays open. A
 * client that waits for 100 Continue (curl asks for one above 1 KiB) gets
 * it at once: sending a small body costs it less than the wait for a
 * check on the pool. */
static bool checked_with_body(struct MHD_Connection *c)
{
    const char *length =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!length || *length < '0' || *length > '9') return false; /* chunked */
    errno = 0;
    char *end = NULL;
    unsigned long long n = strtoull(length, &end, 10);
    return errno == 0 && *end == '\0' && n < REQUEST_OFFLOAD_GATHER;
}

enum MHD_Result rest_serve_request(struct rest_server *srv, struct MHD_Connection *c,
                                   const char *url, const char *method, const char *upload_data,
                                   size_t *upload_size, void **con_cls)
{
    struct served_request *s = *con_cls;
    struct rest_request *rq = s ? &s->rq : NULL;
    bool first_call = !s;
    if (s && s->offload.pending && connection_suspended(c))
        return MHD_YES; /* body bytes left unread until the resume */
    if (s) {
        enum MHD_Result collected;
        enum request_offload_outcome oc = request_offload_collect(&s->offload, c, &collected);
        if (oc == OFFLOAD_ANSWERED || (oc == OFFLOAD_COLLECTED && collected == MHD_NO))
            return collected;
    } else {
        s = calloc(1, sizeof(*s));
        if (!s) return MHD_NO;
        s->offload.pool = srv->pool;
        s->url = url;
        s->method = method;
        rq = &s->rq;
        rq->st = srv->st;
        rq->file.fd = -1;
        rq->file.dir_fd = -1;
        *con_cls = s;
        enum MHD_Result refused;
        if (request_framing_refused(c, &refused)) {
            rq->started = true;
            rq->responded = true;
            return refused;
        }
        /* Answering before the request is complete makes the server close
         * the connection afterwards: only a PUT acts on its headers alone
         * (a refusal before the client sends a big body). A small PUT of a
         * file is checked, and its temporary file made, with its body on
         * the pool: one hand-off instead of two. */
        if (strcmp(method, MHD_HTTP_METHOD_PUT) != 0 ||
            (rest_files_raw_path(url) && checked_with_body(c)))
            return MHD_YES;
    }
    if (*upload_size > 0 && strcmp(method, MHD_HTTP_METHOD_PUT) != 0) {
        *upload_size = 0; /* a body on GET/DELETE/...: read and ignored */
        return MHD_YES;
    }
    if (rq->responded) {
        *upload_size = 0; /* the answer is out: drop any remaining body */
        return MHD_YES;
    }
    if (!rest_files_raw_path(url))
        return rest_behaviour->route(rq, c, url, method, upload_data, upload_size, NULL);
    /* A file request goes to the pool unless the loop can answer it from
     * the kernel's caches (a GET of a cached file: no hand-off both ways). */
    if (strcmp(method, MHD_HTTP_METHOD_PUT) != 0) {
        bool must_wait = false;
        enum MHD_Result r =
            rest_behaviour->route(rq, c, url, method, upload_data, upload_size, &must_wait);
        if (!must_wait) return r;
    }
    if (*upload_size > 0 && !client_hung_up(c) &&
        request_offload_gather(&s->offload, upload_data, upload_size))
        return MHD_YES;
    if (!s->headers_handed) {
        s->headers_handed = true;
        /* Unless this is the headers' own call. */
        s->offload.headers_first = !first_call && strcmp(method, MHD_HTTP_METHOD_PUT) == 0;
    }
    return request_offload_start(&s->offload, c, route_on_pool, upload_data, upload_size);
}

/* libmicrohttpd's access handler: c's header block is complete. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    struct rest_server *srv = cls;
    if (!*con_cls) header_deadline_headers_done(srv->deadline, c);
    return rest_behaviour->serve_request(srv, c, url, method, upload_data, upload_size, con_cls);
}

void rest_end_request(struct MHD_Connection *c, void **con_cls, bool completed)
{
    (void)c;
    (void)completed;
    struct served_request *s = *con_cls;
    if (!s) return;
    files_put_cleanup(&s->rq); /* removes the temporary file of an unfinished upload */
    request_offload_free(&s->offload);
    free(s->rq.path);
    free(s);
    *con_cls = NULL;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct rest_server *srv = cls;
    if (*con_cls) header_deadline_request_done(srv->deadline, c);
    rest_behaviour->end_request(c, con_cls, toe == MHD_REQUEST_TERMINATED_COMPLETED_OK);
}

static int open_listener(const char *host, int port, int *bound, char *err, size_t errlen)
{
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV | AI_NUMERICHOST;
    /* Numeric addresses first: they need no name service, which a static
     * binary in a minimal image may not have. */
    const char *node = host && *host ? host : NULL;
    if (node && strcmp(node, "localhost") == 0) node = "127.0.0.1";
    int gai = getaddrinfo(node, portstr, &hints, &res);
    if (gai == EAI_NONAME) {
        hints.ai_flags &= ~AI_NUMERICHOST;
        gai = getaddrinfo(node, portstr, &hints, &res);
    }
    if (gai != 0) {
        snprintf(err, errlen, "cannot resolve listen host '%s': %s", host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1, zero = 0;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (ai->ai_family == AF_INET6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "cannot listen on %s:%d: %s", host, port, strerror(e));
        return -1;
    }
    union {
        struct sockaddr sa;
        struct sockaddr_in in;
        struct sockaddr_in6 in6;
    } addr = {0};
    socklen_t sl = sizeof(addr);
    if (getsockname(fd, &addr.sa, &sl) == 0)
        *bound = ntohs(addr.sa.sa_family == AF_INET6 ? addr.in6.sin6_port : addr.in.sin_port);
    return fd;
}

/* One descriptor per connection plus a few per request: use what the
 * hard limit allows. Returns the limit now in force. */
static rlim_t raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return RLIM_INFINITY;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur;
}

/* The process has one descriptor table. REST connections may take all of
 * it but gRPC's share and a reserve, so that a flood of them leaves
 * descriptors for gRPC, Execute's pipes and file transfers. */
static unsigned fd_share(const struct daemon_config *cfg, rlim_t fd_limit)
{
    if (fd_limit == RLIM_INFINITY) return 1000000;
    rlim_t grpc =
        cfg->grpc_max_connections < fd_limit / 4 ? cfg->grpc_max_connections : fd_limit / 4;
    rlim_t reserve = grpc + FD_RESERVE;
    return fd_limit > reserve + 16 ? (unsigned)(fd_limit - reserve) : 16;
}

/* Unset (0), the total cap is the descriptor share and one address may
 * hold a sixteenth of it; set, a cap is kept within the share. */
static void connection_caps(const struct daemon_config *cfg, rlim_t fd_limit, unsigned *total,
                            unsigned *per_client)
{
    unsigned share = fd_share(cfg, fd_limit);
    *total = cfg->http_max_connections && cfg->http_max_connections < share
                 ? cfg->http_max_connections
                 : share;
    *per_client =
        cfg->http_max_per_client ? cfg->http_max_per_client : (*total / 16 > 1 ? *total / 16 : 1);
}

struct rest_server *rest_server_start(struct daemon_state *st, char *err, size_t errlen)
{
    const struct daemon_config *cfg = st->cfg;
    struct rest_server *srv = calloc(1, sizeof(*srv));
    if (!srv) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    srv->st = st;
    rlim_t fd_limit = raise_fd_limit();
    int bound = cfg->rest_port;
    srv->listen_fd = open_listener(cfg->listen_host, cfg->rest_port, &bound, err, errlen);
    if (srv->listen_fd < 0) {
        free(srv);
        return NULL;
    }
    unsigned timeout_s = (unsigned)((cfg->http_idle_timeout_ms + 999) / 1000);
    if (timeout_s == 0) timeout_s = 1;

    if (cfg->http_header_timeout_ms) {
        srv->deadline = header_deadline_start(cfg->http_header_timeout_ms);
        if (!srv->deadline) {
            snprintf(err, errlen, "cannot start the header-deadline thread");
            close(srv->listen_fd);
            free(srv);
            return NULL;
        }
    }
    unsigned total, per_client;
    connection_caps(cfg, fd_limit, &total, &per_client);
    srv->pool = blocking_pool_start(BLOCKING_THREADS, THREAD_STACK);
    if (!srv->pool) {
        snprintf(err, errlen, "cannot start the REST worker threads");
        header_deadline_stop(srv->deadline);
        close(srv->listen_fd);
        free(srv);
        return NULL;
    }
    /* The server's threads inherit this mask: a peer that goes away makes
     * send/sendfile fail with EPIPE instead of killing the daemon, without
     * changing SIGPIPE's disposition for the processes the daemon starts. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    /* poll(2) where libmicrohttpd was built without epoll: still no
     * thread per connection, only a slower wait over many of them. */
    unsigned loop = MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES
                        ? MHD_USE_EPOLL_INTERNAL_THREAD
                        : MHD_USE_POLL_INTERNAL_THREAD;
    srv->mhd = MHD_start_daemon(
        loop | MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL, on_request, srv, MHD_OPTION_LISTEN_SOCKET,
        srv->listen_fd, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)LOOP_THREADS,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)CONNECTION_MEMORY, MHD_OPTION_THREAD_STACK_SIZE, (size_t)THREAD_STACK,
        MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_NOTIFY_CONNECTION,
        header_deadline_on_connection, srv->deadline, MHD_OPTION_CONNECTION_LIMIT, total,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_client, MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!srv->mhd) {
        snprintf(err, errlen, "cannot start the HTTP server on port %d", bound);
        blocking_pool_stop(srv->pool);
        header_deadline_stop(srv->deadline);
        close(srv->listen_fd);
        free(srv);
        return NULL;
    }
    st->bound_rest_port = bound;
    return srv;
}

void rest_server_stop(struct rest_server *srv)
{
    if (!srv) return;
    /* Every call on the pool ends and resumes its connection first:
     * libmicrohttpd refuses to stop with connections suspended. */
    blocking_pool_stop(srv->pool);
    rest_behaviour->close_server(srv);
}

void rest_server_close(struct rest_server *srv)
{
    MHD_stop_daemon(srv->mhd);
    header_deadline_stop(srv->deadline); /* after the connections' CLOSED notices */
    close(srv->listen_fd);
    free(srv);
}
