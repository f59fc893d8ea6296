/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CLAUSES_H
#define SBX_CLAUSES_H
/* The contract's clauses, for --explain, the per-clause roll-up and the
 * reports. The table is generated from cases/contract/contract.yaml (the one
 * source of every clause, also of cases/contract/CONTRACT.md) into
 * clause_table.c, keyed by enum clause_key (clause_ids.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "case_api.h"
#include "clause_ids.h"

struct clause {
    const char *id;        /* "P1" */
    enum case_level level; /* MUST when the clause has a MUST part */
    bool launch;           /* [launch]: checkable only in launch mode */
    bool has_should;       /* the clause also states SHOULD parts */
    const char *text;      /* one-line summary, as the reports show it */
    const char *normative; /* the contract's full text of the clause */
};

struct clause_group {
    char letter;
    const char *title;
};

extern const struct clause clause_table[CLAUSE_COUNT];
extern const size_t clause_count;
extern const struct clause_group clause_groups[];
extern const size_t clause_group_count;

const struct clause *clause_find(const char *id);
const char *clause_group_title(char letter);

/* Writes text word-wrapped to width columns, every line indented. */
void clause_write_wrapped(FILE *f, const char *text, int indent, int width);

#endif
