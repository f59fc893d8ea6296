/* Fault switch registry for the fault-injection test build. */
#include "fault.h"

#ifdef SBX_FAULTS
#include <stdlib.h>
#include <string.h>

static char *active; /* ",a,b," so that lookups match whole names */

void fault_configure(const char *names)
{
    free(active);
    active = NULL;
    if (!names || !*names) return;
    size_t n = strlen(names);
    active = malloc(n + 3);
    if (!active) return;
    active[0] = ',';
    memcpy(active + 1, names, n);
    active[n + 1] = ',';
    active[n + 2] = '\0';
}

bool fault_active(const char *name)
{
    if (!active) return false;
    size_t n = strlen(name);
    for (const char *p = strstr(active, name); p; p = strstr(p + 1, name))
        if (p[-1] == ',' && p[n] == ',') return true;
    return false;
}
#endif
