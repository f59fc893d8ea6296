/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_TARGET_H
#define SBX_BENCH_TARGET_H
/* The runtime a bench measures: attached to (addresses, optional PID) or
 * launched through the runner's launcher (a command template, or the bundled
 * sandboxd-ref), whose PID is then known. */
#include <stdbool.h>
#include <stddef.h>

#include "bench_opts.h"
#include "launcher.h"

struct bench_target_rt {
    const char *mode; /* "launch" or "attach" */
    const char *grpc; /* addresses in use */
    const char *rest;
    int pid; /* 0 = unknown */
    const char *command;
    char *work_dir;  /* launch mode: holds the runtime's dir (root, log) */
    char *floor_dir; /* where the file floors write: same filesystem as the root
                        in launch mode */
    bool launched;
    struct launched_runtime rt;
    char template_buf[4200];
};

/* Opens the target and checks it answers (GET /v1/health, Execute `true`).
 * 0 on success; 2 when the bundled runtime is missing; 3 when the endpoint
 * does not answer or a launched runtime never became healthy; 4 when the
 * bench's own set-up failed. err says why. */
int bench_target_open(struct bench_target_rt *t, const struct bench_opts *o, char *err,
                      size_t err_len);

/* Launch mode: stops the runtime (SIGTERM, then SIGKILL) and removes its
 * files. Attach mode: nothing to stop. */
void bench_target_close(struct bench_target_rt *t);

#endif
