/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the outputs of `compare`. */
#include "compare_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_util.h"

struct cmp_writer {
    int (*fn)(FILE *f, const struct cmp_view *v);
    const struct cmp_view *v;
};

static int cmp_write(FILE *f, const void *arg)
{
    const struct cmp_writer *w = arg;
    return w->fn(f, w->v);
}

int cmp_write_file(const char *path, int (*fn)(FILE *f, const struct cmp_view *v),
                   const struct cmp_view *v)
{
    struct cmp_writer w = {fn, v};
    return fs_write_file_atomic(path, cmp_write, &w);
}

const char *cmp_cell_detail(const struct cmp_row *row, size_t run)
{
    const struct cmp_case *c = row->c[run];
    if (!c || strcmp(c->outcome, "pass") == 0 || strcmp(c->outcome, "not-run") == 0) return NULL;
    return c->detail;
}

size_t cmp_count_change(const struct cmp_regress *g, enum cmp_change c)
{
    size_t n = 0;
    for (size_t i = 0; g && i < g->n; i++)
        n += g->d[i].change == c;
    return n;
}
