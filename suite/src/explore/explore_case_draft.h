/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_CASE_DRAFT_H
#define SBX_EXPLORE_CASE_DRAFT_H
/* A ready-to-paste draft of a conformance case (C, in the style of cases/)
 * that replays a minimal reproduction and fails when the runtime answers
 * the last operation as the deviating runtime did. */
#include <stddef.h>
#include <stdint.h>

#include "explore_answer.h"
#include "explore_op.h"

/* malloc'd C source text. */
char *xcase_draft(const struct xop *ops, size_t n, uint64_t seed, const char *clause,
                  const char *expected, const struct xans *observed);

#endif
