/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_DAEMON_BEHAVIOUR_H
#define SBX_DAEMON_BEHAVIOUR_H
/* The start-up decisions of the program (main.c, daemon_config.c) that
 * another build of the daemon may wrap: flags beyond the daemon's own, root
 * creation, the gRPC server's options and its listeners. Chosen at link
 * time like fs_behaviour (fs/fs_behaviour.h): sandboxd-ref links
 * daemon_behaviour_real.c, sandboxd-ref-faulty its wrappers from
 * reference-daemon/faults/. Constant while the daemon runs. */
#include <stdbool.h>
#include <stddef.h>

#include "daemon_config.h"
#include "sbx_grpc_server.h"

struct daemon_behaviour {
    /* A flag daemon_config_parse does not know, with its value: true when
     * taken (the real daemon knows no other flag). */
    bool (*take_flag)(const char *name, const char *value);
    /* After the command line was parsed, before anything starts: -1 to
     * run on, else the status to exit with (message already printed). */
    int (*configured)(const struct daemon_config *cfg, int argc, char **argv);
    /* Creates the missing root directory and its parents (L2): 0, or -1
     * with errno set. */
    int (*create_root)(const char *path);
    /* Completes the gRPC server's options before it is created: what the
     * gRPC protocol leaves to the server (stream limit, encodings). */
    void (*grpc_options)(struct sbx_grpc_server_opts *o);
    /* Registers the reflection service on srv: 0 or -1. */
    int (*register_reflection)(struct sbx_grpc_server *srv);
    /* Listens for gRPC on host:port (sbx_grpc_server_listen_tcp). */
    int (*listen_grpc_tcp)(struct sbx_grpc_server *srv, const char *host, int port, int *bound_port,
                           char *err, size_t err_len);
};

bool daemon_take_flag_real(const char *name, const char *value);
int daemon_configured_real(const struct daemon_config *cfg, int argc, char **argv);
int daemon_create_root_real(const char *path);
void daemon_grpc_options_real(struct sbx_grpc_server_opts *o);
int daemon_register_reflection_real(struct sbx_grpc_server *srv);

extern const struct daemon_behaviour daemon_real;
extern const struct daemon_behaviour *const daemon_behaviour;

#endif
