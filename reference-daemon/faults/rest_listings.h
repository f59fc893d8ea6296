/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_LISTINGS_H
#define SBX_FAULTS_REST_LISTINGS_H
/* The listing faults and variants of the fault build (list-bad-time,
 * list-no-mode-pattern, list-symlink-type, list-null-entries,
 * variant-time-offset, variant-extra-fields on entries): wrappers of
 * rest/rest_behaviour.h's listing decisions. */
#include "rest/rest_behaviour.h"

void fault_format_time(const struct timespec *ts, char *out, size_t cap);
json_t *fault_entry_json(const struct fs_entry *e);
/* Completes a listing body (fault_complete_json's caller). */
void fault_listing_body(json_t *body);

#endif
