/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BUNDLED_RUNTIME_H
#define SBX_BUNDLED_RUNTIME_H
/* The sandboxd-ref built or installed with this suite (--launch-bundled,
 * bench --bundled): in the build tree's reference-daemon/ directory, next
 * to this binary, or on PATH, in that order. Returns a malloc'd absolute
 * path, or NULL when none is executable. */
char *bundled_runtime_find(void);

#endif
