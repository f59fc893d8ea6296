/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_PROCESS_CWD_H
#define SBX_FAULTS_PROCESS_CWD_H
/* The working-directory faults of the fault build (cwd-default-daemon,
 * cwd-ignore, cwd-absolute-host, cwd-no-symlinks, cwd-escape): a wrapper of
 * process/proc_behaviour.h's open_cwd. */

int fault_open_cwd(int root_fd, const char *root_abs, const char *cwd);

#endif
