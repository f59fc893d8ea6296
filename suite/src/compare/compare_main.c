/* SPDX-License-Identifier: Apache-2.0 */
/* Options and flow of `sandboxd-conformance compare`. */
#include "compare_main.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_baseline.h"
#include "compare_matrix.h"
#include "compare_regress.h"
#include "compare_report.h"

#define MAX_ALLOW 256

static void usage(FILE *f)
{
    fputs("Usage: sandboxd-conformance compare [OPTIONS] RESULTS.json RESULTS.json...\n"
          "       sandboxd-conformance compare --base OLD.json [OPTIONS] NEW.json\n"
          "       sandboxd-conformance compare --write-baseline FILE | --prune-baseline FILE "
          "RESULTS.json\n"
          "\n"
          "Compares results documents (--json of runs of any runtimes or versions, of one level\n"
          "and suite catalog) case by case: a matrix of clauses and cases x runs, each cell the\n"
          "status, with the first failure's observed value. Rows where every run agrees are\n"
          "folded. Runs are labelled A, B, C... in the order given. A case only some runs\n"
          "have is shown as absent in the others.\n"
          "\n"
          "Regressions (for CI):\n"
          "  --base OLD.json           compare OLD with the one NEW.json: new failures, fixed\n"
          "                            cases, changed outcomes, cases that disappeared or are\n"
          "                            new; exit 1 when a case that passed in OLD does not pass\n"
          "                            in NEW (a regression), unless exempt.\n"
          "  --allow ID[,ID...]        exempt these cases from the gate (repeatable).\n"
          "  --baseline FILE           exempt the cases of this baseline (known deviations);\n"
          "                            cases NEW's own run expected to fail are exempt too.\n"
          "\n"
          "Baseline upkeep (from the last RESULTS file):\n"
          "  --write-baseline FILE     add every case that failed or timed out to FILE (reason\n"
          "                            from its first failure, link left empty to fill in);\n"
          "                            entries already in FILE are kept as they are.\n"
          "  --prune-baseline FILE     remove from FILE the entries whose case now passes.\n"
          "                            Either rewrites FILE (its comments are not kept).\n"
          "\n"
          "Outputs (the matrix is printed on stdout unless --quiet):\n"
          "  --markdown FILE           for a pull-request comment or a CI job summary\n"
          "  --html FILE               self-contained page: regressions and differences first,\n"
          "                            then one picture of the contract per run, then the matrix\n"
          "  --json FILE               every row (schema sandboxd-conformance-compare/1)\n"
          "  --all                     also show the rows where every run agrees\n"
          "  --quiet                   no matrix on stdout (a summary line only)\n"
          "\n"
          "Exit status: 0 compared (no regression with --base), 1 a regression (--base),\n"
          "2 usage error or unusable input (not a results file, another schema version,\n"
          "runs of different levels or catalogs, a baseline naming unknown cases),\n"
          "4 an output file could not be written.\n"
          "\n"
          "Examples:\n"
          "  sandboxd-conformance compare ref.json my-runtime.json --html diff.html\n"
          "  sandboxd-conformance compare --base main.json pr.json --baseline known.yaml\n"
          "  sandboxd-conformance compare --write-baseline known.yaml results.json\n",
          f);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("sandboxd-conformance compare: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see compare --help)\n", stderr);
    va_end(ap);
    return 2;
}

struct compare_opts {
    const char *base, *baseline, *write_baseline, *prune_baseline;
    const char *markdown, *html, *json;
    const char *allow[MAX_ALLOW];
    size_t n_allow;
    char *allow_buf[MAX_ALLOW];
    size_t n_allow_buf;
    bool all, quiet;
    const char **files;
    size_t n_files;
};

enum {
    OPT_BASE = 256,
    OPT_ALLOW,
    OPT_BASELINE,
    OPT_WRITE,
    OPT_PRUNE,
    OPT_MD,
    OPT_HTML,
    OPT_JSON,
    OPT_ALL,
    OPT_QUIET,
    OPT_HELP,
};

static int add_allow(struct compare_opts *o, const char *list)
{
    if (o->n_allow_buf >= MAX_ALLOW) return usage_error("too many --allow options");
    char *copy = strdup(list);
    if (!copy) return 4;
    o->allow_buf[o->n_allow_buf++] = copy;
    for (char *save = NULL, *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (o->n_allow >= MAX_ALLOW) return usage_error("at most %d --allow IDs", MAX_ALLOW);
        o->allow[o->n_allow++] = t;
    }
    if (!o->n_allow) return usage_error("--allow wants case IDs, got '%s'", list);
    return 0;
}

