/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CHILD_ANSWER_H
#define SBX_CHILD_ANSWER_H
/* The answer of a forked probe (a child that writes a short text to a pipe
 * and exits): read with a time bound, then the child is killed with its
 * process group and reaped, whatever it was doing, so a probe stuck on a
 * hung runtime never holds the run. */
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads from fd (closed on return) into buf (NUL-terminated, at most cap-1
 * bytes) until end of file, cap, seconds elapsed or *stop set (stop may be
 * NULL); then kills and reaps pid. Returns the bytes read; *status (if not
 * NULL) gets the child's wait status. */
size_t child_answer_read(int fd, pid_t pid, char *buf, size_t cap, double seconds,
                         const volatile sig_atomic_t *stop, int *status);

#endif
