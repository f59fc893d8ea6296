/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_HTML_GLANCE_H
#define SBX_HTML_GLANCE_H
/* The picture of the whole contract that HTML reports open with: one cell
 * per clause, coloured by its status, MUST clauses and SHOULD clauses in
 * separate strips, each cell linking to the clause's section. Pure CSS, no
 * external assets. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct glance_cell {
    const char *id;     /* "P1" */
    const char *status; /* pass fail incomplete untested absent */
    const char *text;   /* the clause's one-line text (tooltip) */
    bool should;        /* the clause is SHOULD only */
};

/* CSS of the grid and its legend (inside a <style> element). */
void html_glance_style(FILE *f);

/* One picture: a MUST strip and a SHOULD strip. label (may be NULL) heads it;
 * cell links go to #<anchor_prefix><id>. */
void html_glance_grid(FILE *f, const char *label, const struct glance_cell *cells, size_t n,
                      const char *anchor_prefix);

/* The colour legend. */
void html_glance_legend(FILE *f);

#endif