/* 0 run, 1 help printed, 2 usage error. */
static int parse(int argc, char **argv, struct compare_opts *o)
{
    static const struct option longs[] = {
        {"base", required_argument, NULL, OPT_BASE},
        {"allow", required_argument, NULL, OPT_ALLOW},
        {"baseline", required_argument, NULL, OPT_BASELINE},
        {"write-baseline", required_argument, NULL, OPT_WRITE},
        {"prune-baseline", required_argument, NULL, OPT_PRUNE},
        {"markdown", required_argument, NULL, OPT_MD},
        {"html", required_argument, NULL, OPT_HTML},
        {"json", required_argument, NULL, OPT_JSON},
        {"all", no_argument, NULL, OPT_ALL},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
        switch (c) {
        case OPT_BASE:
            o->base = optarg;
            break;
        case OPT_ALLOW:
            if ((rc = add_allow(o, optarg)) != 0) return rc;
            break;
        case OPT_BASELINE:
            o->baseline = optarg;
            break;
        case OPT_WRITE:
            o->write_baseline = optarg;
            break;
        case OPT_PRUNE:
            o->prune_baseline = optarg;
            break;
        case OPT_MD:
            o->markdown = optarg;
            break;
        case OPT_HTML:
            o->html = optarg;
            break;
        case OPT_JSON:
            o->json = optarg;
            break;
        case OPT_ALL:
            o->all = true;
            break;
        case OPT_QUIET:
            o->quiet = true;
            break;
        case OPT_HELP:
        case 'h':
            usage(stdout);
            return 1;
        case ':':
            return usage_error("%s needs a value", argv[optind - 1]);
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    o->files = (const char **)argv + optind;
    o->n_files = (size_t)(argc - optind);
    bool upkeep = o->write_baseline || o->prune_baseline;
    if (o->base) {
        if (o->n_files != 1)
            return usage_error("--base OLD.json compares with exactly one NEW.json, got %zu",
                               o->n_files);
    } else {
        if (o->n_allow || o->baseline)
            return usage_error("--allow and --baseline exempt regressions: they need --base");
        if (o->n_files == 0) return usage_error("no results files given");
        if (o->n_files == 1 && !upkeep)
            return usage_error("give two or more results files to compare (or --base OLD.json)");
    }
    if (o->write_baseline && o->prune_baseline && strcmp(o->write_baseline, o->prune_baseline) != 0)
        return usage_error("--write-baseline and --prune-baseline together update one file");
    return 0;
}

static int write_output(const char *what, const char *path,
                        int (*fn)(FILE *f, const struct cmp_view *v), const struct cmp_view *v)
{
    if (!path) return 0;
    if (cmp_write_file(path, fn, v) == 0) return 0;
    fprintf(stderr, "sandboxd-conformance compare: cannot write the %s report %s: %s\n", what, path,
            strerror(errno));
    return 4;
}

int compare_main(int argc, char **argv)
{
    struct compare_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse(argc, argv, &o);
    if (rc == 1)
        rc = 0;
    else if (rc == 0) {
        size_t n = o.n_files + (o.base ? 1 : 0);
        struct cmp_run *runs = calloc(n, sizeof *runs);
        char err[2048] = "";
        size_t loaded = 0;
        rc = runs ? 0 : 4;
        for (size_t i = 0; rc == 0 && i < n; i++) {
            const char *path = o.base ? (i == 0 ? o.base : o.files[i - 1]) : o.files[i];
            if (cmp_run_load(path, &runs[i], err, sizeof err) != 0) {
                fprintf(stderr, "sandboxd-conformance compare: %s\n", err);
                rc = 2;
            }
            loaded = i + 1;
            snprintf(runs[i].label, sizeof runs[i].label, "%c", (char)('A' + (i % 26)));
        }
        struct cmp_matrix m;
        memset(&m, 0, sizeof m);
        struct cmp_regress g;
        memset(&g, 0, sizeof g);
        bool matrix = n >= 2;
        if (rc == 0 && matrix && cmp_matrix_build(&m, runs, n, err, sizeof err) != 0) {
            fprintf(stderr, "sandboxd-conformance compare: %s\n", err);
            rc = 2;
        }
        struct cmp_exemptions ex = {
            .ids = o.allow, .n_ids = o.n_allow, .baseline_path = o.baseline};
        if (rc == 0 && o.base && cmp_regress_build(&g, &m, &ex, err, sizeof err) != 0) {
            fprintf(stderr, "sandboxd-conformance compare: %s\n", err);
            rc = 2;
        }
        /* Baseline upkeep reads the last run. Writing first, so that both
         * together also work on a file that does not exist yet. */
        if (rc == 0 && o.write_baseline &&
            cmp_baseline_write(o.write_baseline, &runs[n - 1], stdout, err, sizeof err) != 0) {
            fprintf(stderr, "sandboxd-conformance compare: %s\n", err);
            rc = 2;
        }
        if (rc == 0 && o.prune_baseline &&
            cmp_baseline_prune(o.prune_baseline, &runs[n - 1], stdout, err, sizeof err) != 0) {
            fprintf(stderr, "sandboxd-conformance compare: %s\n", err);
            rc = 2;
        }
        if (rc == 0 && matrix) {
            struct cmp_view v = {.m = &m,
                                 .g = o.base ? &g : NULL,
                                 .all = o.all,
                                 .exit_code = o.base && g.regressions ? 1 : 0};
            if (!o.quiet)
                cmp_print_console(stdout, &v);
            else
                printf("compare: %zu of %zu cases agree%s\n", m.cases_agree, m.n_cases,
                       !o.base         ? ""
                       : g.regressions ? "; regressions found"
                                       : "; no regressions");
            fflush(stdout);
            int wrc = write_output("Markdown", o.markdown, cmp_write_markdown, &v);
            if (!wrc) wrc = write_output("HTML", o.html, cmp_write_html, &v);
            if (!wrc) wrc = write_output("JSON", o.json, cmp_write_json, &v);
            rc = wrc ? wrc : v.exit_code;
        }
        cmp_regress_free(&g);
        cmp_matrix_free(&m);
        for (size_t i = 0; i < loaded; i++)
            cmp_run_free(&runs[i]);
        free(runs);
    }
    for (size_t i = 0; i < o.n_allow_buf; i++)
        free(o.allow_buf[i]);
    return rc;
}
