/* SPDX-License-Identifier: Apache-2.0 */
/* Health latency beside idle connections (see bench_rest_idle.h). */
#include "bench_text.h"
#include "bench_rest_idle.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_measure.h"

#define SOURCES 16
#define CONNECT_WAIT_MS 10000

struct probe {
    CURL *h;
    char errbuf[CURL_ERROR_SIZE];
};

static size_t discard(char *buf, size_t size, size_t nitems, void *ud)
{
    (void)buf;
    (void)ud;
    return size * nitems;
}

static int op_health(void *ud, char *err)
{
    struct probe *p = ud;
    p->errbuf[0] = '\0';
    CURLcode rc = curl_easy_perform(p->h);
    long status = 0;
    curl_easy_getinfo(p->h, CURLINFO_RESPONSE_CODE, &status);
    if (rc != CURLE_OK) {
        bench_fmt(err, 256, "GET /v1/health: %s",
                  p->errbuf[0] ? p->errbuf : curl_easy_strerror(rc));
        return -1;
    }
    if (status != 200) {
        bench_fmt(err, 256, "GET /v1/health: HTTP %ld", status);
        return -1;
    }
    return 0;
}

/* The REST address as a socket address; -1 when it is not host:port. */
static int resolve(const char *addr, struct sockaddr_storage *ss, socklen_t *len)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    if (!colon || (size_t)(colon - addr) >= sizeof host) return -1;
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || !res) return -1;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* Starts n non-blocking connects; returns how many were started. */
static unsigned open_idle(int *fds, unsigned n, const struct sockaddr_storage *ss, socklen_t len)
{
    const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
    bool spread = ss->ss_family == AF_INET && (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    unsigned started = 0;
    for (unsigned i = 0; i < n; i++) {
        int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) break;
        if (spread) {
            struct sockaddr_in src = {.sin_family = AF_INET};
            src.sin_addr.s_addr = htonl((127u << 24) | (77u << 8) | (1u + i % SOURCES));
            if (bind(fd, (struct sockaddr *)&src, sizeof src) != 0) {
                close(fd);
                break;
            }
        }
        if (connect(fd, (const struct sockaddr *)ss, len) != 0 && errno != EINPROGRESS) {
            close(fd);
            break;
        }
        fds[started++] = fd;
    }
    return started;
}

/* How many of the connections are established and not closed by the
 * runtime (nothing to read: an idle connection never gets an answer),
 * waiting up to wait_ms for all of them. */
static unsigned count_held(const int *fds, unsigned n, int wait_ms)
{
    struct pollfd *p = calloc(n ? n : 1, sizeof *p);
    if (!p) return 0;
    unsigned held = 0;
    for (int waited = 0;; waited += 50) {
        for (unsigned i = 0; i < n; i++)
            p[i] = (struct pollfd){.fd = fds[i], .events = POLLOUT | POLLIN};
        poll(p, n, 0);
        held = 0;
        for (unsigned i = 0; i < n; i++) {
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            getsockopt(fds[i], SOL_SOCKET, SO_ERROR, &soerr, &sl);
            if ((p[i].revents & POLLOUT) && !(p[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
                soerr == 0)
                held++;
        }
        if (held == n || waited >= wait_ms) break;
        poll(NULL, 0, 50);
    }
    free(p);
    return held;
}

void bench_rest_idle(struct bench_results *r, const struct bench_opts *o, const char *addr)
{
    char label[96];
    bench_fmt(label, sizeof label, "REST health beside %u idle connections",
              BENCH_IDLE_CONNECTIONS);
    struct bench_figure *f = bench_add(r, "rest.health_idle", label, "rest", BENCH_LATENCY);
    if (!f) return;
    bench_fmt(f->floor, sizeof f->floor, "floor.tcp_rtt");
    f->basis = BENCH_RATIO_P50;
    struct sockaddr_storage ss;
    socklen_t len;
    if (strncmp(addr, "unix:", 5) == 0 || resolve(addr, &ss, &len) != 0) {
        bench_fmt(f->note, sizeof f->note, "not measured: %s is not a TCP host:port", addr);
        return;
    }
    raise_fd_limit();
    int *fds = calloc(BENCH_IDLE_CONNECTIONS, sizeof *fds);
    struct probe p = {.h = curl_easy_init()};
    if (!fds || !p.h) {
        bench_fmt(f->note, sizeof f->note, "not measured: out of memory");
        free(fds);
        if (p.h) curl_easy_cleanup(p.h);
        return;
    }
    unsigned opened = open_idle(fds, BENCH_IDLE_CONNECTIONS, &ss, len);
    unsigned held = count_held(fds, opened, CONNECT_WAIT_MS);
    char url[700];
    bench_fmt(url, sizeof url, "http://%s/v1/health", addr);
    curl_easy_setopt(p.h, CURLOPT_URL, url);
    curl_easy_setopt(p.h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(p.h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(p.h, CURLOPT_FRESH_CONNECT, 1L); /* a probe opens its own connection */
    curl_easy_setopt(p.h, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(p.h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(p.h, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(p.h, CURLOPT_ERRORBUFFER, p.errbuf);
    curl_easy_setopt(p.h, CURLOPT_WRITEFUNCTION, discard);
    if (held == BENCH_IDLE_CONNECTIONS) {
        bench_measure_latency(f, o, op_health, &p);
        unsigned after = count_held(fds, opened, 0);
        bench_fmt(f->note, sizeof f->note, "%u idle connections held before, %u after", held,
                  after);
    } else {
        bench_fmt(f->note, sizeof f->note,
                  "not measured: the runtime held %u of %u idle connections", held,
                  BENCH_IDLE_CONNECTIONS);
    }
    for (unsigned i = 0; i < opened; i++)
        close(fds[i]);
    free(fds);
    curl_easy_cleanup(p.h);
}
