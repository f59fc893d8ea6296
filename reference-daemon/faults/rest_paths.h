/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_PATHS_H
#define SBX_FAULTS_REST_PATHS_H
/* Path resolution as broken daemons do it, for the fault-injection build
 * only: by host path strings, following symlinks out of the root (faults
 * resolve-naive, symlink-follow-out, absolute-host, absolute-root-host,
 * empty-path-cwd, toctou, toctou-realpath). Called by the wrappers of
 * rest_faults.c; linked only into sandboxd-ref-faulty. */
#include <stddef.h>

#include "daemon_state.h"

#define FAULT_PATH_UNUSED (-2000) /* no path fault applies: resolve normally */

/* Opens path like open(2) on a host path; fd, fs_resolve_error or
 * FAULT_PATH_UNUSED. */
int fault_open_path(const struct daemon_state *st, const char *path, int flags);

/* Opens the parent of path as a host directory (creating it when asked) and
 * copies the last component into name. */
int fault_open_parent(const struct daemon_state *st, const char *path, int create, char *name,
                      size_t cap);

#endif
