#ifndef SBX_FAULT_H
#define SBX_FAULT_H
/* Fault injection, compiled only into the test build `sandboxd-ref-faulty`.
 * Each fault makes the daemon break one contract clause on purpose, so the
 * suite's tests can prove that a case fails against that broken behaviour.
 * In the real daemon fault_active() is a constant false and folds away. */
#include <stdbool.h>

#ifdef SBX_FAULTS
void fault_configure(const char *comma_separated_names);
bool fault_active(const char *name);
#else
static inline void fault_configure(const char *names)
{
    (void)names;
}
static inline bool fault_active(const char *name)
{
    (void)name;
    return false;
}
#endif

#endif
