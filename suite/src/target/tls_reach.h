/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_TLS_REACH_H
#define SBX_TLS_REACH_H
/* The TLS part of reaching an attached runtime before any case runs: a
 * handshake that fails, or a server that wants a client certificate it was
 * not given and refuses the requests, ends the run (exit 3) with the cause
 * in words rather than as the runtime's failures. */
#include <stdio.h>

#include "tls_connect.h"

/* A gRPC surface whose server asked for a client certificate and got none
 * (peer from the endpoint check) must still answer a call with HTTP 200, as
 * every gRPC server does (grpc-status UNIMPLEMENTED for an unknown method);
 * a TLS proxy that refuses such clients answers 400. 0 or -1 with err. */
int tls_reach_grpc(const char *addr, const struct tls_peer *peer, char *err, size_t err_len);

/* An https:// REST surface: the handshake, described in peer. 0 (also for a
 * cleartext address) or -1 with err. */
int tls_reach_rest(const char *addr, struct tls_peer *peer, char *err, size_t err_len);

/* A REST health answer other than 200 from a server that asked for a
 * client certificate and got none is that refusal: -1 with err. Else 0. */
int tls_reach_rest_answer(const char *addr, const struct tls_peer *peer, long status,
                          const char *body, char *err, size_t err_len);

/* One line on the surface's TLS session (nothing for cleartext). */
void tls_reach_print(FILE *f, const char *surface, const struct tls_peer *peer);

#endif
