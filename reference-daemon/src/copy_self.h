/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_COPY_SELF_H
#define SBX_COPY_SELF_H
/* --copy-to DIR: the init container of deployment topology B holds only this
 * static binary, which copies itself into the shared volume and exits. */

/* Copies /proc/self/exe to DIR/sandboxd-ref (mode 0755), through a temporary
 * name and rename, so a reader never sees a partial binary. 0, or -1 with a
 * message on stderr. */
int copy_self_to(const char *dir);

#endif
