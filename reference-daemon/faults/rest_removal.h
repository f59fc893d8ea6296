/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_REMOVAL_H
#define SBX_FAULTS_REST_REMOVAL_H
/* The DELETE faults and variants of the fault build (delete-*,
 * absolute-root-host and empty-path-cwd for the root, empty-params-invalid
 * for recursive, variant-symlink-delete-link): wrappers of
 * rest/rest_behaviour.h's DELETE handler and removal decisions. */
#include "rest/rest_behaviour.h"

int fault_delete_recursive(const char *arg, bool bad, bool *recursive);
int fault_open_root_to_empty(const struct rest_request *rq);
enum MHD_Result fault_files_delete(struct rest_request *rq, struct MHD_Connection *c);
bool fault_escaping_link_refused(void);

#endif
