/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded reading of a forked probe's answer (see child_answer.h). */
#include "child_answer.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock_util.h"

size_t child_answer_read(int fd, pid_t pid, char *buf, size_t cap, double seconds,
                         const volatile sig_atomic_t *stop, int *status)
{
    size_t got = 0;
    double deadline = clock_mono_s() + seconds;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    while (got + 1 < cap && clock_mono_s() < deadline && !(stop && *stop)) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n == 0) break;
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) break;
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
            continue;
        }
        got += (size_t)n;
    }
    if (cap) buf[got] = '\0';
    close(fd);
    kill(-pid, SIGKILL); /* the probe's group, when it made one */
    kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (status) *status = st;
    return got;
}
