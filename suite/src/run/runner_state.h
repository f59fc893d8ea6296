/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_RUNNER_STATE_H
#define SBX_RUNNER_STATE_H
/* One run's state as runner_main's steps hand it on: runner.c (parse, plan,
 * start, run, finish), runner_connect.c (attach or launch the target) and
 * runner_settle.c (baseline, verdict, the unreachable case). */
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "baseline.h"
#include "cli.h"
#include "console.h"
#include "launcher.h"
#include "results.h"
#include "run_target.h"
#include "selection.h"

/* A step that does not end the run returns this; any other value is the
 * exit status. */
enum { RUNNER_GO_ON = -1 };

struct run_state {
    const struct cli_opts *o;
    int argc;
    char **argv;
    char **argv_redacted; /* argv with secret header values redacted */
    struct selection sel;
    struct baseline base;
    struct run_results res;
    struct run_target target;
    struct launched_runtime rt;
    bool launched;
    char *bundled;         /* the bundled runtime found on no --launch */
    char *launch_template; /* the command the runtime is launched with */
    char log_path[PATH_MAX];
    int log_fd;
    double t0; /* monotonic start of the run */
    uint64_t seed;
    struct console con;
    volatile sig_atomic_t *interrupted;
};

/* Attaches to --grpc/--rest or launches the runtime, and checks both
 * endpoints answer. RUNNER_GO_ON, or the exit status (the reports of an
 * unreachable runtime are written). */
int runner_connect(struct run_state *st);

/* --baseline names only cases the catalog has: 0, or -1 with a message in
 * err. */
int runner_check_baseline_ids(const struct run_state *st, char *err, size_t err_len);

/* Outcomes are final: baseline, verdict and the run's end time. */
void runner_settle(struct run_state *st);

/* The run could not start (exit 3): the reports asked for are written all
 * the same, every selected case "not run" with the reason. */
void runner_report_unreachable(struct run_state *st, const char *why);

#endif
