/* SPDX-License-Identifier: Apache-2.0 */
/* HEAD checked on a bare connection (see head_wire.h). */
#include "files/head_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "case_api.h"
#include "concurrency/raw_http.h"
#include "request_headers.h"
#include "text_util.h"

#define WIRE_TIMEOUT_MS 5000
#define STRAY_WAIT_MS 300 /* how long bytes after the header block are waited for */

/* Reads what arrives within wait_ms into buf[*len..cap); false once the
 * peer closed or failed (*closed set on an orderly close). */
static bool read_more(struct raw_conn *c, char *buf, size_t cap, size_t *len, int wait_ms,
                      bool *closed)
{
    if (*len >= cap) return true;
    ssize_t n = raw_recv(c, buf + *len, cap - *len, wait_ms);
    if (n == -2) return true;
    if (n <= 0) {
        *closed = n == 0;
        return false;
    }
    *len += (size_t)n;
    return true;
}

/* Offset just past the final header block in buf (interim 1xx responses
 * skipped), or 0 when it is not complete yet. */
static size_t header_end(const char *buf, size_t len, size_t *start)
{
    size_t at = 0;
    for (;;) {
        const char *end = memmem(buf + at, len - at, "\r\n\r\n", 4);
        if (!end) return 0;
        size_t next = (size_t)(end + 4 - buf);
        bool interim = len - at >= 12 && strncmp(buf + at, "HTTP/1.", 7) == 0 &&
                       buf[at + 9] == '1' && strncmp(buf + at + 9, "101", 3) != 0;
        if (!interim) {
            *start = at;
            return next;
        }
        at = next;
    }
}

static bool send_text(struct raw_conn *c, const char *s)
{
    return raw_send_all(c, s, strlen(s));
}

void head_wire_check(struct case_ctx *ctx, const char *target)
{
    const char *addr = case_rest_addr(ctx);
    const char *host = raw_host(addr);
    struct raw_conn *conn = raw_connect(addr, WIRE_TIMEOUT_MS);
    if (!conn) {
        case_error(ctx, "cannot open a connection to %s for the raw HEAD", addr);
        return;
    }
    /* The user's headers (a router's) ride along after Host. */
    char *user = request_headers_raw_block(NULL);
    char *req =
        user ? text_fmt("HEAD %.900s HTTP/1.1\r\nHost: %s\r\n%s\r\n", target, host, user) : NULL;
    char *get = user
                    ? text_fmt("GET /v1/health HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n\r\n",
                               host, user)
                    : NULL;
    free(user);
    if (!req || !get) {
        case_error(ctx, "out of memory");
        goto out;
    }
    case_request(ctx, "HEAD %s on a bare keep-alive connection, then GET /v1/health on it", target);
    char buf[16384];
    size_t len = 0, start = 0, end = 0;
    bool closed = false, alive = send_text(conn, req);
    uint64_t t0 = case_now_ms();
    while (alive && !(end = header_end(buf, len, &start)) && case_now_ms() - t0 < WIRE_TIMEOUT_MS)
        alive = read_more(conn, buf, sizeof buf, &len, 200, &closed);
    if (!end) {
        case_fail(ctx, "HEAD answered with a complete header block (F9)", "%s after %zu bytes",
                  closed ? "the connection closed" : "nothing more within 5 s", len);
        goto out;
    }
    /* Whatever comes next, before a second request is sent, is a body. */
    t0 = case_now_ms();
    while (alive && case_now_ms() - t0 < STRAY_WAIT_MS)
        alive = read_more(conn, buf, sizeof buf, &len, STRAY_WAIT_MS, &closed);
    size_t stray = len - end;
    CASE_CHECK(ctx, stray == 0, "no byte after the header block of a HEAD answer (F9: no body)",
               "%zu byte(s) followed the header block, starting \"%.*s\"%s", stray,
               (int)(stray < 24 ? stray : 24), buf + end,
               closed ? ", then the runtime closed the connection" : "");
    bool said_close = false;
    for (const char *h = buf + start; h && h < buf + end;
         h = memchr(h, '\n', (size_t)(buf + end - h))) {
        if (*h == '\n') h++;
        if (strncasecmp(h, "Connection:", 11) == 0 && strstr(h, "close") &&
            strstr(h, "close") < (const char *)memchr(h, '\n', (size_t)(buf + end - h)))
            said_close = true;
    }
    if (!alive || closed) {
        case_note(ctx, "the runtime closed the connection after HEAD%s",
                  said_close ? " (it said Connection: close)" : " without Connection: close");
        goto out;
    }
    /* The connection stays usable: the next answer starts where it should. */
    size_t before = len;
    if (send_text(conn, get)) {
        t0 = case_now_ms();
        while (len - before < 12 && case_now_ms() - t0 < WIRE_TIMEOUT_MS &&
               read_more(conn, buf, sizeof buf, &len, 200, &closed))
            ;
    }
    if (len - before == 0 && said_close) {
        case_note(ctx, "the runtime said Connection: close after HEAD and did not answer a "
                       "second request");
    } else {
        CASE_CHECK(ctx, len - before >= 7 && strncmp(buf + before, "HTTP/1.", 7) == 0,
                   "the connection answers a second request after HEAD with a clean status line",
                   "%zu byte(s) came back, starting \"%.*s\"", len - before,
                   (int)(len - before < 24 ? len - before : 24), buf + before);
    }
out:
    free(req);
    free(get);
    raw_close(conn);
}
