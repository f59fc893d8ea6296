/* SPDX-License-Identifier: Apache-2.0 */
/* `compare --html FILE`: one self-contained page. It opens with the
 * regressions (with --base) and the cases where the runs differ, each linked
 * to its clause's row; then one picture of the contract per run; then the
 * matrix by clause group, agreeing clauses collapsed. */
#include <stdlib.h>
#include <string.h>

#include "clauses.h"
#include "compare_report.h"
#include "html_glance.h"
#include "text_util.h"

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:80em;color:#222}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em "
    ".6em;text-align:left;vertical-align:top}"
    "td.pass{background:#e3f6e6}td.fail,td.timeout,td.error{background:#fadad7}"
    "td.skip,td.not-run,td.incomplete,td.expected-fail{background:#fbf1cf}"
    "td.unexpected-pass{background:#dde8fa}td.absent,td.untested{background:#f3f3f3;color:#888}"
    "tr.clause td{font-weight:bold}.det{font-size:.85em;color:#444;display:block;"
    "white-space:pre-wrap;word-break:break-word}details{margin:.3em 0}.regr{color:#b3261e;"
    "font-weight:bold}";

static void esc(FILE *f, const char *s)
{
    text_write_xml(f, s ? s : "");
}

static void cells(FILE *f, const struct cmp_view *v, const struct cmp_row *row, bool clause)
{
    for (size_t r = 0; r < v->m->n_runs; r++) {
        fprintf(f, "<td class=\"%s\" data-run=\"%s\">%s", row->cell[r], v->m->runs[r].label,
                row->cell[r]);
        const char *d = clause ? NULL : cmp_cell_detail(row, r);
        if (d) {
            char *s = text_sanitize(d, strlen(d), 400, true);
            fputs("<span class=\"det\">", f);
            esc(f, s);
            fputs("</span>", f);
            free(s);
        }
        fputs("</td>", f);
    }
}

