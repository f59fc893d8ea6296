/* SPDX-License-Identifier: Apache-2.0 */
/* Bare HTTP/1.1 over a socket (see raw_http.h). */
#include "concurrency/raw_http.h"

#include "case_api.h"
#include "common/conf_util.h"
#include "request_headers.h"
#include "tls_connect.h"
#include "tls_options.h"

#include <errno.h>
#include <netdb.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static void set_timeouts(int fd, int timeout_ms)
{
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* Over TLS the socket is non-blocking (a peek must not wait for a record)
 * and every wait is bounded by timeout_ms instead of the socket timeouts. */
struct raw_conn {
    int fd;
    SSL *ssl;
    int timeout_ms;
};

static int open_socket(const char *addr, int timeout_ms)
{
    if (strncmp(addr, "unix:", 5) == 0) {
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        if (strlen(addr + 5) >= sizeof sun.sun_path) return -1;
        strcpy(sun.sun_path, addr + 5);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return -1;
        set_timeouts(fd, timeout_ms);
        if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
            close(fd);
            return -1;
        }
        return fd;
    }
    char host[256], port[16];
    const char *colon;
    if (addr[0] == '[') {
        const char *end = strchr(addr, ']');
        if (!end || end[1] != ':' || (size_t)(end - addr - 1) >= sizeof host) return -1;
        snprintf(host, sizeof host, "%.*s", (int)(end - addr - 1), addr + 1);
        colon = end + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon || (size_t)(colon - addr) >= sizeof host) return -1;
        snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
    }
    snprintf(port, sizeof port, "%s", colon + 1);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, port, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        set_timeouts(fd, timeout_ms);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

struct raw_conn *raw_adopt(int fd, int timeout_ms)
{
    struct raw_conn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return NULL;
    }
    c->fd = fd;
    c->timeout_ms = timeout_ms;
    return c;
}

struct raw_conn *raw_connect(const char *addr, int timeout_ms)
{
    int fd = open_socket(tls_addr_hostport(addr), timeout_ms);
    if (fd < 0) return NULL;
    struct raw_conn *c = raw_adopt(fd, timeout_ms);
    if (!c) return NULL;
    if (tls_addr_is_https(addr)) {
        char why[400];
        c->ssl = tls_handshake(fd, addr, "http/1.1", timeout_ms, why, sizeof why);
        if (!c->ssl) {
            raw_close(c);
            return NULL;
        }
    }
    return c;
}

void raw_close(struct raw_conn *c)
{
    if (!c) return;
    tls_close(c->ssl);
    close(c->fd);
    free(c);
}

/* Waits for the socket (TLS only); false on timeout or error. */
static bool tls_ready(struct raw_conn *c, bool want_write, int wait_ms)
{
    struct pollfd p = {.fd = c->fd, .events = want_write ? POLLOUT : POLLIN};
    int rv;
    do
        rv = poll(&p, 1, wait_ms);
    while (rv < 0 && errno == EINTR);
    return rv > 0;
}

bool raw_send_all(struct raw_conn *c, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        if (c->ssl) {
            size_t w = 0;
            int rc = SSL_write_ex(c->ssl, p, n, &w);
            if (rc == 1) {
                p += w;
                n -= w;
                continue;
            }
            int e = SSL_get_error(c->ssl, rc);
            if ((e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ) ||
                !tls_ready(c, e == SSL_ERROR_WANT_WRITE, c->timeout_ms))
                return false;
            continue;
        }
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

const char *raw_host(const char *addr)
{
    if (strncmp(addr, "unix:", 5) == 0) return "localhost";
    const char *authority = tls_options_get()->authority;
    return authority ? authority : tls_addr_hostport(addr);
}

/* Bytes waiting to be read, without taking them: > 0, 0 at the end of the
 * stream, -1 on an error, -2 when nothing is there now. */
static ssize_t peek_now(struct raw_conn *c, char *buf, size_t cap)
{
    if (!c->ssl) {
        for (;;) {
            ssize_t n = recv(c->fd, buf, cap, MSG_PEEK | MSG_DONTWAIT);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return -2;
            return n;
        }
    }
    size_t got = 0;
    int rc = SSL_peek_ex(c->ssl, buf, cap, &got);
    if (rc == 1) return (ssize_t)got;
    int e = SSL_get_error(c->ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return -2;
    return e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0) ? 0 : -1;
}

/* Takes n bytes already seen by peek_now. */
static bool take(struct raw_conn *c, char *buf, size_t n)
{
    if (!c->ssl) return recv(c->fd, buf, n, 0) == (ssize_t)n;
    size_t got = 0;
    return SSL_read_ex(c->ssl, buf, n, &got) == 1 && got == n;
}

/* Waits up to wait_ms for input; *hup when the peer hung up. */
static int wait_input(struct raw_conn *c, int wait_ms, bool *hup)
{
    *hup = false;
    if (c->ssl && SSL_has_pending(c->ssl)) return 1;
    struct pollfd p = {.fd = c->fd, .events = POLLIN | POLLRDHUP};
    int rv = poll(&p, 1, wait_ms);
    if (rv > 0) *hup = (p.revents & (POLLRDHUP | POLLHUP)) != 0;
    return rv;
}

ssize_t raw_recv(struct raw_conn *c, void *buf, size_t cap, int wait_ms)
{
    uint64_t deadline = case_now_ms() + (uint64_t)(wait_ms > 0 ? wait_ms : 0);
    for (;;) {
        uint64_t now = case_now_ms();
        int left = now < deadline ? (int)(deadline - now) : 0;
        bool hup;
        int rv = wait_input(c, left, &hup);
        if (rv < 0 && errno == EINTR) continue;
        if (rv < 0) return -1;
        if (rv == 0) return -2;
        if (!c->ssl) {
            ssize_t n = recv(c->fd, buf, cap, 0);
            if (n < 0 && errno == EINTR) continue;
            return n;
        }
        size_t got = 0;
        int rc = SSL_read_ex(c->ssl, buf, cap, &got);
        if (rc == 1) return (ssize_t)got;
        int e = SSL_get_error(c->ssl, rc);
        if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0)) return 0;
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) return -1;
        /* Only a session ticket or a partial record: wait for more. */
        if (case_now_ms() >= deadline) return -2;
    }
}

