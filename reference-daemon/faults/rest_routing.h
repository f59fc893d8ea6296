/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_ROUTING_H
#define SBX_FAULTS_REST_ROUTING_H
/* The routing faults of the fault build (sweep-rest-500, sweep-put-500,
 * unknown-route-200, no-allow-405, serialize-requests): wrappers of
 * rest/rest_behaviour.h's router and request hooks. */
#include "rest/rest_behaviour.h"

/* The router: answers the requests these faults break, else rest_route. */
enum MHD_Result fault_route(struct rest_request *rq, struct MHD_Connection *c, const char *url,
                            const char *method, const char *upload_data, size_t *upload_size,
                            bool *must_wait);
bool fault_request_begins(struct rest_request *rq, struct MHD_Connection *c);

/* serialize-requests: releases the lock rq holds, if it does. */
void fault_request_unserialize(struct rest_request *rq);
/* serialize-requests: resumes every waiting request (the server stops). */
void fault_server_stops(void);

#endif
