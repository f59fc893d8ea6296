/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_LEFTOVER_RUNS_H
#define SBX_LEFTOVER_RUNS_H
/* The run's temporary directory (launched runtimes' roots and logs, the
 * run log) is named sbxc-run-<pid>-XXXXXX after the suite's pid, so that a
 * run killed before it could clean up is recognisable by the next one. */
#include <stddef.h>

#define LEFTOVER_RUN_PREFIX "sbxc-run-"

/* Creates this run's directory in parent (NULL: $TMPDIR or /tmp). The
 * absolute path (malloc'd), or NULL with errno. */
char *leftover_run_dir_create(const char *parent);

/* Removes from parent (NULL as above) every directory of an earlier run
 * whose owner is dead: the name must be exactly sbxc-run-<pid>-<6
 * characters>, the entry a directory (not a link) owned by this user, and
 * <pid> no live process (a live one, even an unrelated process that reuses
 * the pid, keeps it). Links inside are removed, never followed. Each
 * removal is written to log_fd (when >= 0). Returns how many were removed. */
size_t leftover_runs_remove(const char *parent, int log_fd);

#endif
