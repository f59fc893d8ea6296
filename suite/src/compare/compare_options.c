/* SPDX-License-Identifier: Apache-2.0 */
/* The option table of `sandboxd-conformance compare` (opt_table.h). */
#include "compare_options.h"

#include <stdlib.h>
#include <string.h>

#define STR(f) .kind = OPT_SET_STR, .offset = offsetof(struct compare_opts, f)
#define FLAG(f) .kind = OPT_SET_TRUE, .offset = offsetof(struct compare_opts, f)

/* --allow ID[,ID...]: every ID of every --allow. */
static int add_allow(void *target, const struct opt_spec *s, const char *list, char *err,
                     size_t err_len)
{
    (void)s;
    struct compare_opts *o = target;
    if (o->n_allow_buf >= COMPARE_MAX_ALLOW) {
        snprintf(err, err_len, "too many --allow options");
        return -1;
    }
    char *copy = strdup(list);
    if (!copy) {
        o->out_of_memory = true;
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    o->allow_buf[o->n_allow_buf++] = copy;
    for (char *save = NULL, *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (o->n_allow >= COMPARE_MAX_ALLOW) {
            snprintf(err, err_len, "at most %d --allow IDs", COMPARE_MAX_ALLOW);
            return -1;
        }
        o->allow[o->n_allow++] = t;
    }
    if (!o->n_allow) {
        snprintf(err, err_len, "--allow wants case IDs, got '%s'", list);
        return -1;
    }
    return 0;
}

static const struct opt_group groups[] = {
    {"regress", "\nRegressions (for CI):\n"},
    {"upkeep", "\nBaseline upkeep (from the last RESULTS file):\n"},
    {"outputs", "\nOutputs (the matrix is printed on stdout unless --quiet):\n"},
};

static const struct opt_spec opts[] = {
    {.name = "base",
     .arg = "OLD.json",
     .group = "regress",
     STR(base),
     .help = "compare OLD with the one NEW.json: new failures,\n"
             "fixed cases, changed outcomes, cases that\n"
             "disappeared or are new; exit 1 when a case that\n"
             "passed in OLD does not pass in NEW (a regression),\n"
             "unless exempt."},
    {.name = "allow",
     .arg = "ID[,ID...]",
     .flags = OPT_REPEATABLE,
     .group = "regress",
     .kind = OPT_CALL,
     .set = add_allow,
     .help = "exempt these cases from the gate (repeatable)."},
    {.name = "baseline",
     .arg = "FILE",
     .group = "regress",
     STR(baseline),
     .help = "exempt the cases of this baseline (known\n"
             "deviations); cases NEW's own run expected to fail\n"
             "are exempt too."},
    {.name = "write-baseline",
     .arg = "FILE",
     .group = "upkeep",
     STR(write_baseline),
     .help = "add every case that failed or timed out to FILE\n"
             "(reason from its first failure, link left empty to\n"
             "fill in); entries already in FILE are kept as they\n"
             "are."},
    {.name = "prune-baseline",
     .arg = "FILE",
     .group = "upkeep",
     STR(prune_baseline),
     .help = "remove from FILE the entries whose case now passes.\n"
             "Either rewrites FILE (its comments are not kept)."},
    {.name = "markdown",
     .arg = "FILE",
     .group = "outputs",
     STR(markdown),
     .help = "for a pull-request comment or a CI job summary"},
    {.name = "html",
     .arg = "FILE",
     .group = "outputs",
     STR(html),
     .help = "self-contained page: regressions and differences\n"
             "first, then one picture of the contract per run,\n"
             "then the matrix"},
    {.name = "json",
     .arg = "FILE",
     .group = "outputs",
     STR(json),
     .help = "every row (schema sandboxd-conformance-compare/1)"},
    {.name = "all",
     .group = "outputs",
     FLAG(all),
     .help = "also show the rows where every run agrees"},
    {.name = "quiet",
     .group = "outputs",
     FLAG(quiet),
     .help = "no matrix on stdout (a summary line only)"},
    {.name = "help",
     .short_name = 'h',
     .flags = OPT_STOPS,
     .group = "outputs",
     FLAG(help),
     .label = "-h, --help",
     .help = "this text"},
};

const struct opt_command compare_command = {
    .name = "compare",
    .opts = opts,
    .n_opts = sizeof opts / sizeof opts[0],
    .groups = groups,
    .n_groups = sizeof groups / sizeof groups[0],
    .style = OPT_STYLE_GETOPT,
    .msg_unknown = "unknown option '%s'",
    .msg_needs_value = "%s needs a value",
    .help_head = "Usage: sandboxd-conformance compare [OPTIONS] RESULTS.json RESULTS.json...\n"
                 "       sandboxd-conformance compare --base OLD.json [OPTIONS] NEW.json\n"
                 "       sandboxd-conformance compare --write-baseline FILE RESULTS.json\n"
                 "       sandboxd-conformance compare --prune-baseline FILE RESULTS.json\n"
                 "\n"
                 "Compares results documents (--json of runs of any runtimes or versions, of one\n"
                 "level and suite catalog) case by case: a matrix of clauses and cases x runs,\n"
                 "each cell the status, with the first failure's observed value. Rows where every\n"
                 "run agrees are folded. Runs are labelled A, B, C... in the order given. A case\n"
                 "only some runs have is shown as absent in the others.\n",
    .help_tail = "\n"
                 "Exit status: 0 compared (no regression with --base), 1 a regression (--base),\n"
                 "2 usage error or unusable input (not a results file, another schema version,\n"
                 "runs of different levels or catalogs, a baseline naming unknown cases),\n"
                 "4 an output file could not be written.\n"
                 "\n"
                 "Examples:\n"
                 "  sandboxd-conformance compare ref.json my-runtime.json --html diff.html\n"
                 "  sandboxd-conformance compare --base main.json pr.json --baseline known.yaml\n"
                 "  sandboxd-conformance compare --write-baseline known.yaml results.json\n",
    .help_col = 28,
};

void compare_usage(FILE *f)
{
    opt_print_help(f, &compare_command);
}
