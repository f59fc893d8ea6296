/* The process manager's faults of sandboxd-ref-faulty: wrappers around its
 * real decisions (process/proc_behaviour.h), linked instead of
 * process/proc_behaviour_real.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "fault.h"
#include "process/proc_behaviour.h"
#include "process_cwd.h"
#include "process_faults.h"

/* shutdown-execute-leader-only: the Executes whose groups the shutdown
 * spares, by pid (a bounded list: the fault's tests start a few). */
#define MAX_SPARED 64
static pid_t spared[MAX_SPARED];
static size_t n_spared;

void fault_spare_group(const struct proc *p)
{
    if (n_spared < MAX_SPARED) spared[n_spared++] = proc_pid(p);
}

static bool is_spared(pid_t pid)
{
    for (size_t i = 0; i < n_spared; i++)
        if (spared[i] == pid) return true;
    return false;
}

static int signal_group(struct proc *p, int sig, bool shutting_down)
{
    if (shutting_down && is_spared(proc_pid(p))) return proc_signal_leader(p, sig);
    return proc_real.signal_group(p, sig, shutting_down);
}

static void kill_orphans(struct proc_manager *m)
{
    if (n_spared > 0) return; /* the spared groups' members survive the exit */
    proc_real.kill_orphans(m);
}

static const struct proc_behaviour proc_faulty = {
    .signal_group = signal_group,
    .kill_orphans = kill_orphans,
    .open_cwd = fault_open_cwd,
};

const struct proc_behaviour *const proc_behaviour = &proc_faulty;

/* proc-handle-leak: a 1.5 KiB record per started process
 * that is never given back, kept reachable so that only its growth shows. */
void fault_keep_record(void)
{
    static void **kept;
    static size_t n, cap;
    if (n == cap) {
        void **grown = realloc(kept, (cap ? cap * 2 : 64) * sizeof *kept);
        if (!grown) return;
        kept = grown;
        cap = cap ? cap * 2 : 64;
    }
    kept[n] = malloc(1536);
    if (kept[n]) memset(kept[n++], 0xa5, 1536);
}
