/* SPDX-License-Identifier: Apache-2.0 */
/* TAP version 13: one test point per selected case; skips and baseline
 * expected failures as directives, details as YAML blocks. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "text_util.h"

/* YAML block scalar lines, indented. */
static void yaml_block(FILE *f, const char *key, const char *text)
{
    fprintf(f, "    %s: |-\n", key);
    const char *p = text ? text : "";
    do {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        fprintf(f, "      %.*s\n", (int)l, p);
        p = e ? e + 1 : NULL;
    } while (p && *p);
}

/* Test point descriptions may not contain '#' (directive start). */
static void description(FILE *f, const struct case_result *r)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s %s", r->def->id, r->def->title);
    for (char *c = buf; *c; c++)
        if (*c == '#' || *c == '\n') *c = ' ';
    fputs(buf, f);
}

static void directive_text(FILE *f, const char *s)
{
    for (const char *c = s ? s : ""; *c; c++)
        fputc(*c == '\n' || *c == '#' ? ' ' : *c, f);
}

static int write_tap(FILE *f, const struct run_results *res)
{
    unsigned n = 0;
    for (size_t i = 0; i < res->count; i++)
        n += res->cases[i].selected && res->cases[i].outcome != OUT_NOT_RUN;
    fputs("TAP version 13\n", f);
    fprintf(f, "1..%u\n", n);
    unsigned k = 0;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!r->selected || r->outcome == OUT_NOT_RUN) continue;
        k++;
        bool ok = r->outcome == OUT_PASS || r->outcome == OUT_SKIP;
        fprintf(f, "%s %u - ", ok ? "ok" : "not ok", k);
        description(f, r);
        if (r->expected_fail) {
            fputs(" # TODO expected failure (baseline): ", f);
            directive_text(f, r->baseline_reason ? r->baseline_reason : "listed");
        } else if (r->outcome == OUT_SKIP) {
            fputs(" # SKIP ", f);
            directive_text(f, r->reason);
        }
        fputc('\n', f);
        if (r->outcome == OUT_FAIL || r->outcome == OUT_TIMEOUT || r->outcome == OUT_ERROR ||
            r->unexpected_pass) {
            fputs("  ---\n", f);
            fprintf(f, "    outcome: %s\n", result_status(r));
            fprintf(f, "    clauses: \"%s\"\n", r->def->clauses);
            fprintf(f, "    duration_ms: %.0f\n", r->seconds * 1000);
            if (r->reason) yaml_block(f, "message", r->reason);
            if (r->n_failures) {
                fputs("    failures:\n", f);
                for (size_t x = 0; x < r->n_failures; x++) {
                    fputs("      -\n", f);
                    fprintf(f, "        expected: |-\n");
                    fprintf(f, "          ");
                    directive_text(f, r->failures[x].expected);
                    fprintf(f, "\n        observed: |-\n          ");
                    directive_text(f, r->failures[x].observed);
                    fputc('\n', f);
                    if (r->failures[x].request) {
                        fprintf(f, "        request: |-\n          ");
                        directive_text(f, r->failures[x].request);
                        fputc('\n', f);
                    }
                }
            }
            fputs("  ...\n", f);
        }
    }
    /* Diagnostics, not test points: the findings never fail a case. */
    struct doc_finding_row *rows;
    size_t nrows = report_doc_findings(res, &rows);
    if (nrows) {
        fprintf(f, "# %s (", REPORT_DOC_FINDINGS_TITLE);
        directive_text(f, res->params.openapi ? res->params.openapi : "?");
        fputs("; judged by the contract)\n", f);
    }
    for (size_t i = 0; i < nrows; i++) {
        fputs("#   - ", f);
        directive_text(f, rows[i].text);
        fprintf(f, " [%s]\n", rows[i].cases);
    }
    report_doc_findings_free(rows, nrows);
    fprintf(f, "# verdict: %s\n", verdict_name(res->verdict.verdict));
    return ferror(f) ? -1 : 0;
}

int report_tap_write(const struct run_results *res, const char *path)
{
    return report_write_file(path, write_tap, res);
}
