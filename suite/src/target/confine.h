/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CONFINE_H
#define SBX_CONFINE_H
/* --confine-runtime: the launched runtime gets a private mount namespace in
 * which every host file system is read-only except its own directory (the
 * sandbox root and the root's parent, where the suite plants canaries), a
 * private /tmp and /dev. Whatever the runtime does wrong, it cannot change
 * the host's files outside those. Needs CAP_SYS_ADMIN (root). */
#include <stddef.h>

/* Called in the forked child before exec: enters the namespace and sets it
 * up with runtime_dir writable. program (the runtime's argv[0]) stays in
 * view, read-only, when it lies under the host's /tmp. 0, or -1
 * with err (the child must not exec the runtime then). */
int confine_enter(const char *runtime_dir, const char *program, char *err, size_t err_len);

#endif