bool raw_send_head(struct raw_conn *c, const char *addr, const char *method, const char *target,
                   long long content_length, const char *extra)
{
    char head[4096];
    char cl[64] = "";
    if (content_length >= 0) snprintf(cl, sizeof cl, "Content-Length: %lld\r\n", content_length);
    /* The user's headers (a router needs them on every request) right after
     * Host, under names the case does not send itself. */
    char *user = request_headers_raw_block(extra);
    if (!user) return false;
    int n =
        snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: %s\r\n%s%sConnection: close\r\n%s\r\n",
                 method, target, raw_host(addr), user, cl, extra ? extra : "");
    free(user);
    if (n < 0 || (size_t)n >= sizeof head) return false;
    return raw_send_all(c, head, (size_t)n);
}

/* Interim responses (1xx other than 101) may precede the final response,
 * asked for or not; clients must accept any number of them (RFC 9110
 * section 15.2). */
static bool is_interim(const char *buf, size_t len)
{
    return len >= 12 && strncmp(buf, "HTTP/1.", 7) == 0 && buf[8] == ' ' && buf[9] == '1' &&
           strncmp(buf + 9, "101", 3) != 0;
}

enum peek_state { PEEK_NOTHING, PEEK_ANSWER, PEEK_PARTIAL_INTERIM };

/* Looks at the waiting input without blocking and drops complete interim
 * responses at its head. */
static enum peek_state peek_answer(struct raw_conn *c)
{
    char buf[2048];
    for (int round = 0; round < 32; round++) {
        ssize_t n = peek_now(c, buf, sizeof buf - 1);
        if (n == -2) return PEEK_NOTHING;
        if (n <= 0) return PEEK_ANSWER; /* end of stream or error: the peer spoke */
        buf[n] = '\0';
        /* "HTTP/1.1 1" could still become an interim status line. */
        if (n < 12 && strncmp(buf, "HTTP/1.1 1", (size_t)n < 10 ? (size_t)n : 10) == 0)
            return PEEK_PARTIAL_INTERIM;
        if (!is_interim(buf, (size_t)n)) return PEEK_ANSWER;
        const char *end = strstr(buf, "\r\n\r\n");
        if (!end) return PEEK_PARTIAL_INTERIM;
        size_t skip = (size_t)(end + 4 - buf);
        if (!take(c, buf, skip)) return PEEK_ANSWER;
    }
    return PEEK_PARTIAL_INTERIM;
}

bool raw_peer_spoke(struct raw_conn *c, int wait_ms)
{
    uint64_t deadline = case_now_ms() + (uint64_t)(wait_ms > 0 ? wait_ms : 0);
    for (;;) {
        uint64_t now = case_now_ms();
        int left = now < deadline ? (int)(deadline - now) : 0;
        bool hup;
        int rv = wait_input(c, left, &hup);
        if (rv < 0 && errno == EINTR) continue;
        if (rv <= 0) return false;
        enum peek_state st = peek_answer(c);
        if (st == PEEK_ANSWER) return true;
        /* A peer that closed after part of a status line sends no more:
         * what it sent is its answer. */
        if (hup) return true;
        /* TLS: a session ticket is input but no answer. */
        if (c->ssl && st == PEEK_NOTHING) {
            if (case_now_ms() >= deadline) return false;
            continue;
        }
        if (case_now_ms() >= deadline) return false;
        if (st == PEEK_PARTIAL_INTERIM) usleep(2000); /* the rest is on its way */
    }
}

long raw_read_status(struct raw_conn *c, int timeout_ms)
{
    char buf[512];
    uint64_t deadline = case_now_ms() + (uint64_t)timeout_ms;
    ssize_t len;
    bool closed = false;
    for (;;) {
        uint64_t now = case_now_ms();
        if (now >= deadline || !raw_peer_spoke(c, (int)(deadline - now))) return -1;
        len = peek_now(c, buf, sizeof buf - 1);
        if (len == -2) continue;
        if (len <= 0) return len == 0 ? 0 : -1;
        buf[len] = '\0';
        if (strstr(buf, "\r\n") || (size_t)len == sizeof buf - 1) break;
        /* A peer that closed will not finish its status line. */
        struct pollfd p = {.fd = c->fd, .events = POLLRDHUP};
        if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP))) {
            closed = true;
            break;
        }
        usleep(2000); /* more of the status line is on its way */
    }
    long status = 0;
    long version[2];
    const char *p =
        strncmp(buf, "HTTP/", 5) == 0 ? conf_parse_longs(buf + 5, '.', version, 2) : NULL;
    if (!p || !conf_parse_longs(p, ' ', &status, 1)) return closed ? 0 : -1;
    /* "HTTP/1.1 -2" is no status line either (and -2 is no status). */
    if (status < 100 || status > 999) return -1;
    return status;
}
