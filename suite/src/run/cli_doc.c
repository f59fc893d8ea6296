/* SPDX-License-Identifier: Apache-2.0 */
/* --man-options and --dump-options: what the build makes the man page's
 * option lists from, and what its test checks, for every command's table. */
#include "cli.h"

#include <string.h>

#include "bench/bench_opts.h"
#include "compare_options.h"
#include "explore_opts.h"
#include "summary_options.h"

static const struct opt_command *const commands[] = {
    &cli_command, &bench_command, &compare_command, &explore_command, &summary_command,
};

int cli_print_options_doc(const struct cli_opts *o, FILE *f)
{
    size_t n = sizeof commands / sizeof commands[0];
    if (o->dump_options) {
        for (size_t i = 0; i < n; i++)
            opt_print_dump(f, commands[i]);
        return 0;
    }
    const char *colon = strchr(o->man_options, ':');
    size_t len = colon ? (size_t)(colon - o->man_options) : strlen(o->man_options);
    for (size_t i = 0; i < n; i++) {
        const struct opt_command *c = commands[i];
        if (strlen(c->name) != len || strncmp(c->name, o->man_options, len) != 0) continue;
        if (!colon) {
            opt_print_man(f, c, NULL);
            return 0;
        }
        for (size_t g = 0; g < c->n_groups; g++)
            if (strcmp(c->groups[g].id, colon + 1) == 0) {
                opt_print_man(f, c, colon + 1);
                return 0;
            }
    }
    fprintf(stderr, "sandboxd-conformance: --man-options: no command or group '%s'\n",
            o->man_options);
    return 2;
}
