/* SPDX-License-Identifier: Apache-2.0 */
/* The program's start-up faults and variants of sandboxd-ref-faulty:
 * wrappers around its real decisions (daemon_behaviour.h), linked instead
 * of daemon_behaviour_real.c. Each acts while its fault is on and
 * otherwise calls daemon_real. */
#include <errno.h>

#include "daemon_behaviour.h"
#include "daemon_command_line.h"
#include "daemon_grpc_server.h"
#include "fault.h"

/* no-create-root: a missing root is an error, as if it could not be made. */
static int create_root(const char *path)
{
    if (!fault_active(FAULT_NO_CREATE_ROOT)) return daemon_real.create_root(path);
    errno = ENOENT;
    return -1;
}

static const struct daemon_behaviour daemon_faulty = {
    .take_flag = fault_take_flag,
    .configured = fault_configured,
    .create_root = create_root,
    .grpc_options = fault_grpc_options,
    .register_reflection = fault_register_reflection,
    .listen_grpc_tcp = fault_listen_grpc_tcp,
};

const struct daemon_behaviour *const daemon_behaviour = &daemon_faulty;
