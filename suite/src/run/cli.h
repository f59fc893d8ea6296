/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CLI_H
#define SBX_CLI_H
/* The command line of sandboxd-conformance. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "request_headers.h"
#include "cli_tls.h"
#include "opt_table.h"

#define CLI_MAX_ENV 32

struct cli_opts {
    /* target */
    const char *grpc, *rest;
    const char *launch;         /* command template */
    const char *launch_bundled; /* path of sandboxd-ref */
    const char *launch_env[CLI_MAX_ENV + 1];
    unsigned startup_timeout_s;
    bool confine_runtime; /* launch mode: private mount namespace, host read-only */
    /* --header, --rest-header, --grpc-header, --header-file, --secret-header */
    struct request_headers headers;
    struct cli_tls tls; /* --tls, --cacert, --cert, --key, --insecure, --authority */
    /* catalog */
    bool list;
    const char *explain;
    /* selection */
    const char *focus, *skip, *tags;
    bool core_only;
    bool transport;
    const char *rerun_failed;
    /* running */
    unsigned jobs;
    bool seed_set;
    uint64_t seed;
    double timeout_scale;
    size_t max_output;           /* --max-output: bytes per case and per response; 0 = default */
    unsigned unresponsive_after; /* --unresponsive-after: circuit breaker; 0 = off */
    const char *baseline;
    const char *openapi;  /* --openapi FILE: the OpenAPI document responses are checked against */
    const char *data_dir; /* --data-dir DIR: the suite's run-time data (data_dir.h) */
    /* reports */
    const char *json, *junit, *tap, *markdown, *html, *bundle, *log;
    int color; /* -1 auto, 0 never, 1 always */
    bool quiet;
    /* verdict */
    bool require_complete;
    /* meta */
    bool help, version;
    /* for the build: the man page's option rows (COMMAND[:GROUP]), the option list */
    const char *man_options;
    bool dump_options;
};

/* The run's option table (cli_options.c). */
extern const struct opt_command cli_command;

/* Parses argv. 0 on success; -1 on a usage error (message written to err).
 * Release with cli_free either way. */
int cli_parse(struct cli_opts *o, int argc, char **argv, char *err, size_t err_len);
void cli_free(struct cli_opts *o);

void cli_print_help(FILE *f);

/* --man-options and --dump-options: the option rows of the man page, or the
 * list of options, of the run and every subcommand (cli_doc.c). 0, or 2 for
 * an unknown command or group. */
int cli_print_options_doc(const struct cli_opts *o, FILE *f);

#endif
