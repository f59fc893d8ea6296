/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_SUMMARY_OPTIONS_H
#define SBX_SUMMARY_OPTIONS_H
/* The options of `sandboxd-conformance summary` and their table
 * (summary_options.c). */
#include <stdbool.h>

#include "opt_table.h"

struct summary_opts {
    const char *targets, *markdown;
    bool help;
};

extern const struct opt_command summary_command;

#endif
