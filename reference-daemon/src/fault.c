/* Fault switch registry for the fault-injection test build. */
#include "fault.h"

#ifdef SBX_FAULTS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Faults that remove the host's files when the suite is unsafe: they run
 * only where the caller says the host is a throwaway view (the sentinel
 * test's mount namespace), never by a slip of the command line. */
static const char *const host_destroying[] = {"absolute-root-host", "empty-path-cwd"};
#define MAY_DESTROY_ENV "SBX_FAULTS_THROWAWAY_HOST"

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
    const char *ok = getenv(MAY_DESTROY_ENV);
    for (size_t i = 0; i < sizeof host_destroying / sizeof *host_destroying; i++) {
        if (fault_active(host_destroying[i]) && !(ok && strcmp(ok, "1") == 0)) {
            fprintf(stderr,
                    "fault %s can destroy the host's files; it runs only with %s=1, inside a "
                    "throwaway mount namespace\n",
                    host_destroying[i], MAY_DESTROY_ENV);
            exit(2);
        }
    }
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
