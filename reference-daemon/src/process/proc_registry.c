/* SPDX-License-Identifier: Apache-2.0 */
/* The process ids of managed processes, decoupled from OS PIDs (see
 * proc.h), and the records' accessors. */
#include <stdint.h>

#include "proc_behaviour.h"
#include "proc_internal.h"

int32_t proc_register(struct proc *p)
{
    struct proc_manager *m = p->m;
    if (p->id) return p->id;
    int32_t id = proc_behaviour->allocate_id(m);
    if (intmap_put(&m->by_id, id, p) < 0) return -1;
    p->id = id;
    return id;
}

int32_t proc_allocate_id_real(struct proc_manager *m)
{
    /* Next free positive id; wraps and skips ids still in use. */
    for (;;) {
        int32_t id = m->next_id;
        m->next_id = m->next_id == INT32_MAX ? 1 : m->next_id + 1;
        if (!intmap_get(&m->by_id, id)) return id;
    }
}

bool proc_id_in_use(struct proc_manager *m, int32_t id)
{
    return intmap_get(&m->by_id, id) != NULL;
}

int proc_register_as(struct proc *p, int32_t id)
{
    if (id <= 0 || intmap_put(&p->m->by_id, id, p) < 0) return -1;
    p->id = id;
    return 0;
}

void proc_unregister(struct proc *p)
{
    if (!p->id) return;
    if (intmap_get(&p->m->by_id, p->id) == p) intmap_del(&p->m->by_id, p->id);
    p->id = 0;
}

struct proc *proc_lookup(struct proc_manager *m, int32_t id)
{
    if (id == 0 || id == INT32_MIN) return NULL; /* not keys of the map */
    return intmap_get(&m->by_id, id);
}

int32_t proc_id(const struct proc *p)
{
    return p->id;
}
pid_t proc_pid(const struct proc *p)
{
    return p->pid;
}
bool proc_has_pty(const struct proc *p)
{
    return p->pty;
}
bool proc_has_exited(const struct proc *p)
{
    return p->exited;
}
