/* SPDX-License-Identifier: Apache-2.0 */
/* REST responses (see http_response.h). */
#include "rest/http_response.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rest/deferred_reply.h"
#include "rest/json_text.h"
#include "rest/rest_behaviour.h"

const char *rest_error_code(unsigned status)
{
    return rest_behaviour->error_code(status);
}

const char *rest_json_type(void)
{
    return rest_behaviour->json_media_type();
}

enum MHD_Result rest_queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *resp)
{
    if (!resp) return MHD_NO;
    enum MHD_Result r;
    if (deferred_reply_take(status, resp, &r)) return r; /* on a worker thread */
    r = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return r;
}

struct MHD_Response *rest_error_response_real(unsigned status, const char *message)
{
    json_t *body =
        json_pack("{s:s, s:o}", "code", rest_error_code(status), "message", json_text(message));
    rest_behaviour->complete_json(body);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (!text) return NULL;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(text);
        return NULL;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rest_json_type());
    return r;
}

enum MHD_Result rest_reply_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* Error messages may quote request bytes; jansson needs valid UTF-8. */
    json_t *probe = json_stringn(msg, strlen(msg));
    if (!probe) snprintf(msg, sizeof(msg), "%s", "request refused");
    json_decref(probe);
    return rest_queue(c, status, rest_behaviour->error_response(status, msg));
}

enum MHD_Result rest_reply_error_close(struct MHD_Connection *c, unsigned status, const char *msg)
{
    struct MHD_Response *r = rest_behaviour->error_response(status, msg);
    if (r) MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    return rest_queue(c, status, r);
}

enum MHD_Result rest_reply_405(struct MHD_Connection *c, const char *allow)
{
    struct MHD_Response *r = rest_behaviour->error_response(405, "method not allowed");
    if (r) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    return rest_queue(c, 405, r);
}

enum MHD_Result rest_reply_json(struct MHD_Connection *c, unsigned status, json_t *body)
{
    rest_behaviour->complete_json(body);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (!text) return rest_reply_error(c, 500, "cannot encode the response");
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rest_json_type());
    return rest_queue(c, status, r);
}

enum MHD_Result rest_reply_empty(struct MHD_Connection *c, unsigned status)
{
    return rest_queue(c, status,
                      MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT));
}
