/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CATALOG_H
#define SBX_CATALOG_H
/* The case catalog: every SBX_CASE registered in the "sbx_cases" section,
 * sorted by ID and checked once at start-up. */
#include <stdbool.h>
#include <stddef.h>

#include "case_api.h"

struct catalog {
    const struct case_def **cases; /* sorted by ID */
    size_t count;
};

/* Collects and validates the registered cases. On a broken catalog (missing
 * fields, duplicate IDs, unknown clause IDs or tags) writes every problem to
 * err and returns -1. */
int catalog_load(struct catalog *cat, char *err, size_t err_len);
void catalog_free(struct catalog *cat);

const struct case_def *catalog_find(const struct catalog *cat, const char *id);

/* "30" when the case has no timeout of its own. */
unsigned case_timeout_s(const struct case_def *def);

/* Readable names. */
const char *case_level_name(enum case_level level); /* "MUST" / "SHOULD" */
/* Writes the needs as "launch,procfs" (or "-" when none) into buf. */
const char *case_needs_text(unsigned needs, char *buf, size_t len);
/* Writes where the case is registered, "cases/process/exec_cases.c:42"
 * ("-" when unknown), into buf. */
const char *case_source_text(const struct case_def *def, char *buf, size_t len);

/* The tags the catalog accepts. */
extern const char *const catalog_known_tags[];

#endif
