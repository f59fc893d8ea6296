/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_OPTS_H
#define SBX_EXPLORE_OPTS_H
/* Command line of `sandboxd-conformance explore`. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "explore_target.h"
#include "opt_table.h"

#define EXPLORE_MAX_ENV 32

struct explore_opts {
    struct xtarget_spec a; /* the runtime under test */
    struct xtarget_spec b; /* --against-*: a second runtime, or none */
    bool against;
    const char *launch_env[EXPLORE_MAX_ENV + 1];
    bool seed_set;
    uint64_t seed;
    unsigned ops;    /* operations per sequence */
    double duration; /* seconds; 0 = one sequence */
    unsigned jobs;
    const char *json_path;
    const char *replay_path;
    const char *save_dir; /* replay files and case drafts of findings */
    bool shrink;
    double shrink_seconds;
    unsigned shrink_runs;
    bool quiet;
    bool help;
    unsigned startup_s; /* --startup-timeout */
    /* Reports besides console and JSON, named as a run names them. */
    const char *junit_path;
    const char *html_path;
    const char *bundle_dir;
};

/* The table of explore's options (explore_options.c): add an option there. */
extern const struct opt_command explore_command;

/* 0 to run, 1 after --help, 2 on a usage error (printed on stderr). */
int explore_parse_args(int argc, char **argv, struct explore_opts *o);
void explore_usage(FILE *out);

#endif
