/* SPDX-License-Identifier: Apache-2.0 */
/* `compare` on the console: the runs, the matrix (agreeing rows folded),
 * and with --base the changes and regressions. */
#include <stdlib.h>
#include <string.h>

#include "compare_report.h"
#include "text_util.h"

#define CELL_W 16
#define DETAIL_MAX 110
#define TITLE_MAX 60

/* " text", cut at max bytes (on a UTF-8 boundary) with "...". */
static void print_cut(FILE *f, const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max) {
        fprintf(f, " %s", s);
        return;
    }
    n = max - 3;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    fprintf(f, " %.*s...", (int)n, s);
}

static void print_detail(FILE *f, const struct cmp_view *v, const struct cmp_row *row)
{
    for (size_t r = 0; r < v->m->n_runs; r++) {
        const char *d = cmp_cell_detail(row, r);
        if (!d) continue;
        char *s = text_sanitize(d, strlen(d), DETAIL_MAX, false);
        fprintf(f, "            %s: %s\n", v->m->runs[r].label, s ? s : "");
        free(s);
    }
}

static void print_row(FILE *f, const struct cmp_view *v, const struct cmp_row *row, bool clause)
{
    char head[40];
    if (clause)
        snprintf(head, sizeof head, "%s %s%s", row->id, row->level,
                 row->has_should && strcmp(row->level, "MUST") == 0 ? "+SHOULD" : "");
    else
        snprintf(head, sizeof head, "  %s", row->id);
    fprintf(f, "%-24s", head);
    for (size_t r = 0; r < v->m->n_runs; r++)
        fprintf(f, " %-*s", CELL_W, row->cell[r]);
    if (!clause && row->title) {
        char *t = text_sanitize(row->title, strlen(row->title), 4096, false);
        print_cut(f, t ? t : "", TITLE_MAX);
        free(t);
    }
    fputc('\n', f);
    if (!clause) print_detail(f, v, row);
}

static void print_regressions(FILE *f, const struct cmp_view *v)
{
    const struct cmp_regress *g = v->g;
    const struct cmp_matrix *m = v->m;
    fprintf(f, "\nChanges from %s (OLD, %s) to %s (NEW, %s):\n", m->runs[0].label, m->runs[0].path,
            m->runs[1].label, m->runs[1].path);
    static const enum cmp_change order[] = {CMP_NEW_FAILURE, CMP_FIXED, CMP_CHANGED,
                                            CMP_DISAPPEARED, CMP_APPEARED};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        size_t n = cmp_count_change(g, order[k]);
        fprintf(f, "  %s: %zu\n", cmp_change_name(order[k]), n);
        for (size_t i = 0; i < g->n; i++) {
            const struct cmp_diff *d = &g->d[i];
            if (d->change != order[k]) continue;
            fprintf(f, "    %-10s %s -> %s%s%s%s%s\n", d->row->id, d->row->cell[0], d->row->cell[1],
                    d->regression ? "  REGRESSION" : "", d->exempt ? " (exempt: " : "",
                    d->exempt ? d->exempt : "", d->exempt ? ")" : "");
            const char *det = cmp_cell_detail(d->row, 1);
            if (det) {
                char *s = text_sanitize(det, strlen(det), DETAIL_MAX, false);
                fprintf(f, "               NEW: %s\n", s ? s : "");
                free(s);
            }
        }
    }
    if (g->regressions)
        fprintf(f,
                "%zu regression%s: a case that passed in OLD does not pass in NEW (%zu exempt)\n",
                g->regressions, g->regressions == 1 ? "" : "s", g->exempted);
    else
        fprintf(f, "no regressions (%zu exempt)\n", g->exempted);
}

void cmp_print_console(FILE *f, const struct cmp_view *v)
{
    const struct cmp_matrix *m = v->m;
    fprintf(f, "compare: %zu runs of level %s\n", m->n_runs, m->runs[0].level);
    for (size_t r = 0; r < m->n_runs; r++)
        fprintf(f, "  %s  %s: %s, %s (%s)\n", m->runs[r].label, m->runs[r].path,
                m->runs[r].verdict_text, m->runs[r].runtime,
                m->runs[r].started_at ? m->runs[r].started_at : "?");
    fprintf(f, "\n%-24s", "clause / case");
    for (size_t r = 0; r < m->n_runs; r++)
        fprintf(f, " %-*s", CELL_W, m->runs[r].label);
    fputc('\n', f);
    size_t shown = 0;
    for (size_t k = 0; k < m->n_clauses; k++) {
        const struct cmp_row *cl = &m->clauses[k];
        bool folded = cmp_clause_folded(m, cl);
        if (folded && !v->all) continue;
        print_row(f, v, cl, true);
        shown++;
        CMP_FOR_CASES(m, cl, c)
        {
            if (c->agree && !v->all) continue;
            print_row(f, v, c, false);
        }
    }
    if (!shown) fputs("(every row agrees)\n", f);
    fprintf(f, "\n%zu of %zu cases and %zu of %zu clauses agree%s\n", m->cases_agree, m->n_cases,
            m->clauses_agree, m->n_clauses,
            v->all || m->cases_agree == 0 ? "" : "; agreeing rows folded (--all shows them)");
    if (v->g) print_regressions(f, v);
}
