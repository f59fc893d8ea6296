#ifndef SBX_FAULT_H
#define SBX_FAULT_H
/* Fault injection, compiled only into the test build `sandboxd-ref-faulty`.
 * Each fault makes the daemon break one contract clause on purpose, so the
 * suite's tests can prove that a case fails against that broken behaviour.
 * Faults are named by the enum below, generated from the one table
 * (../faults/fault_table.def): a misspelt fault does not compile.
 * In the real daemon fault_active() is a constant false and folds away. */
#include <stdbool.h>

enum sbx_fault {
#define SBX_FAULT(id, name, section, clauses, what) FAULT_##id,
#include "../faults/fault_table.def"
    SBX_FAULT_COUNT
};

#if defined(SBX_FAULT_FREE_SOURCE)
/* A module's shared sources are compiled once, without SBX_FAULTS, into both
 * daemons: a fault switch there would never turn on. List the source among
 * its module's SWITCHED sources (reference-daemon/CMakeLists.txt). */
#define fault_active(fault) (sizeof(struct fault_switch_in_a_shared_source) != 0)
#define fault_configure(names) (sizeof(struct fault_switch_in_a_shared_source) != 0)
#elif defined(SBX_FAULTS)
/* Turns on the faults of a comma-separated list of names (NULL or "" turns
 * all off). An unknown name, or a host-destroying fault outside a throwaway
 * host view, prints why to stderr and exits with status 2. */
void fault_configure(const char *comma_separated_names);
bool fault_active(enum sbx_fault fault);

#else
/* Macros, not functions: no symbol is left in the shipped daemon even when
 * it is built without optimisation. */
#define fault_configure(names) ((void)(names))
#define fault_active(fault) ((void)(fault), false)
#endif

#endif
