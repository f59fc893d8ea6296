/* SPDX-License-Identifier: Apache-2.0 */
/* ProcessService request validation and error mapping. */
#include "grpc_service/request.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/resolve.h"
#include "sbx_grpc_status.h"

static uint16_t clamp16(uint32_t v)
{
    return v > 65535 ? 65535 : (uint16_t)v;
}

int launch_spec_init(struct launch_spec *spec, const Process__V1__ProcessConfig *cfg,
                     const Process__V1__PTY *pty, char *msg, size_t msglen)
{
    memset(spec, 0, sizeof(*spec));
    if (!cfg) {
        snprintf(msg, msglen, "config is required");
        return SBX_GRPC_INVALID_ARGUMENT;
    }
    if (cfg->n_command == 0 || !cfg->command[0] || cfg->command[0][0] == '\0') {
        snprintf(msg, msglen, "command must not be empty");
        return SBX_GRPC_INVALID_ARGUMENT;
    }
    spec->argc = cfg->n_command;
    spec->argv = calloc(cfg->n_command + 1, sizeof(char *));
    spec->env = calloc(cfg->n_env_vars ? cfg->n_env_vars : 1, sizeof(*spec->env));
    if (!spec->argv || !spec->env) {
        launch_spec_free(spec);
        snprintf(msg, msglen, "out of memory");
        return SBX_GRPC_RESOURCE_EXHAUSTED;
    }
    for (size_t i = 0; i < cfg->n_command; i++)
        spec->argv[i] = cfg->command[i];
    for (size_t i = 0; i < cfg->n_env_vars; i++) {
        const Process__V1__ProcessConfig__EnvVarsEntry *e = cfg->env_vars[i];
        spec->env[spec->nenv].key = e && e->key ? e->key : "";
        spec->env[spec->nenv].value = e && e->value ? e->value : "";
        spec->nenv++;
    }
    if (cfg->_cwd_case == PROCESS__V1__PROCESS_CONFIG___CWD_CWD && cfg->cwd) spec->cwd = cfg->cwd;
    if (pty) {
        spec->pty = true;
        spec->cols = clamp16(pty->cols);
        spec->rows = clamp16(pty->rows);
    }
    return SBX_GRPC_OK;
}

void launch_spec_free(struct launch_spec *spec)
{
    free(spec->argv);
    free(spec->env);
    spec->argv = NULL;
    spec->env = NULL;
}

int signal_from_wire(int wire, int *signo)
{
    switch (wire) {
    case PROCESS__V1__SIGNAL__SIGNAL_SIGINT:
        *signo = 2;
        return SBX_GRPC_OK;
    case PROCESS__V1__SIGNAL__SIGNAL_SIGKILL:
        *signo = 9;
        return SBX_GRPC_OK;
    case PROCESS__V1__SIGNAL__SIGNAL_SIGTERM:
        *signo = 15;
        return SBX_GRPC_OK;
    default:
        return SBX_GRPC_INVALID_ARGUMENT;
    }
}

unsigned request_unknown_fields(const ProtobufCMessage *msg)
{
    if (!msg) return 0;
    unsigned n = msg->n_unknown_fields;
    const ProtobufCMessageDescriptor *d = msg->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE || f->label == PROTOBUF_C_LABEL_REPEATED) continue;
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            uint32_t which = *(const uint32_t *)((const char *)msg + f->quantifier_offset);
            if (which != f->id) continue;
        }
        const ProtobufCMessage *sub = *(ProtobufCMessage *const *)((const char *)msg + f->offset);
        n += request_unknown_fields(sub);
    }
    return n;
}

int exec_errno_status(int err, const char *command, char *msg, size_t msglen)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
    case ELOOP:
    case ENAMETOOLONG:
        snprintf(msg, msglen, "command not found: %s", command);
        return SBX_GRPC_NOT_FOUND;
    case EACCES:
    case EPERM:
        snprintf(msg, msglen, "command is not executable: %s", command);
        return SBX_GRPC_PERMISSION_DENIED;
    case E2BIG:
        snprintf(msg, msglen, "argument list or environment too long");
        return SBX_GRPC_INVALID_ARGUMENT;
    case ENOEXEC:
        snprintf(msg, msglen, "not an executable format: %s", command);
        return SBX_GRPC_PERMISSION_DENIED;
    case EMFILE:
    case ENFILE:
    case EAGAIN:
    case ENOMEM:
        snprintf(msg, msglen, "cannot start process: %s", strerror(err));
        return SBX_GRPC_RESOURCE_EXHAUSTED;
    default:
        snprintf(msg, msglen, "cannot start process: %s", strerror(err));
        return SBX_GRPC_INTERNAL;
    }
}

int cwd_error_status(int fs_error, const char *cwd, char *msg, size_t msglen)
{
    snprintf(msg, msglen, "cwd '%s': %s", cwd ? cwd : "", fs_resolve_strerror(fs_error));
    switch (fs_error) {
    case FS_ESCAPE:
        return SBX_GRPC_PERMISSION_DENIED;
    case FS_NOTFOUND:
        return SBX_GRPC_NOT_FOUND;
    case FS_NOTDIR:
        return SBX_GRPC_FAILED_PRECONDITION;
    case FS_LOOP:
    case FS_INVALID:
        return SBX_GRPC_INVALID_ARGUMENT;
    default:
        return SBX_GRPC_INTERNAL;
    }
}
