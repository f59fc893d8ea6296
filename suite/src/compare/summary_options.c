/* SPDX-License-Identifier: Apache-2.0 */
/* The option table of `sandboxd-conformance summary` (opt_table.h). */
#include "summary_options.h"

#include <stddef.h>

static const struct opt_group groups[] = {{"main", "\n"}};

static const struct opt_spec opts[] = {
    {.name = "targets",
     .arg = "FILE",
     .group = "main",
     .kind = OPT_SET_STR,
     .offset = offsetof(struct summary_opts, targets),
     .help = "the fleet's list (\"NAME HOST\" per line): a listed sandbox\n"
             "without a bundle is reported as missing"},
    {.name = "markdown",
     .arg = "FILE",
     .group = "main",
     .kind = OPT_SET_STR,
     .offset = offsetof(struct summary_opts, markdown),
     .help = "also write the report as Markdown"},
    {.name = "help",
     .flags = OPT_STOPS,
     .group = "main",
     .kind = OPT_SET_TRUE,
     .offset = offsetof(struct summary_opts, help),
     .help = "this text"},
};

/* Options come first and start with "--"; the first other word begins the
 * directories. */
const struct opt_command summary_command = {
    .name = "summary",
    .opts = opts,
    .n_opts = sizeof opts / sizeof opts[0],
    .groups = groups,
    .n_groups = sizeof groups / sizeof groups[0],
    .style = OPT_STYLE_EXACT,
    .double_dash = true,
    .stop_at_word = true,
    .msg_unknown = "unknown option or missing value: %s",
    .msg_needs_value = "unknown option or missing value: %s",
    .msg_no_value = "unknown option or missing value: %s",
    .help_head = "Usage: sandboxd-conformance summary [--targets FILE] [--markdown FILE] DIR...\n"
                 "\n"
                 "Reads certification bundles (--bundle DIR of earlier runs) into one report:\n"
                 "one line per sandbox with its verdict, counts, runtime and failed cases.\n"
                 "Each DIR is a bundle (it holds results.json) or a directory of bundles, one\n"
                 "subdirectory per sandbox (the fleet Job's results volume).\n",
    .help_tail = "\n"
                 "Exit status: 0 every sandbox's run exited 0; 1 a sandbox failed, is missing\n"
                 "or its bundle is unreadable; 2 usage error.\n",
    .help_col = 20,
};
