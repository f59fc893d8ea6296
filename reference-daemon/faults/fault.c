/* SPDX-License-Identifier: Apache-2.0 */
/* Fault switch registry for the fault-injection test build. */
#include "fault.h"

#ifdef SBX_FAULTS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fault_section { REST, HOST, PROCESS_SERVICE, PROCESS_GRPC, SWEEP, VARIANT };

static const struct {
    const char *name;
    enum fault_section section;
} table[SBX_FAULT_COUNT] = {
#define SBX_FAULT(id, name, section, clauses, what) [FAULT_##id] = {name, section},
#include "fault_table.def"
};

/* Faults that remove the host's files when the suite is unsafe (section
 * HOST) run only where the caller says the host is a throwaway view (the
 * sentinel test's mount namespace), never by a slip of the command line. */
#define MAY_DESTROY_ENV "SBX_FAULTS_THROWAWAY_HOST"

static bool active[SBX_FAULT_COUNT];

static int lookup(const char *name, size_t len)
{
    for (int i = 0; i < SBX_FAULT_COUNT; i++)
        if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0) return i;
    return -1;
}

void fault_configure(const char *names)
{
    memset(active, 0, sizeof active);
    if (!names) return;
    const char *ok = getenv(MAY_DESTROY_ENV);
    for (const char *p = names; *p;) {
        size_t len = strcspn(p, ",");
        if (len > 0) {
            int f = lookup(p, len);
            if (f < 0) {
                fprintf(stderr,
                        "unknown fault '%.*s' (the faults and variants are listed in "
                        "reference-daemon/FAULTS.md)\n",
                        (int)len, p);
                exit(2);
            }
            if (table[f].section == HOST && !(ok && strcmp(ok, "1") == 0)) {
                fprintf(stderr,
                        "fault %s can destroy the host's files; it runs only with %s=1, inside a "
                        "throwaway mount namespace\n",
                        table[f].name, MAY_DESTROY_ENV);
                exit(2);
            }
            active[f] = true;
        }
        p += len;
        if (*p == ',') p++;
    }
}

bool fault_active(enum sbx_fault fault)
{
    return (unsigned)fault < SBX_FAULT_COUNT && active[fault];
}
#endif
