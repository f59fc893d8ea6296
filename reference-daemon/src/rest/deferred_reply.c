/* SPDX-License-Identifier: Apache-2.0 */
/* Responses held for the event-loop thread (see deferred_reply.h). */
#include "rest/deferred_reply.h"

#include <stddef.h>

static _Thread_local struct deferred_reply *holding;

void deferred_reply_hold(struct deferred_reply *d)
{
    holding = d;
}

bool deferred_reply_take(unsigned status, struct MHD_Response *response, enum MHD_Result *ret)
{
    struct deferred_reply *d = holding;
    if (!d) return false;
    if (d->response) {
        MHD_destroy_response(response);
        *ret = MHD_NO;
        return true;
    }
    d->response = response;
    d->status = status;
    *ret = MHD_YES;
    return true;
}

enum MHD_Result deferred_reply_deliver(struct deferred_reply *d, struct MHD_Connection *c)
{
    if (!d->response) return MHD_YES;
    enum MHD_Result r = MHD_queue_response(c, d->status, d->response);
    MHD_destroy_response(d->response);
    d->response = NULL;
    return r;
}

void deferred_reply_drop(struct deferred_reply *d)
{
    if (d->response) MHD_destroy_response(d->response);
    d->response = NULL;
}
