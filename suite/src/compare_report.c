/* Helpers shared by the outputs of `compare`. */
#include "compare_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmp_write_file(const char *path, int (*fn)(FILE *f, const struct cmp_view *v),
                   const struct cmp_view *v)
{
    size_t l = strlen(path) + 24;
    char *tmp = malloc(l);
    if (!tmp) return -1;
    snprintf(tmp, l, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        free(tmp);
        errno = e;
        return -1;
    }
    int rc = fn(f, v);
    if (ferror(f)) rc = -1;
    if (fclose(f) != 0) rc = -1;
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    if (rc != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return rc;
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
