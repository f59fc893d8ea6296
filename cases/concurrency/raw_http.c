/* Bare HTTP/1.1 over a socket (see raw_http.h). */
#include "concurrency/raw_http.h"

#include "case_api.h"
#include "common/conf_util.h"

#include <errno.h>
#include <netdb.h>
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

int raw_connect(const char *addr, int timeout_ms)
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

bool raw_send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

bool raw_send_head(int fd, const char *addr, const char *method, const char *target,
                   long long content_length, const char *extra)
{
    char head[4096];
    char cl[64] = "";
    if (content_length >= 0) snprintf(cl, sizeof cl, "Content-Length: %lld\r\n", content_length);
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n%s\r\n", method, target,
                     strncmp(addr, "unix:", 5) == 0 ? "localhost" : addr, cl, extra ? extra : "");
    if (n < 0 || (size_t)n >= sizeof head) return false;
    return raw_send_all(fd, head, (size_t)n);
}

bool raw_peer_spoke(int fd, int wait_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, wait_ms) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

long raw_read_status(int fd, int timeout_ms)
{
    char buf[512];
    size_t len = 0;
    uint64_t deadline = case_now_ms() + (uint64_t)timeout_ms;
    while (len < sizeof buf - 1) {
        uint64_t now = case_now_ms();
        if (now >= deadline) return -1;
        if (!raw_peer_spoke(fd, (int)(deadline - now))) return -1;
        ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        len += (size_t)r;
        buf[len] = '\0';
        if (strstr(buf, "\r\n")) break;
    }
    buf[len] = '\0';
    long status = 0;
    if (len == 0) return 0;
    long version[2];
    const char *p =
        strncmp(buf, "HTTP/", 5) == 0 ? conf_parse_longs(buf + 5, '.', version, 2) : NULL;
    if (!p || !conf_parse_longs(p, ' ', &status, 1)) return -1;
    return status;
}
