/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_RUN_TARGET_H
#define SBX_RUN_TARGET_H
/* The endpoint a run talks to, shared read-only by the parent and every
 * forked worker: addresses, launch details and the run's workspace prefix. */
#include <stdbool.h>
#include <stdint.h>

struct run_target {
    char grpc_addr[512]; /* host:port, [v6]:port or unix:/path */
    char rest_addr[512];
    bool launch_mode;           /* the suite started the runtime */
    char **planted_env;         /* launch mode: NULL-terminated "NAME=value" list */
    char *root_path;            /* launch mode: absolute root; else NULL */
    char *launch_template;      /* launch mode: command with {placeholders} */
    char *run_tmp;              /* the run's local temporary directory */
    char prefix[32];            /* per-run workspace prefix, e.g. "sbxc-3f9a1c07" */
    bool have_procfs_hint;      /* launch mode on Linux: /proc exists locally */
    unsigned health_timeout_ms; /* how long launches wait for /v1/health */
    bool confine_runtime;       /* launches get a private, read-only host view (confine.h) */
    /* Transport profile: why the gRPC address cannot carry gRPC (it answers
     * HTTP/1.x, e.g. a proxy without HTTP/2); "" when it can. Cases that
     * need gRPC are then skipped with this reason. */
    char grpc_unusable[600];
};

#endif
