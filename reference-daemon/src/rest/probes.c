/* GET /v1/health (M1, M2) and GET /v1/metadata (M3, M4). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "fault.h"
#include "rest/http_response.h"
#include "rest/json_text.h"
#include "rest/metadata_filter.h"
#include "rest/request.h"

extern char **environ;

enum MHD_Result probe_health(struct rest_request *rq, struct MHD_Connection *c)
{
    if (atomic_load(&rq->st->shutting_down) && !fault_active(FAULT_HEALTH_NEVER_503))
        return rest_reply_error(c, 503, "shutting down");
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long up = (long long)(now.tv_sec - rq->st->started.tv_sec);
    if (up < 0 || fault_active(FAULT_HEALTH_UPTIME_FROZEN)) up = 0;
    if (fault_active(FAULT_HEALTH_UPTIME_MS))
        up = up * 1000 + (now.tv_nsec - rq->st->started.tv_nsec) / 1000000;
    if (fault_active(FAULT_HEALTH_UPTIME_EPOCH)) up = (long long)time(NULL);
    json_t *body =
        json_pack("{s:s}", "status", fault_active(FAULT_HEALTH_STATUS_WRONG) ? "healthy" : "ok");
    if (body && !fault_active(FAULT_HEALTH_NO_UPTIME))
        json_object_set_new(body, "uptime_seconds",
                            fault_active(FAULT_VARIANT_UPTIME_FRACTIONAL)
                                ? json_real((double)up + 0.25)
                                : json_integer(up));
    return rest_reply_json(c, 200, body);
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
        if (metadata_name_allowed(name, prefix)) {
            /* metadata-value-cut: the value split off at its next '='. */
            char *cut = fault_active(FAULT_METADATA_VALUE_CUT)
                            ? strndup(eq + 1, strcspn(eq + 1, "="))
                            : NULL;
            json_t *v = json_text(cut ? cut : eq + 1);
            free(cut);
            if (v) json_object_set_new(env, name, v); /* a name that is not UTF-8 is left out */
        }
        free(name);
    }
    if (!env) return rest_reply_error(c, 500, "out of memory");
    if (json_object_size(env) == 0 && fault_active(FAULT_METADATA_NULL_ENV)) {
        json_decref(env);
        env = json_null();
    }
    return rest_reply_json(c, 200, json_pack("{s:o}", "env", env));
}
