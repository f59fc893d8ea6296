/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_RAW_HTTP_H
#define SBX_CASES_RAW_HTTP_H
/* A bare HTTP/1.1 client on a socket, for requests libcurl cannot shape:
 * uploads that trickle a few bytes at a time or stop halfway. An https://
 * address gets a TLS session over the socket (the run's TLS settings), so
 * the same bytes reach the runtime through a TLS-terminating proxy. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct raw_conn;

/* Connects to host:port, [v6]:port, unix:/path or https://host:port, with
 * send/receive bounded by timeout_ms. NULL on failure. */
struct raw_conn *raw_connect(const char *addr, int timeout_ms);

/* A cleartext connection over a socket already open (the fuzz target's
 * socketpair); it takes fd over, closing it on failure. NULL on failure. */
struct raw_conn *raw_adopt(int fd, int timeout_ms);

/* Closes the connection (the socket and any TLS session). NULL is allowed. */
void raw_close(struct raw_conn *c);

/* Sends all bytes; false when the peer closed or the send timed out. */
bool raw_send_all(struct raw_conn *c, const void *buf, size_t n);

/* Sends "METHOD target HTTP/1.1" with Host, Content-Length (when >= 0) and
 * Connection: close headers, plus extra (a "Name: value\r\n..." block or
 * NULL). */
bool raw_send_head(struct raw_conn *c, const char *addr, const char *method, const char *target,
                   long long content_length, const char *extra);

/* The Host header value for addr ("localhost" for a unix socket; the
 * --authority when one was given). */
const char *raw_host(const char *addr);

/* Reads what arrives within wait_ms: bytes (> 0), 0 when the peer closed,
 * -1 on an error, -2 when nothing arrived in time. */
ssize_t raw_recv(struct raw_conn *c, void *buf, size_t cap, int wait_ms);

/* True when the peer has answered (or closed) within wait_ms. Interim 1xx
 * responses (100 Continue, 102, 103) are read and dropped: they are not an
 * answer. */
bool raw_peer_spoke(struct raw_conn *c, int wait_ms);

/* Reads the final response's status line within timeout_ms (interim 1xx
 * responses skipped); returns the status, 0 when the peer closed without
 * one, -1 on timeout or error. */
long raw_read_status(struct raw_conn *c, int timeout_ms);

#endif
