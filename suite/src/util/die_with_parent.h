/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_DIE_WITH_PARENT_H
#define SBX_DIE_WITH_PARENT_H
/* A child the suite forks (a launched runtime, a case worker, a runtime's
 * guard) must not outlive the suite when the suite is killed (SIGKILL from a
 * CI timeout or the OOM killer leaves no chance to clean up). */
#include <stdbool.h>
#include <sys/types.h>

/* Called in the child right after fork(): asks the kernel for signo when
 * the parent dies (PR_SET_PDEATHSIG; it survives exec of a binary that is
 * not set-uid, set-gid or file-capable), then closes the race with the
 * parent's death before that request: false when the parent (whose pid was
 * saved before fork) is already gone, and the child must exit at once.
 * The signal comes when the *thread* that forked exits, so the suite forks
 * these children only from its long-lived main threads. */
bool die_with_parent(pid_t parent, int signo);

#endif
