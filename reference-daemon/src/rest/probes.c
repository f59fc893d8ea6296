/* SPDX-License-Identifier: Apache-2.0 */
/* GET /v1/health (M1, M2) and GET /v1/metadata (M3, M4). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "rest/http_response.h"
#include "rest/request.h"
#include "rest/rest_behaviour.h"

extern char **environ;

json_t *rest_health_body_real(const struct daemon_state *st)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long up = (long long)(now.tv_sec - st->started.tv_sec);
    if (up < 0) up = 0;
    json_t *body = json_pack("{s:s}", "status", "ok");
    if (body) json_object_set_new(body, "uptime_seconds", json_integer(up));
    return body;
}

enum MHD_Result probe_health(struct rest_request *rq, struct MHD_Connection *c)
{
    if (rest_behaviour->health_unavailable(rq->st))
        return rest_reply_error(c, 503, "shutting down");
    return rest_reply_json(c, 200, rest_behaviour->health_body(rq->st));
}

enum MHD_Result probe_metadata(struct rest_request *rq, struct MHD_Connection *c)
{
    json_t *env = json_object();
    const char *prefix = rq->st->cfg->metadata_prefix ? rq->st->cfg->metadata_prefix : "";
    /* Read at request time: the environment as it is now. */
    for (char **e = environ; env && e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        size_t nl = (size_t)(eq - *e);
        char *name = strndup(*e, nl);
        if (!name) continue;
        if (rest_behaviour->metadata_name_allowed(name, prefix)) {
            json_t *v = rest_behaviour->metadata_value(eq + 1);
            if (v) json_object_set_new(env, name, v); /* a name that is not UTF-8 is left out */
        }
        free(name);
    }
    if (!env) return rest_reply_error(c, 500, "out of memory");
    return rest_reply_json(c, 200, json_pack("{s:o}", "env", env));
}
