/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_COMPARE_BASELINE_H
#define SBX_COMPARE_BASELINE_H
/* Baseline upkeep from a run's results:
 *   --write-baseline FILE  adds every case that failed or timed out (reason
 *                          from its first failure, link left empty for the
 *                          user; errors are the suite's and not added);
 *                          entries already in FILE are kept as they are;
 *   --prune-baseline FILE  removes the entries whose case now passes.
 * FILE is rewritten atomically (its comments are not kept). */
#include <stddef.h>
#include <stdio.h>

#include "compare_run.h"

/* Each returns 0, or -1 with a message in err (nothing written). A summary
 * of what changed goes to out. */
int cmp_baseline_write(const char *path, const struct cmp_run *run, FILE *out, char *err,
                       size_t err_len);
int cmp_baseline_prune(const char *path, const struct cmp_run *run, FILE *out, char *err,
                       size_t err_len);

#endif
