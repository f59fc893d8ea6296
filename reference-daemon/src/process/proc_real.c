/* proc_real: the process manager's own decisions (see proc_behaviour.h). */
#include "proc_behaviour.h"

const struct proc_behaviour proc_real = {
    .signal_group = proc_signal_group_real,
    .kill_orphans = proc_kill_orphans_real,
    .open_cwd = cwd_open_real,
};
