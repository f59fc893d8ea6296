/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVICE_REQUEST_H
#define SBX_GRPC_SERVICE_REQUEST_H
/* Validation of ProcessService requests into what the daemon acts on. Pure
 * functions over decoded protobuf-c messages: no I/O (the fuzz target
 * daemon_grpc_request runs them alone). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "process.pb-c.h"
#include "process/env.h"

/* What a Start or Execute asks for. Strings point into the decoded message,
 * which must outlive the spec. */
struct launch_spec {
    char **argv; /* NULL-terminated copy of the pointer array (malloc'd) */
    size_t argc;
    struct env_var *env; /* malloc'd, nenv entries */
    size_t nenv;
    const char *cwd; /* NULL when absent */
    bool pty;
    uint16_t cols, rows; /* clamped to the terminal's 16-bit range */
};

/* Fills spec from a ProcessConfig (and the optional PTY of a Start).
 * Returns a gRPC status code: OK, INVALID_ARGUMENT for a missing config or
 * an empty command (P5), RESOURCE_EXHAUSTED when out of memory; msg gets a
 * human-readable reason. */
int launch_spec_init(struct launch_spec *spec, const Process__V1__ProcessConfig *cfg,
                     const Process__V1__PTY *pty, char *msg, size_t msglen);
void launch_spec_free(struct launch_spec *spec);

/* Maps the wire Signal enum to a signal number. Returns OK or
 * INVALID_ARGUMENT (SIGNAL_UNSPECIFIED and values outside the enum). */
int signal_from_wire(int wire, int *signo);

/* Number of unknown fields in a decoded message and its sub-messages that
 * the daemon reads (the daemon skips them, as protobuf readers do). */
unsigned request_unknown_fields(const ProtobufCMessage *msg);

/* The gRPC code and message for an exec failure (errno from spawn). */
int exec_errno_status(int err, const char *command, char *msg, size_t msglen);

/* The gRPC code and message for a cwd resolution failure. */
int cwd_error_status(int fs_error, const char *cwd, char *msg, size_t msglen);

#endif
