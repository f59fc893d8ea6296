/* SPDX-License-Identifier: Apache-2.0 */
/* The routing faults of the fault build (see rest_routing.h). Each acts
 * while its fault is on and otherwise calls rest_real. */
#include "rest_routing.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>

#include "fault.h"
#include "rest/http_response.h"
#include "rest_request_state.h"

/* sweep-rest-500, sweep-put-500: 500 before routing. */
bool fault_answer_first(struct MHD_Connection *c, const char *url, const char *method,
                        enum MHD_Result *ret)
{
    if ((fault_active(FAULT_SWEEP_REST_500) && strcmp(url, "/v1/health") != 0) ||
        (fault_active(FAULT_SWEEP_PUT_500) && strcmp(method, MHD_HTTP_METHOD_PUT) == 0)) {
        *ret = rest_reply_error(c, 500, "internal error");
        return true;
    }
    return rest_real.answer_first(c, url, method, ret);
}

/* unknown-route-200: an unknown route answers 200 {}. */
enum MHD_Result fault_reply_unknown_route(struct MHD_Connection *c)
{
    if (fault_active(FAULT_UNKNOWN_ROUTE_200)) return rest_reply_json(c, 200, json_object());
    return rest_real.reply_unknown_route(c);
}

/* serialize-requests: one request at a time, across connection threads. */
static sem_t serial_lock;
static pthread_once_t serial_once = PTHREAD_ONCE_INIT;
static void serial_init(void)
{
    sem_init(&serial_lock, 0, 1);
}

void fault_request_begins(struct rest_request *rq)
{
    struct fault_request *fr;
    if (fault_active(FAULT_SERIALIZE_REQUESTS) && (fr = fault_request_of(rq))) {
        pthread_once(&serial_once, serial_init);
        while (sem_wait(&serial_lock) != 0 && errno == EINTR)
            ;
        fr->serialized = true;
    }
    rest_real.request_begins(rq);
}

void fault_request_unserialize(struct rest_request *rq)
{
    struct fault_request *fr = rq->extension;
    if (fr && fr->serialized) sem_post(&serial_lock);
    if (fr) fr->serialized = false;
}
