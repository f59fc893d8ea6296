/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_DIAL_H
#define SBX_GRPC_DIAL_H
/* Opens a gRPC client connection to a surface address: "https://HOST:PORT"
 * over TLS with ALPN h2 (the run's TLS settings), anything else in
 * cleartext as sbx_grpc_connect does. --authority, when given, is the
 * :authority of every call, and the user's request headers
 * (request_headers.h) are metadata on every call. Every gRPC connection the
 * suite and the bench make goes through here. */
#include <stddef.h>

#include "sbx_grpc_client.h"

struct sbx_grpc_conn *grpc_dial(const char *addr, const struct sbx_grpc_conn_opts *opts, char *err,
                                size_t err_len);

#endif
