/* SPDX-License-Identifier: Apache-2.0 */
/* proc_real: the process manager's own decisions (see proc_behaviour.h). */
#include "proc_behaviour.h"

static void options_as_given(struct proc_manager_opts *o)
{
    (void)o;
}

static int minus_one(int signo)
{
    (void)signo; /* P7: a death by signal is -1 */
    return -1;
}

static bool yes(void)
{
    return true;
}

static void nothing_after_exec(const struct spawn_opts *o, pid_t pid, int pty_master)
{
    (void)o;
    (void)pid;
    (void)pty_master;
}

static void close_all(const struct spawn_opts *o, struct spawn_result *res)
{
    (void)o;
    (void)res;
}

const struct proc_behaviour proc_real = {
    .signal_group = proc_signal_group_real,
    .kill_orphans = proc_kill_orphans_real,
    .open_cwd = cwd_open_real,
    .manager_options = options_as_given,
    .allocate_id = proc_allocate_id_real,
    .signal_exit_code = minus_one,
    .pty_sized_at_open = yes,
    .group_set_by_child = yes,
    .child_execed = nothing_after_exec,
    .spawn_failed = close_all,
};
