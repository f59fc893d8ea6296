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

#define FILES_PREFIX "/v1/files"
#define FILES_PREFIX_LEN (sizeof(FILES_PREFIX) - 1)

static bool names_files(const char *url)
{
    return strncmp(url, FILES_PREFIX, FILES_PREFIX_LEN) == 0 &&
           (url[FILES_PREFIX_LEN] == '/' || url[FILES_PREFIX_LEN] == '\0');
}

/* The methods each route of rest_server.c allows (its 405 answers), NULL
 * for a route the daemon does not serve. */
static const char *allowed_methods(const char *url)
{
    if (names_files(url)) return "GET HEAD PUT DELETE";
    if (strcmp(url, "/v1/health") == 0 || strcmp(url, "/v1/metadata") == 0) return "GET HEAD";
    return NULL;
}

static bool method_allowed(const char *allowed, const char *method)
{
    size_t n = strlen(method);
    for (const char *p = allowed; (p = strstr(p, method)); p += n)
        if ((p == allowed || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

/* Whether the real router answers 405: the method is not among allowed,
 * and for a file route the path decodes (it refuses a bad path first). */
static bool refuses_method(struct rest_request *rq, const char *url, const char *method,
                           const char *allowed)
{
    if (method_allowed(allowed, method)) return false;
    if (rq->path || !names_files(url)) return true;
    char *path = NULL;
    const char *why = "";
    const char *raw = url[FILES_PREFIX_LEN] ? url + FILES_PREFIX_LEN + 1 : "";
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
    const char *allowed = allowed_methods(url);
    if (!allowed && fault_active(FAULT_UNKNOWN_ROUTE_200))
        return answered(rq, rest_reply_json(c, 200, json_object()));
    if (allowed && fault_active(FAULT_NO_ALLOW_405) && refuses_method(rq, url, method, allowed))
        return answered(
            rq, rest_queue(c, 405, rest_behaviour->error_response(405, "method not allowed")));
    return rest_real.route(rq, c, url, method, upload_data, upload_size, must_wait);
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
