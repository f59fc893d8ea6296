/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_REQUEST_STATE_H
#define SBX_FAULTS_REST_REQUEST_STATE_H
/* What the REST faults keep for one request, in rq->extension (owned by
 * the fault build's rest_behaviour, freed by its end_request). */
#include <stdbool.h>

#include "rest/request.h"

struct head_body;

struct fault_request {
    bool serialized;              /* holds serialize-requests' lock */
    struct head_body *head_body;  /* head-sends-body: the bytes to send */
    bool chunked_first_read_only; /* put-chunked-truncate: store the first read only */
};

/* rq's state, created on first use (NULL when out of memory). */
struct fault_request *fault_request_of(struct rest_request *rq);

/* Frees rq's state, if any. */
void fault_request_free(struct rest_request *rq);

#endif
