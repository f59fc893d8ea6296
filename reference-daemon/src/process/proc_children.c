/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's children beyond its records: orphans it adopted as
 * subreaper (reaped on SIGCHLD, killed at exit) and the members a group
 * keeps after its leader (see proc.h). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc_behaviour.h"
#include "proc_internal.h"

/* Calls fn for every child of the daemon's main thread (orphans are
 * re-parented to the thread that spawned their ancestor, which is the
 * loop's thread), however many there are: the whole list is read first
 * (reaping while reading would shift the kernel's list under the reader
 * and skip entries), into an array that grows with it up to pid_max's
 * ceiling. Returns the count, or -1 when /proc cannot tell. */
#define CHILDREN_MAX (1 << 22) /* PID_MAX_LIMIT */
static int for_each_child(void (*fn)(struct proc_manager *m, pid_t pid, void *arg),
                          struct proc_manager *m, void *arg)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)gettid());
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    pid_t *pids = NULL;
    int n = 0, cap = 0;
    char word[24];
    /* Only positive ids: waitpid(0 or -1) would reap any child, the
     * manager's own included. */
    while (n < CHILDREN_MAX && fscanf(f, "%23s", word) == 1) {
        char *end;
        errno = 0;
        long v = strtol(word, &end, 10);
        if (end == word || *end || errno == ERANGE || v <= 0 || v > INT_MAX) break;
        if (n == cap) {
            int ncap = cap ? cap * 2 : 256;
            pid_t *np = realloc(pids, (size_t)ncap * sizeof(*np));
            if (!np) break;
            pids = np;
            cap = ncap;
        }
        pids[n++] = (pid_t)v;
    }
    fclose(f);
    for (int i = 0; i < n; i++)
        fn(m, pids[i], arg);
    free(pids);
    return n;
}

/* A child that is no record of ours and still runs in the group p led. */
struct survivor_scan {
    struct proc *p;
    bool found;
};

static void note_survivor(struct proc_manager *m, pid_t pid, void *arg)
{
    struct survivor_scan *sc = arg;
    if (sc->found || intmap_get(&m->by_pid, pid)) return;
    if (getpgid(pid) == sc->p->pid) sc->found = true;
}

/* Whether descendants of p's leader remain in its process group. Those that
 * outlived the leader were re-parented to the daemon (its subreaper), so
 * its own children tell; without the subreaper role nobody can tell, and
 * the group is taken to live on. */
bool proc_group_has_survivors(struct proc *p)
{
    if (!p->own_group && !p->pty) return false; /* the daemon's own group */
    if (!p->m->adopting) return true;
    struct survivor_scan sc = {p, false};
    return for_each_child(note_survivor, p->m, &sc) < 0 || sc.found;
}

/* A child that is no record of ours: reaped if it is a zombie. */
static void reap_if_orphan(struct proc_manager *m, pid_t pid, void *arg)
{
    (void)arg;
    if (intmap_get(&m->by_pid, pid)) return;
    siginfo_t si;
    waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG);
}

static void reap_orphans(struct proc_manager *m)
{
    if (for_each_child(reap_if_orphan, m, NULL) >= 0) return;
    /* No /proc: reap whatever zombie is not ours, one at a time. */
    for (int i = 0; i < 4096; i++) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0) return;
        if (intmap_get(&m->by_pid, si.si_pid)) return;
        waitpid(si.si_pid, NULL, WNOHANG);
    }
}

static void on_sigchld(uv_signal_t *h, int sig)
{
    (void)sig;
    reap_orphans(h->data);
}

int proc_manager_adopt_orphans(struct proc_manager *m)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return -errno;
    int rc = uv_signal_init(m->loop, &m->sigchld);
    if (rc) return rc;
    m->sigchld.data = m;
    m->adopting = true;
    rc = uv_signal_start(&m->sigchld, on_sigchld, SIGCHLD);
    if (rc) return rc;
    reap_orphans(m);
    return 0;
}

/* An adopted orphan at the daemon's exit: killed and reaped. */
static void kill_if_orphan(struct proc_manager *m, pid_t pid, void *arg)
{
    if (intmap_get(&m->by_pid, pid)) return;
    (*(int *)arg)++;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

void proc_manager_kill_all(struct proc_manager *m)
{
    m->shutting_down = true;
    for (struct proc *p = m->live; p; p = p->next)
        proc_signal_group(p, SIGKILL);
    /* Once a leader has died its other descendants are re-parented to the
     * daemon (the subreaper); wait for that, keeping the zombies. */
    for (struct proc *p = m->live; p; p = p->next) {
        siginfo_t si;
        if (p->pidfd >= 0) proc_pidfd_wait(p->pidfd, &si, WEXITED | WNOWAIT);
    }
    proc_behaviour->kill_orphans(m);
}

void proc_kill_orphans_real(struct proc_manager *m)
{
    /* Orphans the daemon adopted, in whatever group they made for
     * themselves. A bounded number of rounds: a child may fork meanwhile. */
    for (int round = 0; round < 16; round++) {
        int others = 0;
        int n = for_each_child(kill_if_orphan, m, &others);
        if (n <= 0 || others == 0) break;
    }
}
