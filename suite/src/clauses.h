#ifndef SBX_CLAUSES_H
#define SBX_CLAUSES_H
/* The contract's clauses (spec/CONTRACT.md section 3), for --explain, the
 * per-clause roll-up and the HTML table of contents. */
#include <stdbool.h>
#include <stddef.h>

#include "case_api.h"

struct clause {
    const char *id;        /* "P1" */
    enum case_level level; /* MUST when the clause has a MUST part */
    bool launch;           /* [launch]: checkable only in launch mode */
    bool has_should;       /* the clause also states SHOULD parts */
    const char *text;      /* one line */
};

struct clause_group {
    char letter;
    const char *title;
};

extern const struct clause clause_table[];
extern const size_t clause_count;
extern const struct clause_group clause_groups[];
extern const size_t clause_group_count;

const struct clause *clause_find(const char *id);
const char *clause_group_title(char letter);

#endif
