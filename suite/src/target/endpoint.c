/* SPDX-License-Identifier: Apache-2.0 */
/* Address parsing and the one reachability check done before any case. */
#include "endpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rest_client.h"
#include "tls_connect.h"
#include "tls_options.h"

/* Splits host:port / [v6]:port; host and port are written into the buffers. */
static int split_hostport(const char *addr, char *host, size_t hl, char *port, size_t pl)
{
    const char *colon;
    if (addr[0] == '[') {
        const char *rbr = strchr(addr, ']');
        if (!rbr || rbr[1] != ':') return -1;
        if ((size_t)(rbr - addr - 1) >= hl) return -1;
        memcpy(host, addr + 1, (size_t)(rbr - addr - 1));
        host[rbr - addr - 1] = '\0';
        colon = rbr + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon || colon == addr || (size_t)(colon - addr) >= hl ||
            memchr(addr, ':', (size_t)(colon - addr)))
            return -1;
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = '\0';
    }
    const char *p = colon + 1;
    if (!*p || strlen(p) >= pl || strspn(p, "0123456789") != strlen(p)) return -1;
    long v = strtol(p, NULL, 10);
    if (v < 1 || v > 65535) return -1;
    snprintf(port, pl, "%s", p);
    return 0;
}

int endpoint_validate(const char *addr, char *err, size_t err_len)
{
    if (!addr || !*addr) {
        snprintf(err, err_len, "empty address");
        return -1;
    }
    if (strncmp(addr, "unix:", 5) == 0) {
        if (addr[5] != '/' || strlen(addr + 5) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
            snprintf(err, err_len, "'%s': want unix:/absolute/path (at most 107 bytes)", addr);
            return -1;
        }
        return 0;
    }
    char host[256], port[16];
    if (split_hostport(tls_addr_hostport(addr), host, sizeof host, port, sizeof port) != 0) {
        snprintf(err, err_len,
                 "'%s': want host:port, [v6]:port, unix:/path or https://host:port (port "
                 "1-65535)",
                 addr);
        return -1;
    }
    return 0;
}

static int wait_fd(int fd, short events, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    int rc;
    do
        rc = poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    return rc;
}

static int connect_with_timeout(int fd, const struct sockaddr *sa, socklen_t len,
                                unsigned timeout_ms)
{
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    int rc = connect(fd, sa, len);
    if (rc != 0 && errno == EINPROGRESS) {
        if (wait_fd(fd, POLLOUT, (int)timeout_ms) <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
        if (soerr) {
            errno = soerr;
            return -1;
        }
        rc = 0;
    }
    fcntl(fd, F_SETFL, fl);
    return rc;
}

int endpoint_connect(const char *addr, unsigned timeout_ms, char *err, size_t err_len)
{
    if (endpoint_validate(addr, err, err_len) != 0) return -1;
    addr = tls_addr_hostport(addr);
    if (strncmp(addr, "unix:", 5) == 0) {
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        snprintf(sun.sun_path, sizeof sun.sun_path, "%s", addr + 5);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect_with_timeout(fd, (struct sockaddr *)&sun, sizeof sun, timeout_ms)) {
            snprintf(err, err_len, "cannot connect to %s: %s", addr, strerror(errno));
            if (fd >= 0) close(fd);
            return -1;
        }
        return fd;
    }
    char host[256], port[16];
    split_hostport(addr, host, sizeof host, port, sizeof port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    int g = getaddrinfo(host, port, &hints, &ai);
    if (g != 0) {
        snprintf(err, err_len, "cannot resolve %s: %s", host, gai_strerror(g));
        return -1;
    }
    int fd = -1;
    int last = 0;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (connect_with_timeout(fd, a->ai_addr, a->ai_addrlen, timeout_ms) == 0) break;
        last = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0)
        snprintf(err, err_len, "cannot connect to %s: %s", addr, strerror(last ? last : errno));
    return fd;
}

/* The probe's byte pipe: the socket, or a TLS session over it. */
struct probe {
    int fd;
    SSL *ssl;
};

static bool probe_send(struct probe *p, const void *buf, size_t len)
{
    if (!p->ssl) return send(p->fd, buf, len, MSG_NOSIGNAL) == (ssize_t)len;
    const char *b = buf;
    while (len > 0) {
        size_t done = 0;
        int rc = SSL_write_ex(p->ssl, b, len, &done);
        if (rc == 1) {
            b += done;
            len -= done;
            continue;
        }
        int e = SSL_get_error(p->ssl, rc);
        if ((e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ) ||
            tls_wait(p->ssl, p->fd, true, 5000) <= 0)
            return false;
    }
    return true;
}

/* Bytes received (> 0), 0 on a close, -1 on an error; waits up to timeout_ms.
 * A TLS error (a server's alert after the handshake) is put into why. */
