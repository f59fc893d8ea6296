/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_VERDICT_H
#define SBX_VERDICT_H
/* The verdict and the exit code, from the results alone:
 *   not conformant  a MUST case of the set failed, timed out or errored;
 *   incomplete      otherwise, when a MUST case did not run and pass (skipped,
 *                   filtered out, expected to fail by the baseline);
 *   core conformant every MUST case ran and passed;
 *   full conformant also every SHOULD case (only with --level full).
 * Exit 1 when any selected case failed, timed out or errored (baseline
 * expected failures excepted), or with require_complete when a case of the
 * requested level is missing; else 0. */
#include <stdbool.h>

#include "results.h"

void verdict_compute(struct run_results *res, bool full_level, bool require_complete);

#endif
