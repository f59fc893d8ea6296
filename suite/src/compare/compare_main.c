/* SPDX-License-Identifier: Apache-2.0 */
/* Options and flow of `sandboxd-conformance compare`. */
#include "compare_main.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_baseline.h"
#include "compare_options.h"
#include "compare_matrix.h"
#include "compare_regress.h"
#include "compare_report.h"

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

/* 0 run, 1 help printed, 2 usage error. */
static int parse(int argc, char **argv, struct compare_opts *o)
{
    char err[600];
    struct opt_result words;
    if (opt_parse(&compare_command, o, argc, argv, &words, err, sizeof err) != 0)
        return o->out_of_memory ? 4 : usage_error("%s", err);
    if (o->help) {
        compare_usage(stdout);
        return 1;
    }
    o->files = (const char **)argv + words.first;
    o->n_files = (size_t)words.n_words;
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
