/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_GEN_H
#define SBX_EXPLORE_GEN_H
/* The seeded generator of operation sequences. It keeps its own view of the
 * names it made and the processes it started, never the runtime's answers,
 * so a sequence depends on the seed alone. */
#include <stddef.h>
#include <stdint.h>

#include "explore_op.h"

/* n operations from seed; malloc'd array (NULL when out of memory). */
struct xop *xgen_sequence(uint64_t seed, size_t n);

#endif
