/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_COMPARE_REGRESS_H
#define SBX_COMPARE_REGRESS_H
/* `compare --base OLD NEW`: what changed from OLD to NEW, and the
 * regressions a CI gate fails on (a case that passed in OLD and does not
 * pass in NEW), less the known ones (--allow, --baseline, or NEW's own
 * baseline). */
#include <stdbool.h>
#include <stddef.h>

#include "compare_matrix.h"

enum cmp_change {
    CMP_NEW_FAILURE, /* NEW fails, times out or errors; OLD did not */
    CMP_FIXED,       /* OLD failed, NEW passes */
    CMP_CHANGED,     /* any other change of outcome */
    CMP_DISAPPEARED, /* in OLD, absent from NEW */
    CMP_APPEARED,    /* absent from OLD, in NEW */
};

struct cmp_diff {
    const struct cmp_row *row;
    enum cmp_change change;
    bool regression;    /* passed in OLD, does not pass in NEW */
    const char *exempt; /* why a regression is not counted, NULL when it is */
};

struct cmp_regress {
    struct cmp_diff *d;
    size_t n;
    size_t regressions; /* counted (not exempt) */
    size_t exempted;
};

struct cmp_exemptions {
    const char **ids; /* --allow IDs */
    size_t n_ids;
    const char *baseline_path; /* --baseline FILE, may be NULL */
};

/* Compares run 0 (OLD) with run 1 (NEW) of m. 0, or -1 with a message
 * (a baseline that does not load, or an exemption naming a case neither run
 * has). */
int cmp_regress_build(struct cmp_regress *g, const struct cmp_matrix *m,
                      const struct cmp_exemptions *ex, char *err, size_t err_len);
void cmp_regress_free(struct cmp_regress *g);

const char *cmp_change_name(enum cmp_change c); /* "new failure", ... */
const char *cmp_change_slug(enum cmp_change c); /* "new_failures", ... */

#endif
