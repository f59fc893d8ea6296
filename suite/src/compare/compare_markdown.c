/* SPDX-License-Identifier: Apache-2.0 */
/* `compare --markdown FILE`: for a pull-request comment or a CI job summary.
 * The regressions first (with --base), then the rows where the runs differ;
 * agreeing rows only with --all. */
#include <stdlib.h>
#include <string.h>

#include "compare_report.h"
#include "text_util.h"

static void md_cell(FILE *f, const char *s, size_t max)
{
    char *t = s ? text_sanitize(s, strlen(s), max, false) : NULL;
    text_write_md_cell(f, t ? t : "");
    free(t);
}

static void md_row(FILE *f, const struct cmp_view *v, const struct cmp_row *row, bool clause)
{
    fputs(clause ? "| **" : "| ", f);
    md_cell(f, row->id, 40);
    fputs(clause ? "** " : " ", f);
    fputs(row->level ? row->level : "", f);
    fputs(" | ", f);
    md_cell(f, clause ? row->text : row->title, 80);
    for (size_t r = 0; r < v->m->n_runs; r++) {
        fputs(" | ", f);
        fputs(row->cell[r], f);
        const char *d = clause ? NULL : cmp_cell_detail(row, r);
        if (d) {
            fputs(": ", f);
            md_cell(f, d, 120);
        }
    }
    fputs(" |\n", f);
}

static void md_regressions(FILE *f, const struct cmp_view *v)
{
    const struct cmp_regress *g = v->g;
    fprintf(f, "### %s\n\n",
            g->regressions ? "Regressions: a case that passed before does not pass now"
                           : "No regressions");
    fprintf(f, "%zu regression%s, %zu exempt. ", g->regressions, g->regressions == 1 ? "" : "s",
            g->exempted);
    static const enum cmp_change order[] = {CMP_NEW_FAILURE, CMP_FIXED, CMP_CHANGED,
                                            CMP_DISAPPEARED, CMP_APPEARED};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        fprintf(f, "%s%s: %zu", k ? ", " : "", cmp_change_name(order[k]),
                cmp_count_change(g, order[k]));
    fputs(".\n\n", f);
    if (!g->n) return;
    fputs("| case | change | OLD | NEW | regression |\n|---|---|---|---|---|\n", f);
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        for (size_t i = 0; i < g->n; i++) {
            const struct cmp_diff *d = &g->d[i];
            if (d->change != order[k]) continue;
            fprintf(f, "| %s | %s | %s | %s", d->row->id, cmp_change_name(d->change),
                    d->row->cell[0], d->row->cell[1]);
            const char *det = cmp_cell_detail(d->row, 1);
            if (det) {
                fputs(": ", f);
                md_cell(f, det, 120);
            }
            fprintf(f, " | %s%s%s |\n",
                    !d->regression ? ""
                    : d->exempt    ? "exempt ("
                                   : "**yes**",
                    d->regression && d->exempt ? d->exempt : "",
                    d->regression && d->exempt ? ")" : "");
        }
    fputc('\n', f);
}

int cmp_write_markdown(FILE *f, const struct cmp_view *v)
{
    const struct cmp_matrix *m = v->m;
    fputs("## sandboxd conformance: comparison\n\n| run | file | verdict | runtime | started |\n"
          "|---|---|---|---|---|\n",
          f);
    for (size_t r = 0; r < m->n_runs; r++) {
        fprintf(f, "| %s | ", m->runs[r].label);
        md_cell(f, m->runs[r].path, 120);
        fprintf(f, " | %s | ", m->runs[r].verdict_text);
        md_cell(f, m->runs[r].runtime, 120);
        fputs(" | ", f);
        md_cell(f, m->runs[r].started_at, 40);
        fputs(" |\n", f);
    }
    fputc('\n', f);
    if (v->g) md_regressions(f, v);
    fprintf(f, "### Where the runs differ\n\n%zu of %zu cases and %zu of %zu clauses agree%s.\n\n",
            m->cases_agree, m->n_cases, m->clauses_agree, m->n_clauses,
            v->all ? "" : " (not shown)");
    fputs("| clause / case | text |", f);
    for (size_t r = 0; r < m->n_runs; r++)
        fprintf(f, " %s |", m->runs[r].label);
    fputs("\n|---|---|", f);
    for (size_t r = 0; r < m->n_runs; r++)
        fputs("---|", f);
    fputc('\n', f);
    for (size_t k = 0; k < m->n_clauses; k++) {
        const struct cmp_row *cl = &m->clauses[k];
        if (cmp_clause_folded(m, cl) && !v->all) continue;
        md_row(f, v, cl, true);
        CMP_FOR_CASES(m, cl, c)
        {
            if (c->agree && !v->all) continue;
            md_row(f, v, c, false);
        }
    }
    return ferror(f) ? -1 : 0;
}
