/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_RUNNER_H
#define SBX_RUNNER_H
/* The whole run: options, target, catalog, selection, scheduling, verdict
 * and reports. Returns the process exit status (0-4, see --help). */

enum runner_exit {
    RUNNER_OK = 0,
    RUNNER_FAILED = 1,
    RUNNER_USAGE = 2,
    RUNNER_UNREACHABLE = 3,
    RUNNER_INTERNAL = 4,
};

int runner_main(int argc, char **argv);

#endif
