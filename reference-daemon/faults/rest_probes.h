/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_PROBES_H
#define SBX_FAULTS_REST_PROBES_H
/* The health and metadata faults and variants of the fault build
 * (health-*, metadata-*, ignore-prefix-flag, variant-uptime-fractional):
 * wrappers of rest/rest_behaviour.h's probe decisions. */
#include "rest/rest_behaviour.h"

bool fault_health_unavailable(const struct daemon_state *st);
json_t *fault_health_body(const struct daemon_state *st);
bool fault_metadata_name_allowed(const char *name, const char *prefix);
json_t *fault_metadata_value(const char *value);
/* Completes a metadata body (fault_complete_json's caller). */
void fault_metadata_body(json_t *body);

#endif
