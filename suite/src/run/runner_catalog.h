/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_RUNNER_CATALOG_H
#define SBX_RUNNER_CATALOG_H
/* The catalog commands of the runner. */
#include "catalog.h"
#include "results.h"

/* --list: one line per selected case. */
void runner_print_list(const struct run_results *res);

/* --explain ID: the case, its clauses and what it catches. Returns the exit
 * status (RUNNER_USAGE for an unknown ID). */
int runner_explain(const struct catalog *cat, const char *id);

#endif
