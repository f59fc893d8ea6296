/* SPDX-License-Identifier: Apache-2.0 */
/* The REST faults' per-request state (see rest_request_state.h). */
#include "rest_request_state.h"

#include <stdlib.h>

struct fault_request *fault_request_of(struct rest_request *rq)
{
    if (!rq->extension) rq->extension = calloc(1, sizeof(struct fault_request));
    return rq->extension;
}

void fault_request_free(struct rest_request *rq)
{
    struct fault_request *fr = rq->extension;
    if (fr) free(fr->head_body);
    free(fr);
    rq->extension = NULL;
}
