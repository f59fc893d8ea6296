/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_TARGET_H
#define SBX_EXPLORE_TARGET_H
/* A runtime explore talks to: attached (addresses) or launched through the
 * runner's launcher (a command template or a sandboxd-ref binary; by
 * default the bundled one), optionally confined (--confine-runtime). */
#include <stdbool.h>
#include <stddef.h>

#include "launcher.h"

struct xtarget_spec {
    const char *grpc, *rest; /* attach */
    const char *launch;      /* command template */
    const char *bundled;     /* path of a sandboxd-ref */
    const char *const *launch_env;
    bool confine;
    unsigned health_timeout_ms;
};

struct xtarget {
    char grpc[512], rest[512];
    char description[600]; /* what a report shows: command or addresses */
    bool launched;
    struct launched_runtime rt;
    char *work_dir;
    char *template_text;
};

/* 0; 2 usage (no runtime to launch); 3 unreachable or never healthy; 4
 * set-up failed. err says why. */
int xtarget_open(struct xtarget *t, const struct xtarget_spec *s, char *err, size_t err_len);
void xtarget_close(struct xtarget *t);

#endif
