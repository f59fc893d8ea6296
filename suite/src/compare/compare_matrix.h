/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_COMPARE_MATRIX_H
#define SBX_COMPARE_MATRIX_H
/* The comparison of two or more runs: the union of their clauses and cases
 * (in catalog order), one cell per run, and whether the runs agree. Runs of
 * different levels or profiles, or whose catalogs disagree on what a case
 * ID checks, are refused. */
#include <stdbool.h>
#include <stddef.h>

#include "compare_run.h"

#define CMP_MAX_RUNS 16

struct cmp_row {
    const char *id;
    const char *clause;             /* case rows: the clause it is listed under (its first) */
    const char *title, *level;      /* from the first run that has it */
    const char *text;               /* clause rows */
    const char *cell[CMP_MAX_RUNS]; /* status; "absent" when the run does not have it */
    const struct cmp_case *c[CMP_MAX_RUNS]; /* case rows; NULL when absent */
    bool agree;
    bool has_should; /* clause rows */
};

struct cmp_matrix {
    const struct cmp_run *runs;
    size_t n_runs;
    struct cmp_row *clauses; /* one per clause */
    size_t n_clauses;
    struct cmp_row *cases; /* grouped by clause, catalog order inside */
    size_t n_cases;
    size_t cases_agree, clauses_agree;
};

/* 0, or -1 with a message in err (runs that cannot be compared). */
int cmp_matrix_build(struct cmp_matrix *m, const struct cmp_run *runs, size_t n, char *err,
                     size_t err_len);
void cmp_matrix_free(struct cmp_matrix *m);

/* A clause row is shown folded when it and all its cases agree. */
bool cmp_clause_folded(const struct cmp_matrix *m, const struct cmp_row *clause);

/* Every case row listed under the clause (its first clause). */
#define CMP_FOR_CASES(m, clause_row, it)                                                           \
    for (const struct cmp_row *it = (m)->cases; it < (m)->cases + (m)->n_cases; it++)              \
        if (strcmp(it->clause, (clause_row)->id) == 0)

#endif
