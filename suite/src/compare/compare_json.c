/* SPDX-License-Identifier: Apache-2.0 */
/* `compare --json FILE`: schema sandboxd-conformance-compare/1 (documented in
 * reports/README.md). Every row is written, with its agreement flag. */
#include "compare_report.h"

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *row_json(const struct cmp_view *v, const struct cmp_row *row, bool clause)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(row->id));
    json_object_set_new(o, "level", str_or_null(row->level));
    if (clause) {
        json_object_set_new(o, "text", str_or_null(row->text));
        json_object_set_new(o, "has_should", json_boolean(row->has_should));
    } else {
        json_object_set_new(o, "clause", json_string(row->clause));
        json_object_set_new(o, "title", str_or_null(row->title));
    }
    json_object_set_new(o, "agree", json_boolean(row->agree));
    json_t *cells = json_array();
    for (size_t r = 0; r < v->m->n_runs; r++) {
        if (clause) {
            json_array_append_new(cells, json_string(row->cell[r]));
            continue;
        }
        const struct cmp_case *c = row->c[r];
        json_array_append_new(cells, json_pack("{s:s,s:o,s:o}", "status", row->cell[r], "outcome",
                                               str_or_null(c ? c->outcome : NULL), "detail",
                                               str_or_null(cmp_cell_detail(row, r))));
    }
    json_object_set_new(o, "cells", cells);
    return o;
}

static json_t *regress_json(const struct cmp_regress *g)
{
    json_t *o = json_object();
    static const enum cmp_change order[] = {CMP_NEW_FAILURE, CMP_FIXED, CMP_CHANGED,
                                            CMP_DISAPPEARED, CMP_APPEARED};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        json_t *a = json_array();
        for (size_t i = 0; i < g->n; i++) {
            const struct cmp_diff *d = &g->d[i];
            if (d->change != order[k]) continue;
            json_array_append_new(a,
                                  json_pack("{s:s,s:s,s:s,s:b,s:o}", "id", d->row->id, "old",
                                            d->row->cell[0], "new", d->row->cell[1], "regression",
                                            d->regression, "exempt", str_or_null(d->exempt)));
        }
        json_object_set_new(o, cmp_change_slug(order[k]), a);
    }
    json_object_set_new(o, "regressions", json_integer((json_int_t)g->regressions));
    json_object_set_new(o, "exempted", json_integer((json_int_t)g->exempted));
    return o;
}

int cmp_write_json(FILE *f, const struct cmp_view *v)
{
    const struct cmp_matrix *m = v->m;
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string("sandboxd-conformance-compare/1"));
    json_object_set_new(doc, "level", json_string(m->runs[0].level));
    json_t *runs = json_array();
    for (size_t r = 0; r < m->n_runs; r++)
        json_array_append_new(
            runs, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "label", m->runs[r].label, "file",
                            m->runs[r].path, "verdict", m->runs[r].verdict_slug, "verdict_text",
                            m->runs[r].verdict_text, "runtime", m->runs[r].runtime, "started_at",
                            str_or_null(m->runs[r].started_at)));
    json_object_set_new(doc, "runs", runs);
    json_object_set_new(doc, "cases_agree", json_integer((json_int_t)m->cases_agree));
    json_object_set_new(doc, "clauses_agree", json_integer((json_int_t)m->clauses_agree));
    json_t *clauses = json_array(), *cases = json_array();
    for (size_t k = 0; k < m->n_clauses; k++)
        json_array_append_new(clauses, row_json(v, &m->clauses[k], true));
    for (size_t k = 0; k < m->n_cases; k++)
        json_array_append_new(cases, row_json(v, &m->cases[k], false));
    json_object_set_new(doc, "clauses", clauses);
    json_object_set_new(doc, "cases", cases);
    json_object_set_new(doc, "base", v->g ? regress_json(v->g) : json_null());
    json_object_set_new(doc, "exit_code", json_integer(v->exit_code));
    int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', f);
    json_decref(doc);
    return rc == 0 ? 0 : -1;
}
