/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_SHRINK_H
#define SBX_EXPLORE_SHRINK_H
/* Delta debugging (Zeller's ddmin) over a failing sequence, then a pass
 * that simplifies what is left (names, sizes, options), each step kept only
 * when the sequence still fails. The predicate runs the candidate. */
#include <stddef.h>

#include "explore_op.h"

/* 1 when ops[0..n) still fails the same way, 0 when it passes. */
typedef int (*xshrink_pred)(const struct xop *ops, size_t n, void *ud);

struct xshrink_stats {
    unsigned runs;    /* predicate calls */
    double seconds;   /* wall time spent */
    bool out_of_time; /* the bound stopped it before a fixpoint */
};

/* Shrinks ops[0..*n) in place; runs the predicate at most max_runs times
 * and for at most max_seconds. */
void xshrink(struct xop *ops, size_t *n, xshrink_pred pred, void *ud, unsigned max_runs,
             double max_seconds, struct xshrink_stats *st);

#endif
