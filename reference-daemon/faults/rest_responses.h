/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_RESPONSES_H
#define SBX_FAULTS_REST_RESPONSES_H
/* The response faults and variants of the fault build (error-wrong-code,
 * error-plain, unresolvable-500, variant-405-code,
 * variant-json-charset, variant-extra-fields): wrappers of
 * rest/rest_behaviour.h's response decisions. */
#include "rest/rest_behaviour.h"

const char *fault_error_code(unsigned status);
const char *fault_json_media_type(void);
void fault_complete_json(json_t *body);
struct MHD_Response *fault_error_response(unsigned status, const char *message);
enum MHD_Result fault_reply_fs_error(struct MHD_Connection *c, int code, bool for_write);

#endif
