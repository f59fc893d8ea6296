/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_ENDPOINT_H
#define SBX_ENDPOINT_H
/* Endpoint addresses and the up-front reachability check. */
#include <stdbool.h>
#include <stddef.h>

struct tls_peer;

/* Validates "host:port", "[v6]:port", "unix:/path" or "https://host:port";
 * 0 or -1 with err. */
int endpoint_validate(const char *addr, char *err, size_t err_len);

/* Opens a stream socket to addr within timeout_ms (the TCP connection of an
 * https:// address: no handshake); fd or -1 with err. */
int endpoint_connect(const char *addr, unsigned timeout_ms, char *err, size_t err_len);

/* The gRPC endpoint accepts a connection and answers the HTTP/2 connection
 * preface with a SETTINGS frame. 0, or -1 with err; ENDPOINT_HTTP1 (err
 * quoting its status line) when it answers in HTTP/1.x, as the REST port or
 * a proxy that cannot carry gRPC does. */
#define ENDPOINT_HTTP1 (-2)
int endpoint_check_grpc(const char *addr, unsigned timeout_ms, char *err, size_t err_len);
/* The same; over TLS (https://) the handshake must select h2 by ALPN, and
 * peer (if not NULL) gets what the handshake agreed on. */
int endpoint_check_grpc_peer(const char *addr, unsigned timeout_ms, struct tls_peer *peer,
                             char *err, size_t err_len);

/* Handshakes with the https:// surface at addr offering alpn and describes
 * the session in peer. 0, or -1 with err naming the cause. */
int endpoint_tls_probe(const char *addr, const char *alpn, unsigned timeout_ms,
                       struct tls_peer *peer, char *err, size_t err_len);

/* The REST endpoint answers GET /v1/health with any HTTP response; the
 * status and body are returned (body malloc'd, may be NULL). 0 or -1. */
int endpoint_check_rest(const char *addr, unsigned timeout_ms, long *status, char **body, char *err,
                        size_t err_len);

#endif
