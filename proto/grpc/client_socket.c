/* SPDX-License-Identifier: Apache-2.0 */
/* Client sockets: target parsing ("host:port", "[v6]:port", "unix:/path"),
 * non-blocking connect with a timeout, and the socket transport. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client_transport.h"

struct sock {
    int fd;
};

static ssize_t sock_write(void *ctx, const uint8_t *buf, size_t len)
{
    struct sock *s = ctx;
    ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    return n;
}

static ssize_t sock_read(void *ctx, uint8_t *buf, size_t cap)
{
    struct sock *s = ctx;
    ssize_t n = recv(s->fd, buf, cap, 0);
    if (n == 0) return -2;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    return n;
}

static int sock_wait(void *ctx, int wait_ms, bool want_write)
{
    struct sock *s = ctx;
    struct pollfd p = {.fd = s->fd, .events = POLLIN | (want_write ? POLLOUT : 0)};
    int rv = poll(&p, 1, wait_ms);
    if (rv < 0 && errno == EINTR) return 0;
    return rv < 0 ? -1 : rv > 0;
}

static void sock_close(void *ctx)
{
    struct sock *s = ctx;
    close(s->fd);
    free(s);
}

static const struct sbx_grpc_transport_ops sock_ops = {
    .write = sock_write, .read = sock_read, .wait = sock_wait, .close = sock_close};

/* Connects fd to addr within the remaining time. Returns 0 or an errno. */
static int connect_within(int fd, const struct sockaddr *addr, socklen_t alen, int64_t deadline)
{
    if (connect(fd, addr, alen) == 0) return 0;
    if (errno != EINPROGRESS && errno != EAGAIN) return errno;
    for (;;) {
        int64_t left = deadline - sbx_grpc_now_ms();
        if (left <= 0) return ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int rv = poll(&p, 1, (int)left);
        if (rv < 0 && errno == EINTR) continue;
        if (rv < 0) return errno;
        if (rv == 0) return ETIMEDOUT;
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
        return soerr;
    }
}

static int open_unix(const char *path, int64_t deadline, char *err, size_t err_len)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, err_len, "unix socket path too long: %s", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, err_len, "socket: %s", strerror(errno));
        return -1;
    }
    int e = connect_within(fd, (struct sockaddr *)&sa, sizeof sa, deadline);
    if (e) {
        snprintf(err, err_len, "connect unix:%s: %s", path, strerror(e));
        close(fd);
        return -1;
    }
    return fd;
}

/* Splits "host:port" / "[v6]:port" into host and port strings. */
static int split_host_port(const char *target, char *host, size_t hcap, const char **port)
{
    const char *colon;
    if (target[0] == '[') {
        const char *close_br = strchr(target, ']');
        if (!close_br || close_br[1] != ':') return -1;
        size_t hl = (size_t)(close_br - target - 1);
        if (hl == 0 || hl >= hcap) return -1;
        memcpy(host, target + 1, hl);
        host[hl] = '\0';
        colon = close_br + 1;
    } else {
        colon = strrchr(target, ':');
        if (!colon || colon == target || memchr(target, ':', (size_t)(colon - target))) return -1;
        size_t hl = (size_t)(colon - target);
        if (hl >= hcap) return -1;
        memcpy(host, target, hl);
        host[hl] = '\0';
    }
    *port = colon + 1;
    if (!**port || strspn(*port, "0123456789") != strlen(*port)) return -1;
    errno = 0;
    long number = strtol(*port, NULL, 10); /* digits only: ERANGE is the one failure */
    if (errno == ERANGE || number <= 0 || number > 65535) return -1;
    return 0;
}

static int open_tcp(const char *target, int64_t deadline, char *err, size_t err_len)
{
    char host[256];
    const char *port;
    if (split_host_port(target, host, sizeof host, &port) < 0) {
        snprintf(err, err_len, "invalid target \"%s\" (want host:port, [v6]:port or unix:/path)",
                 target);
        return -1;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(err, err_len, "resolve %s: %s", host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, last = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            last = errno;
            continue;
        }
        last = connect_within(fd, ai->ai_addr, ai->ai_addrlen, deadline);
        if (last) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, err_len, "connect %s: %s", target, strerror(last ? last : EHOSTUNREACH));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

struct sbx_grpc_conn *sbx_grpc_connect(const char *target, const struct sbx_grpc_conn_opts *opts,
                                       char *err, size_t err_len)
{
    char scratch[8];
    if (!err || err_len == 0) {
        err = scratch;
        err_len = sizeof scratch;
    }
    if (!target) {
        snprintf(err, err_len, "no target");
        return NULL;
    }
    unsigned timeout = opts && opts->connect_timeout_ms ? opts->connect_timeout_ms : 5000;
    int64_t deadline = sbx_grpc_now_ms() + timeout;
    bool is_unix = strncmp(target, "unix:", 5) == 0;
    int fd = is_unix ? open_unix(target + 5, deadline, err, err_len)
                     : open_tcp(target, deadline, err, err_len);
    if (fd < 0) return NULL;
    struct sock *s = malloc(sizeof *s);
    if (!s) {
        close(fd);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    s->fd = fd;
    return sbx_grpc_conn_new(&sock_ops, s, is_unix ? "localhost" : target, opts, err, err_len);
}
