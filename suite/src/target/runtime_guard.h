/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_RUNTIME_GUARD_H
#define SBX_RUNTIME_GUARD_H
/* The guard of a launched runtime: a small child of the suite that does
 * nothing while the suite lives. When the suite dies without stopping the
 * runtime (SIGKILL, the OOM killer), the guard kills the runtime (its whole
 * process group when it has one of its own) and removes its private
 * directory (the sandbox root and the log), never following links. The
 * runtime itself also gets SIGKILL from the kernel (die_with_parent.h); the
 * guard reaches what that signal cannot: the rest of the group and the
 * files. */
#include <stdbool.h>
#include <sys/types.h>

/* Forks the guard of runtime (own_group: the runtime leads a process group
 * of its own) and dir. Its pid, or -1 (then nothing guards the runtime
 * but its own death signal). */
pid_t runtime_guard_start(pid_t runtime, bool own_group, const char *dir);

/* The suite stops the runtime itself: the guard goes, without acting. */
void runtime_guard_stop(pid_t guard);

#endif
