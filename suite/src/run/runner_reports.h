/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_RUNNER_REPORTS_H
#define SBX_RUNNER_REPORTS_H
/* The run's log, console progress, reports and certification bundle. */
#include <stddef.h>

#include "cli.h"
#include "console.h"
#include "results.h"

/* The scheduler's on_done user data. */
struct runner_progress {
    struct console *con;
    int log_fd;
};

/* One case's result in the run log (nothing when fd < 0). */
void runner_log_case(int fd, const struct case_result *r);

/* The scheduler's on_done: console line and log entry. */
void runner_on_case_done(void *ud, const struct case_result *r, size_t done, size_t total);

/* Writes every report, the bundle and the log copy the options ask for;
 * log_path and runtime_log may be NULL. 0, or -1 after a message on stderr. */
int runner_write_reports(const struct cli_opts *o, const struct run_results *res,
                         const char *log_path, const char *runtime_log);

#endif
