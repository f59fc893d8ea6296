/* SPDX-License-Identifier: Apache-2.0 */
/* The guard of a launched runtime (see runtime_guard.h). */
#include "runtime_guard.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "die_with_parent.h"
#include "fs_util.h"

/* The signal the kernel sends the guard when the suite's thread that forked
 * it is gone. */
#define GUARD_SIGNAL SIGUSR1
#define GONE_WAIT_MS 2000

/* Whether pid is gone or a zombie (its parent, the dead suite, cannot reap
 * it; init will). */
static bool gone(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

static void guard_main(pid_t suite, pid_t runtime, bool own_group, const char *dir)
{
    sigset_t all, wake;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    sigemptyset(&wake);
    sigaddset(&wake, GUARD_SIGNAL);
    sigaddset(&wake, SIGTERM);
    int sig = 0;
    if (die_with_parent(suite, GUARD_SIGNAL))
        while (sigwait(&wake, &sig) != 0 || (sig != GUARD_SIGNAL && sig != SIGTERM))
            ;
    /* SIGTERM: the suite stopped the runtime itself. */
    if (sig == SIGTERM) _exit(0);
    if (own_group) kill(-runtime, SIGKILL);
    kill(runtime, SIGKILL);
    int waited = 0;
    for (; waited < GONE_WAIT_MS && !gone(runtime); waited += 20)
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    /* The runtime's own children die with it (if it asked for that) and
     * may still be writing for a moment: remove until nothing is left. */
    for (; fs_remove_tree(dir) != 0 && waited < 2 * GONE_WAIT_MS; waited += 50)
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    _exit(0);
}

pid_t runtime_guard_start(pid_t runtime, bool own_group, const char *dir)
{
    pid_t suite = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    closefrom(3);
    guard_main(suite, runtime, own_group, dir);
    _exit(0);
}

void runtime_guard_stop(pid_t guard)
{
    if (guard <= 0) return;
    kill(guard, SIGTERM);
    while (waitpid(guard, NULL, 0) < 0 && errno == EINTR)
        ;
}
