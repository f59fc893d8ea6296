/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROCESS_CWD_H
#define SBX_PROCESS_CWD_H
/* A process's working directory, resolved beneath the sandbox root by the
 * kernel-enforced resolver (P4), never by string checks. */

/* Opens cwd as an O_PATH directory descriptor beneath root_fd. NULL or ""
 * is the root itself. An absolute cwd is taken beneath the root too: "/" is
 * the root, "/etc" is <root>/etc, and when cwd starts with the root's own
 * absolute path (root_abs, component-wise) that prefix is dropped, so the
 * root's real path and paths under it mean what they say.
 * Returns a descriptor or a negative enum fs_resolve_error. */
int cwd_open(int root_fd, const char *root_abs, const char *cwd);

#endif
