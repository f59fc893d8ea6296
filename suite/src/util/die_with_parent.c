/* SPDX-License-Identifier: Apache-2.0 */
/* A forked child dies with its parent (see die_with_parent.h). */
#include "die_with_parent.h"

#include <sys/prctl.h>
#include <unistd.h>

bool die_with_parent(pid_t parent, int signo)
{
    if (prctl(PR_SET_PDEATHSIG, signo) != 0) return false;
    return getppid() == parent;
}
