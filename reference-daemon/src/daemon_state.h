/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_DAEMON_STATE_H
#define SBX_DAEMON_STATE_H
/* Run-time state shared by the gRPC half and the REST half of the daemon.
 * Both act on one root (P18) through one directory descriptor. */
#include <stdatomic.h>
#include <time.h>

#include "daemon_config.h"

struct daemon_state {
    const struct daemon_config *cfg;
    int root_fd;               /* O_PATH|O_DIRECTORY descriptor of the sandbox root */
    struct timespec started;   /* CLOCK_MONOTONIC at start-up, for uptime_seconds */
    atomic_bool shutting_down; /* set first thing on SIGTERM/SIGINT: health answers 503 */
    int bound_grpc_port;       /* actual ports after bind (differ from cfg when 0) */
    int bound_rest_port;
};

#endif
