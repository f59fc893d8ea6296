/* SPDX-License-Identifier: Apache-2.0 */
/* The routing faults of the fault build (see rest_routing.h). Each acts
 * while its fault is on and otherwise calls rest_real. */
#include "rest_routing.h"

#include <pthread.h>
#include <stdlib.h>
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

/* serialize-requests: one request at a time, across all connections. A
 * request that finds another one running waits with its connection
 * suspended (a thread of the server's loop must not wait: the running
 * request may need it to finish) and is resumed, in arrival order, when
 * the running one is done. */
struct serial_waiter {
    struct serial_waiter *next;
    struct MHD_Connection *c;
    struct fault_request *fr;
};
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;
static bool serial_busy, serial_stopping;
static struct serial_waiter *serial_head, *serial_tail;

bool fault_request_begins(struct rest_request *rq, struct MHD_Connection *c)
{
    struct fault_request *fr;
    if (fault_active(FAULT_SERIALIZE_REQUESTS) && (fr = fault_request_of(rq))) {
        pthread_mutex_lock(&serial_lock);
        struct serial_waiter *w = NULL;
        if (!serial_busy || serial_stopping) {
            serial_busy = !serial_stopping;
            fr->serialized = !serial_stopping;
        } else if ((w = calloc(1, sizeof(*w)))) {
            w->c = c;
            w->fr = fr;
            if (serial_tail)
                serial_tail->next = w;
            else
                serial_head = w;
            serial_tail = w;
            MHD_suspend_connection(c);
        }
        pthread_mutex_unlock(&serial_lock);
        if (w) return true;
    }
    return rest_real.request_begins(rq, c);
}

/* Hands the turn to the first waiter (which now holds it), or frees it. */
static void pass_turn(void)
{
    struct serial_waiter *w = serial_head;
    serial_busy = w != NULL;
    if (!w) return;
    serial_head = w->next;
    if (!serial_head) serial_tail = NULL;
    w->fr->serialized = true;
    MHD_resume_connection(w->c);
    free(w);
}

void fault_request_unserialize(struct rest_request *rq)
{
    struct fault_request *fr = rq->extension;
    if (!fr || !fr->serialized) return;
    fr->serialized = false;
    pthread_mutex_lock(&serial_lock);
    pass_turn();
    pthread_mutex_unlock(&serial_lock);
}

void fault_server_stops(void)
{
    pthread_mutex_lock(&serial_lock);
    serial_stopping = true;
    while (serial_head)
        pass_turn();
    pthread_mutex_unlock(&serial_lock);
    rest_real.server_stops();
}
