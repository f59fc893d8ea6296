/* SPDX-License-Identifier: Apache-2.0 */
/* The process manager's faults and variants of sandboxd-ref-faulty:
 * wrappers around its real decisions (process/proc_behaviour.h), linked
 * instead of process/proc_behaviour_real.c. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

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

/* variant-exit-drain-short: output is awaited 1 s after the exit;
 * variant-group-outlives-stream: the group's other members run on after
 * the stream ended (the contract leaves both to the runtime). */
static void manager_options(struct proc_manager_opts *o)
{
    proc_real.manager_options(o);
    if (fault_active(FAULT_VARIANT_EXIT_DRAIN_SHORT)) o->drain_ms = 1000;
    if (fault_active(FAULT_VARIANT_GROUP_OUTLIVES_STREAM)) o->end_group_grace_ms = 0;
}

/* pid-reuse: every process gets id 1. Legal variants: ids from 1000000 in
 * steps of 7 (variant-pid-large), or from -1000000 in steps of -7
 * (variant-pid-negative); the lowest free id, reused as soon as a stream
 * ended (variant-pid-reuse-lowest). */
static int32_t allocate_id(struct proc_manager *m)
{
    if (fault_active(FAULT_PID_REUSE)) return 1;
    bool large = fault_active(FAULT_VARIANT_PID_LARGE);
    bool negative = fault_active(FAULT_VARIANT_PID_NEGATIVE);
    bool lowest = fault_active(FAULT_VARIANT_PID_REUSE_LOWEST);
    if (!large && !negative && !lowest) return proc_real.allocate_id(m);
    static int32_t next;
    static bool started;
    int32_t step = negative ? -7 : large ? 7 : 1;
    if (!started) {
        next = negative ? -1000000 : large ? 1000000 : 1;
        started = true;
    }
    if (lowest) next = 1;
    for (;;) {
        int32_t id = next;
        if (step > 0)
            next = next > INT32_MAX - step ? 1 : next + step;
        else
            next = next < INT32_MIN - step ? -1000000 : next + step;
        if (!proc_id_in_use(m, id)) return id;
    }
}

/* variant-signal-exit-128, variant-signal-exit-neg: a death by signal
 * reported as 128+signo or -signo. */
static int signal_exit_code(int signo)
{
    if (fault_active(FAULT_VARIANT_SIGNAL_EXIT_128)) return 128 + signo;
    if (fault_active(FAULT_VARIANT_SIGNAL_EXIT_NEG)) return -signo;
    return proc_real.signal_exit_code(signo);
}

/* pty-size-after-exec, setpgid-after-exec: what check-then-set runtimes
 * do. The PTY starts 0x0 and gets its size once the child has exec'd; the
 * group is asked for by the parent once the child has exec'd (refused
 * then, so it stays in the daemon's group). */
static bool pty_sized_at_open(void)
{
    return !fault_active(FAULT_PTY_SIZE_AFTER_EXEC) && proc_real.pty_sized_at_open();
}

static bool group_set_by_child(void)
{
    return !fault_active(FAULT_SETPGID_AFTER_EXEC) && proc_real.group_set_by_child();
}

/* The vfork parent wakes when the child's exec replaces its memory, a few
 * instructions before the kernel clears PF_FORKNOEXEC (0x40, field 9 of
 * /proc/PID/stat); until then setpgid from the parent still succeeds. The
 * after-exec fault waits for the flag so that it always loses the race, as
 * a runtime that sets the group later than this does. Bounded at 100 ms. */
static void wait_exec_flag_cleared(pid_t pid)
{
    char path[32], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    for (int i = 0; i < 1000; i++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0) return;
        buf[n] = '\0';
        const char *f = strrchr(buf, ')');
        for (int field = 2; f && field < 9; field++) {
            f = strchr(f + 1, ' ');
        }
        if (!f) return;
        if (!(strtoul(f + 1, NULL, 10) & 0x40u)) return;
        struct timespec ts = {0, 100 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void child_execed(const struct spawn_opts *o, pid_t pid, int pty_master)
{
    proc_real.child_execed(o, pid, pty_master);
    if (o->pty && fault_active(FAULT_PTY_SIZE_AFTER_EXEC)) (void)spawn_set_pty_size(pty_master, o);
    if (!o->pty && o->own_group && fault_active(FAULT_SETPGID_AFTER_EXEC)) {
        wait_exec_flag_cleared(pid);
        (void)setpgid(pid, pid);
    }
}

/* pty-fail-leak-master: a failed start keeps the PTY master open. */
static void spawn_failed(const struct spawn_opts *o, struct spawn_result *res)
{
    if (o->pty && fault_active(FAULT_PTY_FAIL_LEAK_MASTER))
        res->pty_master = res->stdin_fd = res->stdout_fd = -1;
    proc_real.spawn_failed(o, res);
}

static const struct proc_behaviour proc_faulty = {
    .signal_group = signal_group,
    .kill_orphans = kill_orphans,
    .open_cwd = fault_open_cwd,
    .manager_options = manager_options,
    .allocate_id = allocate_id,
    .signal_exit_code = signal_exit_code,
    .pty_sized_at_open = pty_sized_at_open,
    .group_set_by_child = group_set_by_child,
    .child_execed = child_execed,
    .spawn_failed = spawn_failed,
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
