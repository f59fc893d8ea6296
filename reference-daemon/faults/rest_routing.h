/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_ROUTING_H
#define SBX_FAULTS_REST_ROUTING_H
/* The routing faults of the fault build (sweep-rest-500, sweep-put-500,
 * unknown-route-200, no-allow-405, serialize-requests): wrappers of
 * rest/rest_behaviour.h's router, request service and server stop. */
#include "rest/rest_behaviour.h"

/* The router: answers the requests these faults break, else rest_route. */
enum MHD_Result fault_route(struct rest_request *rq, struct MHD_Connection *c, const char *url,
                            const char *method, const char *upload_data, size_t *upload_size,
                            bool *must_wait);
/* serialize-requests: a request's first call waits for its turn. */
enum MHD_Result fault_serve_request(struct rest_server *srv, struct MHD_Connection *c,
                                    const char *url, const char *method, const char *upload_data,
                                    size_t *upload_size, void **con_cls);

/* serialize-requests: releases the lock rq holds, if it does. */
void fault_request_unserialize(struct rest_request *rq);
/* serialize-requests: c ended without a request made for it; the turn it
 * was handed, if any, goes on. */
void fault_request_abandoned(struct MHD_Connection *c);
/* serialize-requests: resumes every waiting request, then stops the
 * server. */
void fault_close_server(struct rest_server *srv);

#endif
