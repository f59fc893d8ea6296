/* SPDX-License-Identifier: Apache-2.0 */
/* A small libcurl client for the REST integration tests. */
#include "rest_test_client.h"
#include "test_parse.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Grows the body geometrically: an exact-size realloc per chunk copies an
 * 8 MiB body hundreds of times, slow enough under AddressSanitizer on a
 * loaded machine to hit the transfer timeout. */
static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    struct http_resp *r = ud;
    size_t add = sz * n;
    if (r->len + add + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + add + 1)
            cap *= 2;
        char *nb = realloc(r->body, cap);
        if (!nb) return 0;
        r->body = nb;
        r->cap = cap;
    }
    memcpy(r->body + r->len, p, add);
    r->len += add;
    r->body[r->len] = '\0';
    return add;
}

static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
    while (n > 0 && (v[n - 1] == '\r' || v[n - 1] == '\n'))
        n--;
    while (n > 0 && *v == ' ') {
        v++;
        n--;
    }
    if (n >= cap) n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    struct http_resp *r = ud;
    size_t len = sz * n;
    const char *colon = memchr(p, ':', len);
    if (!colon) return len;
    size_t kl = (size_t)(colon - p);
    const char *v = colon + 1;
    size_t vl = len - kl - 1;
    if (kl == 12 && strncasecmp(p, "Content-Type", 12) == 0)
        copy_value(r->content_type, sizeof(r->content_type), v, vl);
    else if (kl == 5 && strncasecmp(p, "Allow", 5) == 0)
        copy_value(r->allow, sizeof(r->allow), v, vl);
    else if (kl == 13 && strncasecmp(p, "Content-Range", 13) == 0)
        copy_value(r->content_range, sizeof(r->content_range), v, vl);
    else if (kl == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
        char tmp[32];
        copy_value(tmp, sizeof(tmp), v, vl);
        long length;
        r->content_length = test_parse_long(tmp, 0, LONG_MAX, &length, NULL) ? length : -2;
    }
    return len;
}

int http_do(int port, const char *method, const char *target, const void *body, size_t len,
            const char *const *headers, struct http_resp *r)
{
    memset(r, 0, sizeof(*r));
    r->content_length = -1;
    r->body = calloc(1, 1);
    r->cap = 1;
    CURL *c = curl_easy_init();
    if (!c || !r->body) return -1;
    char url[16384];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, target);
    struct curl_slist *hl = NULL;
    int has_ct = 0;
    for (size_t i = 0; headers && headers[i]; i++) {
        hl = curl_slist_append(hl, headers[i]);
        if (strncasecmp(headers[i], "Content-Type:", 13) == 0) has_ct = 1;
    }
    if (body && !has_ct) hl = curl_slist_append(hl, "Content-Type: application/octet-stream");
    hl = curl_slist_append(hl, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    else
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    else /* Said, so that a failing assertion on the result can be read. */
        fprintf(stderr, "http_do: %s %s: %s\n", method, target, curl_easy_strerror(rc));
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    return rc == CURLE_OK ? 0 : -1;
}

void http_resp_free(struct http_resp *r)
{
    free(r->body);
    r->body = NULL;
}

int raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

long raw_exchange(int port, const char *req, size_t len, char *out, size_t cap, int timeout_ms)
{
    int fd = raw_connect(port);
    if (fd < 0) return -1;
    if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len) {
        close(fd);
        return -1;
    }
    size_t got = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long el = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (el >= timeout_ms || got + 1 >= cap) break;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)(timeout_ms - el)) <= 0) break;
        ssize_t n = recv(fd, out + got, cap - 1 - got, 0);
        if (n <= 0) break;
        got += (size_t)n;
    }
    out[got] = '\0';
    close(fd);
    return (long)got;
}