static void differ_list(FILE *f, const struct cmp_view *v)
{
    const struct cmp_matrix *m = v->m;
    fprintf(f,
            "<h2 id=\"differ\">Where the runs differ</h2>\n<p>%zu of %zu cases and %zu of %zu "
            "clauses agree.</p>\n",
            m->cases_agree, m->n_cases, m->clauses_agree, m->n_clauses);
    if (m->cases_agree == m->n_cases) return;
    fputs("<table class=\"differ\"><tr><th>clause</th><th>case</th><th>title</th>", f);
    for (size_t r = 0; r < m->n_runs; r++)
        fprintf(f, "<th>%s</th>", m->runs[r].label);
    fputs("</tr>\n", f);
    for (size_t i = 0; i < m->n_cases; i++) {
        const struct cmp_row *c = &m->cases[i];
        if (c->agree) continue;
        fprintf(f, "<tr><td><a href=\"#clause-%s\">%s</a></td><td><a href=\"#case-", c->clause,
                c->clause);
        esc(f, c->id);
        fputs("\">", f);
        esc(f, c->id);
        fputs("</a></td><td>", f);
        esc(f, c->title);
        fputs("</td>", f);
        cells(f, v, c, false);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void regressions(FILE *f, const struct cmp_view *v)
{
    const struct cmp_regress *g = v->g;
    fprintf(f,
            "<h2 id=\"regressions\">Regressions</h2>\n<p class=\"%s\">%zu regression%s "
            "(a case that passed in %s does not pass in %s), %zu exempt.</p>\n",
            g->regressions ? "regr" : "", g->regressions, g->regressions == 1 ? "" : "s",
            v->m->runs[0].label, v->m->runs[1].label, g->exempted);
    if (!g->n) return;
    fputs("<table class=\"changes\"><tr><th>case</th><th>change</th><th>OLD</th><th>NEW</th>"
          "<th>regression</th></tr>\n",
          f);
    for (size_t i = 0; i < g->n; i++) {
        const struct cmp_diff *d = &g->d[i];
        fputs("<tr><td><a href=\"#case-", f);
        esc(f, d->row->id);
        fputs("\">", f);
        esc(f, d->row->id);
        fprintf(f, "</a></td><td>%s</td>", cmp_change_name(d->change));
        cells(f, v, d->row, false);
        fprintf(f, "<td>%s%s%s</td></tr>\n",
                !d->regression ? ""
                : d->exempt    ? "exempt: "
                               : "<span class=\"regr\">yes</span>",
                d->regression && d->exempt ? d->exempt : "", "");
    }
    fputs("</table>\n", f);
}

static void glances(FILE *f, const struct cmp_view *v)
{
    const struct cmp_matrix *m = v->m;
    fputs("<h2 id=\"glance\">The contract at a glance</h2>\n", f);
    struct glance_cell *gc = calloc(m->n_clauses ? m->n_clauses : 1, sizeof *gc);
    if (!gc) return;
    for (size_t r = 0; r < m->n_runs; r++) {
        for (size_t k = 0; k < m->n_clauses; k++)
            gc[k] = (struct glance_cell){.id = m->clauses[k].id,
                                         .status = m->clauses[k].cell[r],
                                         .text = m->clauses[k].text,
                                         .should = m->clauses[k].level &&
                                                   strcmp(m->clauses[k].level, "SHOULD") == 0};
        char label[300];
        snprintf(label, sizeof label, "%s — %s (%s)", m->runs[r].label, m->runs[r].path,
                 m->runs[r].verdict_text);
        html_glance_grid(f, label, gc, m->n_clauses, "clause-");
    }
    free(gc);
    html_glance_legend(f);
}

static void clause_rows(FILE *f, const struct cmp_view *v, const struct cmp_row *cl)
{
    fprintf(f, "<tr class=\"clause\" id=\"clause-%s\"><td>%s %s</td><td>", cl->id, cl->id,
            cl->level ? cl->level : "");
    esc(f, cl->text);
    fputs("</td>", f);
    cells(f, v, cl, true);
    fputs("</tr>\n", f);
    CMP_FOR_CASES(v->m, cl, c)
    {
        fputs("<tr id=\"case-", f);
        esc(f, c->id);
        fputs("\"><td>", f);
        esc(f, c->id);
        fputs("</td><td>", f);
        esc(f, c->title);
        fputs("</td>", f);
        cells(f, v, c, false);
        fputs("</tr>\n", f);
    }
}

static void matrix(FILE *f, const struct cmp_view *v)
{
    const struct cmp_matrix *m = v->m;
    for (size_t g = 0; g < clause_group_count; g++) {
        char letter = clause_groups[g].letter;
        bool any = false;
        for (size_t k = 0; k < m->n_clauses; k++)
            any |= m->clauses[k].id[0] == letter;
        if (!any) continue;
        fprintf(f, "<h2 id=\"group-%c\">%c — %s</h2>\n", letter, letter, clause_groups[g].title);
        /* Differing clauses in the open; agreeing ones in one collapsed block. */
        for (int pass = 0; pass < 2; pass++) {
            size_t n = 0;
            for (size_t k = 0; k < m->n_clauses; k++)
                n += m->clauses[k].id[0] == letter &&
                     cmp_clause_folded(m, &m->clauses[k]) == (pass == 1);
            if (!n) continue;
            if (pass == 1)
                fprintf(f, "<details%s><summary>%zu clause%s where every run agrees</summary>\n",
                        v->all ? " open" : "", n, n == 1 ? "" : "s");
            fputs("<table><tr><th>clause / case</th><th>text / title</th>", f);
            for (size_t r = 0; r < m->n_runs; r++)
                fprintf(f, "<th>%s</th>", m->runs[r].label);
            fputs("</tr>\n", f);
            for (size_t k = 0; k < m->n_clauses; k++)
                if (m->clauses[k].id[0] == letter &&
                    cmp_clause_folded(m, &m->clauses[k]) == (pass == 1))
                    clause_rows(f, v, &m->clauses[k]);
            fputs("</table>\n", f);
            if (pass == 1) fputs("</details>\n", f);
        }
    }
}

int cmp_write_html(FILE *f, const struct cmp_view *v)
{
    const struct cmp_matrix *m = v->m;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
          "<title>sandboxd conformance comparison</title><style>",
          f);
    fputs(style, f);
    html_glance_style(f);
    fputs("</style></head><body>\n<h1>sandboxd conformance comparison</h1>\n", f);
    fputs("<table class=\"runs\"><tr><th>run</th><th>file</th><th>verdict</th><th>runtime</th>"
          "<th>started</th></tr>\n",
          f);
    for (size_t r = 0; r < m->n_runs; r++) {
        fprintf(f, "<tr><td>%s</td><td>", m->runs[r].label);
        esc(f, m->runs[r].path);
        fprintf(f, "</td><td>%s</td><td>", m->runs[r].verdict_text);
        esc(f, m->runs[r].runtime);
        fputs("</td><td>", f);
        esc(f, m->runs[r].started_at);
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "</table>\n<p>Level %s.</p>\n", m->runs[0].level);
    if (v->g) regressions(f, v);
    differ_list(f, v);
    glances(f, v);
    matrix(f, v);
    fputs("</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}
