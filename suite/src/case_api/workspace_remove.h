/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_WORKSPACE_REMOVE_H
#define SBX_WORKSPACE_REMOVE_H
/* Removing a workspace (a case directory, the run's prefix) on a runtime
 * that may be broken, without ever reaching outside the sandbox root.
 *
 * A workspace may hold symlinks that lead out of the root (the confinement
 * cases plant them), and a broken runtime's recursive DELETE may follow
 * them. So a workspace is never removed with DELETE ?recursive=true:
 *   1. Execute `rm -rf -- DIR` (rm never follows symlinks);
 *   2. only for what is left (checked with GET), a walk over REST that
 *      deletes what the listings show one entry at a time, each without
 *      recursive, deepest first. */
#include <stddef.h>

struct case_ctx;

/* Removes every symlink below dir (relative to the root) with Execute
 * `find DIR -type l -exec rm -f -- {} +`: links are removed as links, the
 * tree that remains holds nothing that leads outside. 0, or -1 with why. */
int workspace_remove_links(struct case_ctx *ctx, const char *dir, char *why, size_t why_len);

/* Removes dir as described above. Returns 0 when dir is gone; otherwise -1
 * with why naming what is left and why. */
int workspace_remove(struct case_ctx *ctx, const char *dir, char *why, size_t why_len);

#endif
