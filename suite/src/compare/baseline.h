/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BASELINE_H
#define SBX_BASELINE_H
/* Known deviations (--baseline FILE): a YAML list of case IDs with a reason
 * and a link, either at the top level or under `expected_failures:`:
 *
 *   expected_failures:
 *     - id: P6-001
 *       reason: "command-not-found reported as exit code 127"
 *       link: https://example.org/issues/12
 */
#include <stddef.h>

struct baseline_entry {
    char *id, *reason, *link;
};

struct baseline {
    struct baseline_entry *entries;
    size_t count;
};

/* 0, or -1 with a message naming the file and line in err. */
int baseline_load(const char *path, struct baseline *b, char *err, size_t err_len);
const struct baseline_entry *baseline_find(const struct baseline *b, const char *id);
void baseline_free(struct baseline *b);

#endif
