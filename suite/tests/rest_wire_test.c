/* SPDX-License-Identifier: Apache-2.0 */
/* The suite's HTTP/1.1 clients (rest_client on libcurl, the cases' bare
 * raw_http) against a scripted loopback server that answers in the ways
 * other conformant stacks (Go net/http, aiohttp, uvicorn, express, nginx,
 * envoy) legally do: chunked bodies without Content-Length, Connection:
 * close, unsolicited interim 1xx responses, HEAD with a Content-Length and
 * no body, 204 with and without Content-Length: 0, HTTP/1.0 bodies ended by
 * close, media types with parameters and in other letter case, extra
 * headers, redirects (returned, never followed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include "concurrency/raw_http.h"
#include "rest_client.h"

/* One canned answer per connection: parts written in order, with a pause
 * before each part after the first. */
struct canned {
    const char *parts[4];
    int pause_ms;
};

struct server {
    int lfd;
    int port;
    const struct canned *answers;
    size_t n;
    pthread_t tid;
};

static void read_head(int fd)
{
    char buf[4096];
    size_t len = 0;
    while (len < sizeof buf - 1) {
        ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (r <= 0) return;
        len += (size_t)r;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\n")) return;
    }
}

static void *serve(void *arg)
{
    struct server *s = arg;
    for (size_t i = 0; i < s->n; i++) {
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0) break;
        read_head(fd);
        for (size_t k = 0; k < 4 && s->answers[i].parts[k]; k++) {
            if (k > 0) usleep((useconds_t)s->answers[i].pause_ms * 1000);
            const char *p = s->answers[i].parts[k];
            if (send(fd, p, strlen(p), MSG_NOSIGNAL) < 0) break;
        }
        shutdown(fd, SHUT_WR);
        char sink[256];
        struct timeval tv = {.tv_sec = 2};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        while (recv(fd, sink, sizeof sink, 0) > 0)
            ;
        close(fd);
    }
    return NULL;
}

static void server_start(struct server *s, const struct canned *answers, size_t n)
{
    memset(s, 0, sizeof *s);
    s->answers = answers;
    s->n = n;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s->lfd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(s->lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(s->lfd, 8), 0);
    socklen_t sl = sizeof sa;
    assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&sa, &sl), 0);
    s->port = ntohs(sa.sin_port);
    assert_int_equal(pthread_create(&s->tid, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
    pthread_join(s->tid, NULL);
    close(s->lfd);
}

static void addr_of(const struct server *s, char *buf, size_t len)
{
    snprintf(buf, len, "127.0.0.1:%d", s->port);
}

static void do_request(const struct server *s, const char *method, struct http_response *r)
{
    char addr[64];
    addr_of(s, addr, sizeof addr);
    struct http_request req = {.method = method, .target = "/v1/health", .timeout_ms = 5000};
    int rc = rest_do_at(addr, &req, r);
    if (rc != 0) fprintf(stderr, "%s: %s\n", method, r->error);
    assert_int_equal(rc, 0);
}

static void test_rest_client_legal_responses(void **state)
{
    (void)state;
    static const struct canned answers[] = {
        /* Chunked JSON, no Content-Length, parameters and odd letter case,
         * extra headers, and the connection closed after the response. */
        {{"HTTP/1.1 200 OK\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nServer: x\r\n"
          "Content-Type: Application/JSON; charset=utf-8\r\nTransfer-Encoding: chunked\r\n"
          "Connection: close\r\nX-Extra: 1\r\n\r\n",
          "5\r\n{\"sta\r\n", "a\r\ntus\":\"ok\"}\r\n0\r\n\r\n"},
         20},
        /* An unsolicited 100 Continue and a 103 before the final response. */
        {{"HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
          "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\n"
          "transfer-encoding: "
          "chunked\r\n\r\n21\r\n{\"code\":\"NOT_FOUND\",\"message\":\"\"}\r\n0\r\n\r\n"},
         20},
        /* HEAD: a Content-Length and no body. */
        {{"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: "
          "1234\r\n\r\n"},
         0},
        /* 204 with and without Content-Length: 0. */
        {{"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"}, 0},
        {{"HTTP/1.1 204 No Content\r\n\r\n"}, 0},
        /* HTTP/1.0, a body ended by the close. */
        {{"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n", "{\"status\":\"ok\"}"}, 20},
        /* A redirect is handed to the case, not followed. */
        {{"HTTP/1.1 308 Permanent Redirect\r\nLocation: /v1/files/a\r\nContent-Length: 0\r\n\r\n"},
         0},
    };
    struct server s;
    server_start(&s, answers, sizeof answers / sizeof answers[0]);
    struct http_response r;

    do_request(&s, "GET", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"status\":\"ok\"}");
    assert_int_equal(r.content_length, -1);
    assert_string_equal(r.content_type, "Application/JSON; charset=utf-8");
    char *h = http_header(&r, "x-extra");
    assert_non_null(h);
    assert_string_equal(h, "1");
    free(h);
    http_response_free(&r);

    do_request(&s, "GET", &r);
    assert_int_equal(r.status, 404);
    assert_string_equal(r.body, "{\"code\":\"NOT_FOUND\",\"message\":\"\"}");
    assert_string_equal(r.content_type, "application/json");
    h = http_header(&r, "Content-Type"); /* header names in any case */
    assert_non_null(h);
    free(h);
    http_response_free(&r);

    do_request(&s, "HEAD", &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, 0);
    assert_int_equal(r.content_length, 1234);
    http_response_free(&r);

    for (int i = 0; i < 2; i++) {
        do_request(&s, "DELETE", &r);
        assert_int_equal(r.status, 204);
        assert_int_equal(r.body_len, 0);
        http_response_free(&r);
    }

    do_request(&s, "GET", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"status\":\"ok\"}");
    http_response_free(&r);

    do_request(&s, "GET", &r);
    assert_int_equal(r.status, 308);
    h = http_header(&r, "location");
    assert_non_null(h);
    assert_string_equal(h, "/v1/files/a");
    free(h);
    http_response_free(&r);
    server_stop(&s);
}

/* raw_http: interim responses are not an answer; the final status is read
 * past them. */
static void test_raw_http_skips_interim(void **state)
{
    (void)state;
    static const struct canned answers[] = {
        {{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n",
          "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"},
         300},
        {{"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"}, 0},
    };
    struct server s;
    server_start(&s, answers, sizeof answers / sizeof answers[0]);
    char addr[64];
    addr_of(&s, addr, sizeof addr);

    struct raw_conn *fd = raw_connect(addr, 5000);
    assert_non_null(fd);
    assert_true(raw_send_head(fd, addr, "PUT", "/v1/files/x", 0, NULL));
    /* Only the interim responses within 150 ms: no answer yet. */
    assert_false(raw_peer_spoke(fd, 150));
    assert_true(raw_peer_spoke(fd, 3000));
    assert_int_equal(raw_read_status(fd, 3000), 204);
    raw_close(fd);

    fd = raw_connect(addr, 5000);
    assert_non_null(fd);
    assert_true(raw_send_head(fd, addr, "PUT", "/v1/files/x", 0, NULL));
    assert_int_equal(raw_read_status(fd, 3000), 400);
    raw_close(fd);
    server_stop(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest_client_legal_responses),
        cmocka_unit_test(test_raw_http_skips_interim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
