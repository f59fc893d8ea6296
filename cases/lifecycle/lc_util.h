/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_LC_UTIL_H
#define SBX_CASES_LC_UTIL_H
/* Lifecycle cases talk to a private runtime instance over both surfaces,
 * through case_use_runtime() / case_use_shared_runtime() (case_api.h). */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "case_api.h"
#include "common/proc_util.h"

/* GET /v1/health on addr: the status (0 when no response arrived); when
 * code is given it receives the Error body's code (or ""). */
long lc_health(const char *addr, char *code, size_t code_len);

/* Starts `sh -c script` on the (retargeted) runtime in its root and waits
 * for "ready" on stdout. False with a failure recorded otherwise. */
bool lc_start_ready(struct case_ctx *ctx, struct pu_stream *ps, const char *script,
                    const char *label);

/* Reads both streams (either may be NULL) for up to wait_ms, a little at a
 * time, so neither backs up. */
void lc_pump(struct pu_stream *a, struct pu_stream *b, unsigned wait_ms);

/* Whether pid is gone (or a zombie waiting for its reaper), seen from the
 * suite's host (launch mode). */
bool lc_pid_gone(pid_t pid);

#endif
