/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_COMPARE_REPORT_H
#define SBX_COMPARE_REPORT_H
/* Outputs of `compare`: console, Markdown, HTML and JSON. Rows where every
 * run agrees are folded unless all is set (HTML keeps them, collapsed). */
#include <stdbool.h>
#include <stdio.h>

#include "compare_matrix.h"
#include "compare_regress.h"

struct cmp_view {
    const struct cmp_matrix *m;
    const struct cmp_regress *g; /* NULL unless --base */
    bool all;
    int exit_code;
};

void cmp_print_console(FILE *f, const struct cmp_view *v);
int cmp_write_markdown(FILE *f, const struct cmp_view *v);
int cmp_write_html(FILE *f, const struct cmp_view *v);
int cmp_write_json(FILE *f, const struct cmp_view *v);

/* Writes path atomically (temporary file + rename) through fn. 0 or -1 (errno). */
int cmp_write_file(const char *path, int (*fn)(FILE *f, const struct cmp_view *v),
                   const struct cmp_view *v);

/* The detail a cell shows: the first failure's observed value, else the
 * reason; NULL for a pass or an absent case. */
const char *cmp_cell_detail(const struct cmp_row *row, size_t run);

/* How many rows of a kind of change a --base comparison found. */
size_t cmp_count_change(const struct cmp_regress *g, enum cmp_change c);

#endif
