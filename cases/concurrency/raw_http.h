#ifndef SBX_CASES_RAW_HTTP_H
#define SBX_CASES_RAW_HTTP_H
/* A bare HTTP/1.1 client on a socket, for requests libcurl cannot shape:
 * uploads that trickle a few bytes at a time or stop halfway. */
#include <stdbool.h>
#include <stddef.h>

/* Connects to host:port, [v6]:port or unix:/path. Returns a blocking socket
 * with send/receive timeouts of timeout_ms, or -1. */
int raw_connect(const char *addr, int timeout_ms);

/* Sends all bytes; false when the peer closed or the send timed out. */
bool raw_send_all(int fd, const void *buf, size_t n);

/* Sends "METHOD target HTTP/1.1" with Host, Content-Length (when >= 0) and
 * Connection: close headers, plus extra (a "Name: value\r\n..." block or
 * NULL). */
bool raw_send_head(int fd, const char *addr, const char *method, const char *target,
                   long long content_length, const char *extra);

/* True when the peer has answered (or closed) within wait_ms. Interim 1xx
 * responses (100 Continue, 102, 103) are read and dropped: they are not an
 * answer. */
bool raw_peer_spoke(int fd, int wait_ms);

/* Reads the final response's status line within timeout_ms (interim 1xx
 * responses skipped); returns the status, 0 when the peer closed without
 * one, -1 on timeout or error. */
long raw_read_status(int fd, int timeout_ms);

#endif
