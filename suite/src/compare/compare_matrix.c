/* SPDX-License-Identifier: Apache-2.0 */
/* Building the comparison matrix. */
#include "compare_matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "P1,P18" -> "P1" in buf. */
static const char *first_clause(const char *list, char *buf, size_t len)
{
    size_t n = strcspn(list, ",");
    if (n >= len) n = len - 1;
    memcpy(buf, list, n);
    buf[n] = '\0';
    return buf;
}

static int check_comparable(const struct cmp_run *runs, size_t n, char *err, size_t err_len)
{
    for (size_t r = 1; r < n; r++) {
        if (strcmp(runs[r].level, runs[0].level) != 0) {
            snprintf(err, err_len,
                     "%s is a run of level %s but %s of level %s: compare runs of one level "
                     "(--level)",
                     runs[0].path, runs[0].level, runs[r].path, runs[r].level);
            return -1;
        }
        if (strcmp(runs[r].profiles, runs[0].profiles) != 0) {
            snprintf(err, err_len,
                     "%s ran the profiles [%s] but %s [%s]: compare runs of the same profiles "
                     "(--profile)",
                     runs[0].path, runs[0].profiles, runs[r].path, runs[r].profiles);
            return -1;
        }
    }
    /* Results always list every case of their catalog, run or not: runs that
     * share no case at all come from unrelated catalogs. */
    for (size_t r = 1; r < n; r++) {
        size_t shared = 0;
        for (size_t i = 0; i < runs[r].n_cases && !shared; i++)
            shared += cmp_run_case(&runs[0], runs[r].cases[i].id) != NULL;
        if (!shared && runs[0].n_cases && runs[r].n_cases) {
            snprintf(err, err_len,
                     "%s and %s come from different catalogs: they share no case ID; compare "
                     "results of one suite",
                     runs[0].path, runs[r].path);
            return -1;
        }
    }
    /* The same ID must check the same clauses at the same level in every run. */
    for (size_t r = 1; r < n; r++)
        for (size_t i = 0; i < runs[r].n_cases; i++) {
            const struct cmp_case *b = &runs[r].cases[i];
            for (size_t q = 0; q < r; q++) {
                const struct cmp_case *a = cmp_run_case(&runs[q], b->id);
                if (!a) continue;
                if (strcmp(a->clauses, b->clauses) != 0 || strcmp(a->level, b->level) != 0) {
                    snprintf(err, err_len,
                             "%s and %s come from different catalogs: case %s checks %s (%s) in "
                             "one and %s (%s) in the other; compare results of one suite version",
                             runs[q].path, runs[r].path, b->id, a->clauses, a->level, b->clauses,
                             b->level);
                    return -1;
                }
                break;
            }
        }
    return 0;
}

static int cmp_ids(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cmp_matrix_build(struct cmp_matrix *m, const struct cmp_run *runs, size_t n, char *err,
                     size_t err_len)
{
    memset(m, 0, sizeof *m);
    m->runs = runs;
    m->n_runs = n;
    if (n > CMP_MAX_RUNS) {
        snprintf(err, err_len, "at most %d results files", CMP_MAX_RUNS);
        return -1;
    }
    if (check_comparable(runs, n, err, err_len) != 0) return -1;
    size_t max_cl = 0, max_ca = 0;
    for (size_t r = 0; r < n; r++) {
        max_cl += runs[r].n_clauses;
        max_ca += runs[r].n_cases;
    }
    m->clauses = calloc(max_cl ? max_cl : 1, sizeof *m->clauses);
    m->cases = calloc(max_ca ? max_ca : 1, sizeof *m->cases);
    const char **ids = calloc(max_ca ? max_ca : 1, sizeof *ids);
    if (!m->clauses || !m->cases || !ids) {
        free(ids);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    /* Clauses: the first run's order, then any the others add. */
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r].n_clauses; i++) {
            const struct cmp_clause *cl = &runs[r].clauses[i];
            bool seen = false;
            for (size_t k = 0; k < m->n_clauses && !seen; k++)
                seen = strcmp(m->clauses[k].id, cl->id) == 0;
            if (seen) continue;
            struct cmp_row *row = &m->clauses[m->n_clauses++];
            row->id = cl->id;
            row->level = cl->level;
            row->text = cl->text;
        }
    /* Cases: every ID of any run, sorted. */
    size_t n_ids = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r].n_cases; i++) {
            bool seen = false;
            for (size_t k = 0; k < n_ids && !seen; k++)
                seen = strcmp(ids[k], runs[r].cases[i].id) == 0;
            if (!seen) ids[n_ids++] = runs[r].cases[i].id;
        }
    qsort(ids, n_ids, sizeof *ids, cmp_ids);
    /* Case rows grouped under their first clause, in clause order. */
    for (size_t k = 0; k < m->n_clauses; k++) {
        struct cmp_row *cl = &m->clauses[k];
        cl->agree = true;
        for (size_t r = 0; r < n; r++) {
            const struct cmp_clause *c = cmp_run_clause(&runs[r], cl->id);
            cl->cell[r] = c ? c->status : "absent";
            if (c && c->has_should) cl->has_should = true;
            if (strcmp(cl->cell[r], cl->cell[0]) != 0) cl->agree = false;
        }
        for (size_t i = 0; i < n_ids; i++) {
            const struct cmp_case *any = NULL;
            for (size_t r = 0; r < n && !any; r++)
                any = cmp_run_case(&runs[r], ids[i]);
            char first[32];
            if (strcmp(first_clause(any->clauses, first, sizeof first), cl->id) != 0) continue;
            struct cmp_row *row = &m->cases[m->n_cases++];
            row->id = any->id;
            row->clause = cl->id;
            row->title = any->title;
            row->level = any->level;
            row->agree = true;
            for (size_t r = 0; r < n; r++) {
                row->c[r] = cmp_run_case(&runs[r], ids[i]);
                row->cell[r] = row->c[r] ? row->c[r]->status : "absent";
                if (strcmp(row->cell[r], row->cell[0]) != 0) row->agree = false;
            }
        }
    }
    /* A case whose first clause no run lists cannot be placed. */
    for (size_t i = 0; i < n_ids; i++) {
        bool placed = false;
        for (size_t k = 0; k < m->n_cases && !placed; k++)
            placed = strcmp(m->cases[k].id, ids[i]) == 0;
        if (placed) continue;
        snprintf(err, err_len, "corrupt results: case %s names a clause no run lists", ids[i]);
        free(ids);
        return -1;
    }
    free(ids);
    for (size_t k = 0; k < m->n_cases; k++)
        m->cases_agree += m->cases[k].agree;
    for (size_t k = 0; k < m->n_clauses; k++)
        m->clauses_agree += cmp_clause_folded(m, &m->clauses[k]);
    return 0;
}

bool cmp_clause_folded(const struct cmp_matrix *m, const struct cmp_row *clause)
{
    if (!clause->agree) return false;
    CMP_FOR_CASES(m, clause, c)
    {
        if (!c->agree) return false;
    }
    return true;
}

void cmp_matrix_free(struct cmp_matrix *m)
{
    free(m->clauses);
    free(m->cases);
    memset(m, 0, sizeof *m);
}
