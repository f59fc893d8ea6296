/* SPDX-License-Identifier: Apache-2.0 */
/* The suite's libcurl response handling (suite/src/clients/rest_client.c) fed
 * arbitrary runtime responses: a thread plays the runtime on a Unix socket,
 * reads the request head, answers with the input's bytes and closes; the
 * suite's rest_do_at collects status, headers and body as every REST case
 * does, then looks headers up and renders a body preview.
 *
 * Oracle: the body kept never exceeds max_body and is NUL-terminated, a
 * truncated body is flagged, a status comes only with a response, a header
 * lookup returns a value that occurs in the raw header block.
 *
 * Input: byte 0 picks the method (GET, HEAD, PUT, DELETE); the rest is the
 * response. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "rest_client.h"

static int listen_fd = -1;
static char sock_dir[64], addr[128];
static pthread_t server;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static const uint8_t *answer;
static size_t answer_len;
static int pending; /* 1: an answer waits for the next connection */

static void serve_one(int fd)
{
    char head[8192];
    size_t got = 0;
    while (got < sizeof head - 1) {
        ssize_t n = recv(fd, head + got, sizeof head - 1 - got, 0);
        if (n <= 0) break;
        got += (size_t)n;
        head[got] = '\0';
        if (strstr(head, "\r\n\r\n")) break;
    }
    pthread_mutex_lock(&lock);
    const uint8_t *a = answer;
    size_t len = answer_len;
    pthread_mutex_unlock(&lock);
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, a + off, len - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += (size_t)n;
    }
    shutdown(fd, SHUT_WR);
    /* Drain a request body so the client's upload never blocks, then close. */
    while (recv(fd, head, sizeof head, 0) > 0) {
    }
    close(fd);
}

static void *serve(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept(listen_fd, NULL, NULL);
        if (fd < 0) continue;
        struct timeval tv = {.tv_sec = 2};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        serve_one(fd);
        pthread_mutex_lock(&lock);
        pending = 0;
        pthread_cond_signal(&cond);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static void remove_socket(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/rest.sock", sock_dir);
    unlink(path);
    rmdir(sock_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(sock_dir, sizeof sock_dir, "/tmp/sbx-fuzz-rest-XXXXXX");
    FUZZ_CHECK(mkdtemp(sock_dir) != NULL, "mkdtemp");
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    snprintf(sun.sun_path, sizeof sun.sun_path, "%s/rest.sock", sock_dir);
    snprintf(addr, sizeof addr, "unix:%s", sun.sun_path);
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    FUZZ_CHECK(listen_fd >= 0, "socket");
    FUZZ_CHECK(bind(listen_fd, (struct sockaddr *)&sun, sizeof sun) == 0, "bind");
    FUZZ_CHECK(listen(listen_fd, 8) == 0, "listen");
    atexit(remove_socket);
    FUZZ_CHECK(pthread_create(&server, NULL, serve, NULL) == 0, "thread");
    pthread_detach(server);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 256 * 1024) return 0;
    static const char *const methods[] = {"GET", "HEAD", "PUT", "DELETE"};
    const char *method = methods[data[0] & 3];
    pthread_mutex_lock(&lock);
    answer = data + 1;
    answer_len = size - 1;
    pending = 1;
    pthread_mutex_unlock(&lock);

    struct http_request req = {
        .method = method,
        .target = "/v1/files/a%20b",
        .body = strcmp(method, "PUT") == 0 ? "x" : NULL,
        .body_len = strcmp(method, "PUT") == 0 ? 1 : 0,
        .timeout_ms = 2000,
        .max_body = 4096,
    };
    struct http_response resp;
    int rc = rest_do_at(addr, &req, &resp);

    /* The runtime side has finished with this input before the next one. */
    pthread_mutex_lock(&lock);
    while (pending)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);

    FUZZ_CHECK(resp.body != NULL, "no body buffer");
    FUZZ_CHECK(resp.body_len <= req.max_body, "kept %zu body bytes, max %zu", resp.body_len,
               req.max_body);
    FUZZ_CHECK(resp.body[resp.body_len] == '\0', "body not NUL-terminated");
    FUZZ_CHECK(rc == 0 ? resp.status > 0 : resp.status == 0, "rc %d status %ld", rc, resp.status);
    if (rc != 0) FUZZ_CHECK(resp.error[0] != '\0', "a transport error without a message");
    static const char *const names[] = {"Content-Type",  "content-length", "Location",
                                        "Content-Range", "Allow",          "X-Missing"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *v = http_header(&resp, names[i]);
        if (v) {
            FUZZ_CHECK(resp.raw_headers != NULL && strstr(resp.raw_headers, v) != NULL,
                       "header %s: '%s' is not in the header block", names[i], v);
            free(v);
        }
    }
    char *preview = http_body_preview(&resp, 64);
    free(preview);
    http_response_free(&resp);
    return 0;
}
