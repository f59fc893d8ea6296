/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_WORKER_H
#define SBX_WORKER_H
/* The child side of a run: a forked worker runs one case in its own
 * workspace directory and reports events as JSON lines on report_fd
 * ({"ev":"start"|"fail"|"note"|"docfinding"|"skip"|"error"|"track"|"untrack"|
 * "done",...});
 * a cleanup job kills a case's leftover processes and removes its directory. */
#include <stddef.h>
#include <stdint.h>

#include "case_api.h"
#include "run_target.h"

/* Runs def in this (forked) process and exits; never returns. budget_ms is
 * how long the runner waits for the case (case_time_left_ms). */
__attribute__((noreturn)) void worker_run_case(const struct case_def *def,
                                               const struct run_target *target, uint64_t run_seed,
                                               uint64_t budget_ms, int report_fd);

/* Cleanup for one case directory (relative to the root): SIGKILL through
 * SendSignal to each tracked process, then workspace_remove() (Execute
 * rm -rf, then entry by entry over REST for what is left; never a recursive
 * DELETE, which a broken runtime may follow out of the root through the
 * links a case planted). Writes problems to log_fd. Returns 0 when the
 * directory is gone. */
int worker_cleanup(const struct run_target *target, const char *dir, const int32_t *pids,
                   size_t n_pids, int log_fd);

/* Creates dir (relative to the root) on the runtime: Execute mkdir -p, then
 * PUT and DELETE of a marker file as a fallback. 0, or -1 with why. */
int workspace_create(struct case_ctx *ctx, const char *dir, char *why, size_t why_len);

#endif
