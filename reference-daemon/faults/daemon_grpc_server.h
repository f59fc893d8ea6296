/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_DAEMON_GRPC_SERVER_H
#define SBX_FAULTS_DAEMON_GRPC_SERVER_H
/* The fault build's gRPC server set-up (daemon_behaviour.h): the options
 * of max-streams-16, unknown-method-internal and the gRPC encoding
 * variants; no-reflection; grpc-listen-any and sweep-grpc-silent. */
#include <stddef.h>

#include "sbx_grpc_server.h"

void fault_grpc_options(struct sbx_grpc_server_opts *o);
int fault_register_reflection(struct sbx_grpc_server *srv);
int fault_listen_grpc_tcp(struct sbx_grpc_server *srv, const char *host, int port, int *bound_port,
                          char *err, size_t err_len);

#endif
