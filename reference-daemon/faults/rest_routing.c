/* SPDX-License-Identifier: Apache-2.0 */
/* The routing faults of the fault build (see rest_routing.h). Each acts
 * while its fault is on and otherwise calls rest_real. */
#include "rest_routing.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "rest/http_response.h"
#include "rest/request_path.h"
#include "rest_request_state.h"

/* Whether method is in allowed, an Allow header's list ("GET, HEAD"). */
static bool method_allowed(const char *allowed, const char *method)
{
    size_t n = strlen(method);
    for (const char *p = allowed; (p = strstr(p, method)); p += n)
        if ((p == allowed || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0')) return true;
    return false;
}

/* Whether the real router answers 405: the method is not among allowed,
 * and for a file route the path decodes (it refuses a bad path first). */
static bool refuses_method(struct rest_request *rq, const char *url, const char *method,
                           const char *allowed)
{
    if (method_allowed(allowed, method)) return false;
    const char *raw = rest_files_raw_path(url);
    if (rq->path || !raw) return true;
    char *path = NULL;
    const char *why = "";
    bool decodes = rest_decode_path(raw, &path, &why) == 0;
    free(path);
    return decodes;
}

static enum MHD_Result answered(struct rest_request *rq, enum MHD_Result r)
{
    rq->started = true;
    rq->responded = true;
    return r;
}

/* sweep-rest-500, sweep-put-500: 500 before routing; unknown-route-200:
 * an unknown route answers 200 {}; no-allow-405: a 405 without Allow. */
enum MHD_Result fault_route(struct rest_request *rq, struct MHD_Connection *c, const char *url,
                            const char *method, const char *upload_data, size_t *upload_size,
                            bool *must_wait)
{
    if ((fault_active(FAULT_SWEEP_REST_500) && strcmp(url, "/v1/health") != 0) ||
        (fault_active(FAULT_SWEEP_PUT_500) && strcmp(method, MHD_HTTP_METHOD_PUT) == 0))
        return answered(rq, rest_reply_error(c, 500, "internal error"));
    const char *allowed = rest_route_allow(url);
    if (!allowed && fault_active(FAULT_UNKNOWN_ROUTE_200))
        return answered(rq, rest_reply_json(c, 200, json_object()));
    if (allowed && fault_active(FAULT_NO_ALLOW_405) && refuses_method(rq, url, method, allowed))
        return answered(
            rq, rest_queue(c, 405, rest_behaviour->error_response(405, "method not allowed")));
    return rest_real.route(rq, c, url, method, upload_data, upload_size, must_wait);
}

/* serialize-requests: one request at a time, across all connections. A
 * request that finds another one running waits, before the server made
 * anything of it, with its connection suspended (a thread of the server's
 * loop must not wait: the running request may need it to finish); it is
 * resumed, in arrival order, when the running one is done, and the server
 * then hears its headers again. */
struct serial_waiter {
    struct serial_waiter *next;
    struct MHD_Connection *c;
};
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;
static bool serial_busy, serial_stopping;
static struct serial_waiter *serial_head, *serial_tail;
/* The connection the turn was handed to, until its headers come again. */
static struct MHD_Connection *serial_granted;

enum serial_turn { TURN_HELD, TURN_NONE, TURN_WAIT };

static enum serial_turn serial_take_turn(struct MHD_Connection *c)
{
    enum serial_turn t = TURN_HELD;
    pthread_mutex_lock(&serial_lock);
    if (serial_stopping) {
        t = TURN_NONE;
    } else if (serial_granted == c) {
        serial_granted = NULL;
    } else if (!serial_busy) {
        serial_busy = true;
    } else {
        struct serial_waiter *w = calloc(1, sizeof(*w));
        t = w ? TURN_WAIT : TURN_NONE;
        if (w) {
            w->c = c;
            if (serial_tail)
                serial_tail->next = w;
            else
                serial_head = w;
            serial_tail = w;
            MHD_suspend_connection(c);
        }
    }
    pthread_mutex_unlock(&serial_lock);
    return t;
}

/* Hands the turn to the first waiter (which now holds it), or frees it.
 * Called with serial_lock held. */
static void pass_turn(void)
{
    struct serial_waiter *w = serial_head;
    serial_busy = w != NULL;
    if (!w) return;
    serial_head = w->next;
    if (!serial_head) serial_tail = NULL;
    serial_granted = w->c;
    MHD_resume_connection(w->c);
    free(w);
}

static void serial_release(void)
{
    pthread_mutex_lock(&serial_lock);
    pass_turn();
    pthread_mutex_unlock(&serial_lock);
}

enum MHD_Result fault_serve_request(struct rest_server *srv, struct MHD_Connection *c,
                                    const char *url, const char *method, const char *upload_data,
                                    size_t *upload_size, void **con_cls)
{
    if (*con_cls || !fault_active(FAULT_SERIALIZE_REQUESTS))
        return rest_real.serve_request(srv, c, url, method, upload_data, upload_size, con_cls);
    enum serial_turn t = serial_take_turn(c);
    if (t == TURN_WAIT) return MHD_YES;
    enum MHD_Result r =
        rest_real.serve_request(srv, c, url, method, upload_data, upload_size, con_cls);
    if (t == TURN_HELD) {
        struct fault_request *fr = *con_cls ? fault_request_of(*con_cls) : NULL;
        if (fr)
            fr->serialized = true; /* released when the request ends */
        else
            serial_release();
    }
    return r;
}

void fault_request_unserialize(struct rest_request *rq)
{
    struct fault_request *fr = rq->extension;
    if (!fr || !fr->serialized) return;
    fr->serialized = false;
    serial_release();
}

void fault_request_abandoned(struct MHD_Connection *c)
{
    pthread_mutex_lock(&serial_lock);
    if (serial_granted == c) { /* closed before its headers came again */
        serial_granted = NULL;
        pass_turn();
    }
    pthread_mutex_unlock(&serial_lock);
}

void fault_close_server(struct rest_server *srv)
{
    pthread_mutex_lock(&serial_lock);
    serial_stopping = true;
    while (serial_head)
        pass_turn();
    pthread_mutex_unlock(&serial_lock);
    rest_real.close_server(srv);
}
