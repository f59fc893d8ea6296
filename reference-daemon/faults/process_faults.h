/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_PROCESS_FAULTS_H
#define SBX_FAULTS_PROCESS_FAULTS_H
/* The process manager's faults of the fault build (process_faults.c) that
 * other modules' wrappers turn on. */
struct proc;

/* shutdown-execute-leader-only: once the shutdown began, signals to p's
 * group reach its leader only, and the orphans the daemon adopted are not
 * killed at its exit. */
void fault_spare_group(const struct proc *p);
/* proc-handle-leak: keeps a 1.5 KiB record that is never given back. */
void fault_keep_record(void);

#endif