static ssize_t probe_recv(struct probe *p, void *buf, size_t cap, int timeout_ms, char *why,
                          size_t why_len)
{
    if (!p->ssl) {
        if (wait_fd(p->fd, POLLIN, timeout_ms) <= 0) return -2;
        ssize_t n = recv(p->fd, buf, cap, 0);
        return n < 0 ? -1 : n;
    }
    for (;;) {
        if (tls_wait(p->ssl, p->fd, false, timeout_ms) <= 0) return -2;
        size_t got = 0;
        int rc = SSL_read_ex(p->ssl, buf, cap, &got);
        if (rc == 1) return (ssize_t)got;
        int e = SSL_get_error(p->ssl, rc);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) continue;
        if (e == SSL_ERROR_ZERO_RETURN) return 0;
        tls_explain_io(p->ssl, rc, why, why_len);
        return -1;
    }
}

int endpoint_tls_probe(const char *addr, const char *alpn, unsigned timeout_ms,
                       struct tls_peer *peer, char *err, size_t err_len)
{
    int fd = endpoint_connect(addr, timeout_ms, err, err_len);
    if (fd < 0) return -1;
    char why[400];
    SSL *ssl = tls_handshake(fd, addr, alpn, (int)timeout_ms, why, sizeof why);
    if (!ssl) {
        snprintf(err, err_len, "%s: %s", addr, why);
        close(fd);
        return -1;
    }
    tls_describe(ssl, peer);
    tls_close(ssl);
    close(fd);
    return 0;
}

int endpoint_check_grpc(const char *addr, unsigned timeout_ms, char *err, size_t err_len)
{
    return endpoint_check_grpc_peer(addr, timeout_ms, NULL, err, err_len);
}

int endpoint_check_grpc_peer(const char *addr, unsigned timeout_ms, struct tls_peer *peer,
                             char *err, size_t err_len)
{
    int fd = endpoint_connect(addr, timeout_ms, err, err_len);
    if (fd < 0) return -1;
    struct probe pr = {.fd = fd};
    char why[400] = "";
    int rc = -1;
    if (tls_addr_is_https(addr)) {
        pr.ssl = tls_handshake(fd, addr, "h2", (int)timeout_ms, why, sizeof why);
        if (!pr.ssl) {
            snprintf(err, err_len, "gRPC endpoint %s: %s", addr, why);
            goto out;
        }
        if (peer) tls_describe(pr.ssl, peer);
    }
    static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
                                  "\x00\x00\x00\x04\x00\x00\x00\x00\x00";
    size_t plen = sizeof preface - 1;
    if (!probe_send(&pr, preface, plen)) {
        snprintf(err, err_len, "gRPC endpoint %s: cannot send the HTTP/2 preface: %s", addr,
                 strerror(errno));
        goto out;
    }
    unsigned char buf[64];
    size_t got = 0;
    while (got < 9) {
        ssize_t n = probe_recv(&pr, buf + got, sizeof buf - got, (int)timeout_ms, why, sizeof why);
        if (n == -2) {
            snprintf(err, err_len,
                     "gRPC endpoint %s accepted the connection but sent no HTTP/2 SETTINGS "
                     "within %u ms",
                     addr, timeout_ms);
            goto out;
        }
        if (n <= 0) {
            if (why[0])
                snprintf(err, err_len, "gRPC endpoint %s: %s", addr, why);
            else
                snprintf(err, err_len,
                         "gRPC endpoint %s closed the connection on the HTTP/2 preface%s", addr,
                         got ? "" : " (is it an HTTP/2 server?)");
            goto out;
        }
        got += (size_t)n;
    }
    /* The status line of an HTTP/1.x answer, for the message. */
    if (got >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
        while (got < sizeof buf - 1 && !memchr(buf, '\n', got)) {
            ssize_t n =
                probe_recv(&pr, buf + got, sizeof buf - 1 - got, (int)timeout_ms, why, sizeof why);
            if (n <= 0) break;
            got += (size_t)n;
        }
    }
    if (memcmp(buf, "HTTP/", 5) == 0) {
        size_t line = 0;
        while (line < got && buf[line] != '\r' && buf[line] != '\n' && buf[line] >= 0x20 &&
               buf[line] < 0x7f)
            line++;
        snprintf(err, err_len,
                 "gRPC endpoint %s answered the HTTP/2 preface in HTTP/1.x (\"%.*s\"), not "
                 "HTTP/2 (is this the REST port, or a proxy that cannot carry gRPC?)",
                 addr, (int)line, (const char *)buf);
        rc = ENDPOINT_HTTP1;
        goto out;
    }
    if (buf[3] != 0x04) {
        snprintf(err, err_len,
                 "gRPC endpoint %s did not start with an HTTP/2 SETTINGS frame (frame type %u)",
                 addr, buf[3]);
        goto out;
    }
    rc = 0;
out:
    tls_close(pr.ssl);
    close(fd);
    return rc;
}

int endpoint_check_rest(const char *addr, unsigned timeout_ms, long *status, char **body, char *err,
                        size_t err_len)
{
    *status = 0;
    *body = NULL;
    struct http_request req = {
        .method = "GET", .target = "/v1/health", .timeout_ms = (long)timeout_ms, .max_body = 4096};
    struct http_response resp;
    if (rest_do_at(addr, &req, &resp) != 0) {
        snprintf(err, err_len, "REST endpoint %s: GET /v1/health: %s", addr, resp.error);
        http_response_free(&resp);
        return -1;
    }
    *status = resp.status;
    *body = resp.body ? strndup(resp.body, resp.body_len) : NULL;
    http_response_free(&resp);
    return 0;
}
