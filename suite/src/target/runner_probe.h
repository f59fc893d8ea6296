/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_RUNNER_PROBE_H
#define SBX_RUNNER_PROBE_H
/* What the runner asks the runtime (and the bundled binary) before the run. */
#include <signal.h>

#include "results.h"
#include "run_target.h"

enum { RUNNER_REACH_TIMEOUT_MS = 5000 };

/* `PATH --version`, first line, bounded in time; NULL when it fails. */
char *runner_binary_version(const char *path);

/* The body of GET /v1/metadata, NULL when it does not answer 200. */
char *runner_fetch_metadata(const char *rest_addr);

/* One Execute in a forked child, bounded in time (a set *interrupted ends
 * the wait): fills ri's root path, procfs and pty; unknown capabilities
 * count as present. */
void runner_probe_runtime(const struct run_target *t, struct runtime_identity *ri, int log_fd,
                          volatile sig_atomic_t *interrupted);

#endif
