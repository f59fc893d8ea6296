/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_COMPARE_OPTIONS_H
#define SBX_COMPARE_OPTIONS_H
/* The options of `sandboxd-conformance compare` and their table
 * (compare_options.c). */
#include <stdbool.h>
#include <stddef.h>

#include "opt_table.h"

#define COMPARE_MAX_ALLOW 256

struct compare_opts {
    const char *base, *baseline, *write_baseline, *prune_baseline;
    const char *markdown, *html, *json;
    const char *allow[COMPARE_MAX_ALLOW];
    size_t n_allow;
    char *allow_buf[COMPARE_MAX_ALLOW];
    size_t n_allow_buf;
    bool all, quiet, help;
    bool out_of_memory; /* --allow could not keep its list */
    const char **files;
    size_t n_files;
};

extern const struct opt_command compare_command;

/* The --help text. */
void compare_usage(FILE *f);

#endif
