/* SPDX-License-Identifier: Apache-2.0 */
/* Changes between two runs and the regressions a gate counts. */
#include "compare_regress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"

const char *cmp_change_name(enum cmp_change c)
{
    switch (c) {
    case CMP_NEW_FAILURE:
        return "new failure";
    case CMP_FIXED:
        return "fixed";
    case CMP_CHANGED:
        return "changed";
    case CMP_DISAPPEARED:
        return "disappeared";
    case CMP_APPEARED:
        break;
    }
    return "new case";
}

const char *cmp_change_slug(enum cmp_change c)
{
    switch (c) {
    case CMP_NEW_FAILURE:
        return "new_failures";
    case CMP_FIXED:
        return "fixed";
    case CMP_CHANGED:
        return "changed";
    case CMP_DISAPPEARED:
        return "disappeared";
    case CMP_APPEARED:
        break;
    }
    return "new_cases";
}

static bool known_case(const struct cmp_matrix *m, const char *id)
{
    for (size_t i = 0; i < m->n_cases; i++)
        if (strcmp(m->cases[i].id, id) == 0) return true;
    return false;
}

int cmp_regress_build(struct cmp_regress *g, const struct cmp_matrix *m,
                      const struct cmp_exemptions *ex, char *err, size_t err_len)
{
    memset(g, 0, sizeof *g);
    struct baseline base = {0};
    if (ex->baseline_path && baseline_load(ex->baseline_path, &base, err, err_len) != 0) return -1;
    for (size_t i = 0; i < base.count; i++)
        if (!known_case(m, base.entries[i].id)) {
            snprintf(err, err_len, "%s names case %s, which neither %s nor %s has",
                     ex->baseline_path, base.entries[i].id, m->runs[0].path, m->runs[1].path);
            baseline_free(&base);
            return -1;
        }
    for (size_t i = 0; i < ex->n_ids; i++)
        if (!known_case(m, ex->ids[i])) {
            snprintf(err, err_len, "--allow %s: neither %s nor %s has that case", ex->ids[i],
                     m->runs[0].path, m->runs[1].path);
            baseline_free(&base);
            return -1;
        }
    g->d = calloc(m->n_cases ? m->n_cases : 1, sizeof *g->d);
    if (!g->d) {
        baseline_free(&base);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < m->n_cases; i++) {
        const struct cmp_row *row = &m->cases[i];
        const struct cmp_case *o = row->c[0], *n = row->c[1];
        if (o && n && strcmp(o->outcome, n->outcome) == 0) continue;
        struct cmp_diff *d = &g->d[g->n++];
        d->row = row;
        if (!n)
            d->change = CMP_DISAPPEARED;
        else if (!o)
            d->change = CMP_APPEARED;
        else if (cmp_outcome_bad(n->outcome) && !cmp_outcome_bad(o->outcome))
            d->change = CMP_NEW_FAILURE;
        else if (cmp_outcome_bad(o->outcome) && strcmp(n->outcome, "pass") == 0)
            d->change = CMP_FIXED;
        else
            d->change = CMP_CHANGED;
        d->regression = o && strcmp(o->outcome, "pass") == 0;
        if (!d->regression) continue;
        for (size_t k = 0; k < ex->n_ids && !d->exempt; k++)
            if (strcmp(ex->ids[k], row->id) == 0) d->exempt = "--allow";
        if (!d->exempt && baseline_find(&base, row->id)) d->exempt = "baseline";
        if (!d->exempt && n && strcmp(n->status, "expected-fail") == 0)
            d->exempt = "NEW's baseline";
        if (d->exempt)
            g->exempted++;
        else
            g->regressions++;
    }
    baseline_free(&base);
    return 0;
}

void cmp_regress_free(struct cmp_regress *g)
{
    free(g->d);
    memset(g, 0, sizeof *g);
}
