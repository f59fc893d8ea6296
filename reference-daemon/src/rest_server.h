/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_SERVER_H
#define SBX_REST_SERVER_H
/* The REST half of the daemon (contract section 2; clauses F, S, M, C):
 * an HTTP/1.1 server on the REST port, running on its own threads. */
#include <stddef.h>

#include "daemon_state.h"

struct rest_server;

/* Binds cfg->listen_host:cfg->rest_port and starts serving. On success sets
 * st->bound_rest_port. Returns NULL with a message in err on failure. */
struct rest_server *rest_server_start(struct daemon_state *st, char *err, size_t errlen);

/* Stops accepting, finishes or aborts in-flight requests, frees. */
void rest_server_stop(struct rest_server *srv);

#endif
