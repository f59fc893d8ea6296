/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULT_H
#define SBX_FAULT_H
/* Fault injection, compiled only into the test build `sandboxd-ref-faulty`.
 * Each fault makes the daemon break one contract clause on purpose, so the
 * suite's tests can prove that a case fails against that broken behaviour.
 * Faults are named by the enum below, generated from the one table
 * (fault_table.def): a misspelt fault does not compile. Only faults/ (the
 * wrappers around the daemon's behaviour tables) and the daemon's fault tests
 * include it. */
#include <stdbool.h>

enum sbx_fault {
#define SBX_FAULT(id, name, section, clauses, what) FAULT_##id,
#include "fault_table.def"
    SBX_FAULT_COUNT
};

#ifndef SBX_FAULTS
#error "fault.h is the fault-injection build's: the daemon's sources go through behaviour tables"
#endif

/* Turns on the faults of a comma-separated list of names (NULL or "" turns
 * all off). An unknown name, or a host-destroying fault outside a throwaway
 * host view, prints why to stderr and exits with status 2. */
void fault_configure(const char *comma_separated_names);
bool fault_active(enum sbx_fault fault);

#endif
