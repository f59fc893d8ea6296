/* SPDX-License-Identifier: Apache-2.0 */
/* The health and metadata faults and variants of the fault build
 * (rest_probes.h). Each acts while its fault is on and otherwise calls
 * rest_real. */
#include "rest_probes.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fault.h"
#include "rest/json_text.h"
#include "rest/metadata_filter.h"

/* health-never-503: health stays 200 during the shutdown. */
bool fault_health_unavailable(const struct daemon_state *st)
{
    return !fault_active(FAULT_HEALTH_NEVER_503) && rest_real.health_unavailable(st);
}

/* health-status-wrong, health-no-uptime, health-uptime-frozen,
 * health-uptime-ms, health-uptime-epoch, variant-uptime-fractional. */
json_t *fault_health_body(const struct daemon_state *st)
{
    if (!fault_active(FAULT_HEALTH_STATUS_WRONG) && !fault_active(FAULT_HEALTH_NO_UPTIME) &&
        !fault_active(FAULT_HEALTH_UPTIME_FROZEN) && !fault_active(FAULT_HEALTH_UPTIME_MS) &&
        !fault_active(FAULT_HEALTH_UPTIME_EPOCH) && !fault_active(FAULT_VARIANT_UPTIME_FRACTIONAL))
        return rest_real.health_body(st);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long up = (long long)(now.tv_sec - st->started.tv_sec);
    if (up < 0 || fault_active(FAULT_HEALTH_UPTIME_FROZEN)) up = 0;
    if (fault_active(FAULT_HEALTH_UPTIME_MS))
        up = up * 1000 + (now.tv_nsec - st->started.tv_nsec) / 1000000;
    if (fault_active(FAULT_HEALTH_UPTIME_EPOCH)) up = (long long)time(NULL);
    json_t *body =
        json_pack("{s:s}", "status", fault_active(FAULT_HEALTH_STATUS_WRONG) ? "healthy" : "ok");
    if (body && !fault_active(FAULT_HEALTH_NO_UPTIME))
        json_object_set_new(body, "uptime_seconds",
                            fault_active(FAULT_VARIANT_UPTIME_FRACTIONAL)
                                ? json_real((double)up + 0.25)
                                : json_integer(up));
    return body;
}

/* metadata-case-sensitive, metadata-short-markers: the markers matched in
 * upper case only, or only the API description's five. */
static bool names_secret(const char *name)
{
    size_t count = fault_active(FAULT_METADATA_SHORT_MARKERS) ? METADATA_DESCRIBED_MARKERS
                                                              : METADATA_MARKER_COUNT;
    bool case_sensitive = fault_active(FAULT_METADATA_CASE_SENSITIVE);
    for (size_t i = 0; i < count; i++)
        if (case_sensitive ? strstr(name, metadata_markers[i]) != NULL
                           : strcasestr(name, metadata_markers[i]) != NULL)
            return true;
    return false;
}

/* ignore-prefix-flag, metadata-prefix-nocase, metadata-prefix-anywhere,
 * metadata-no-prefix: how the prefix is matched. */
static bool prefix_matches(const char *name, const char *prefix)
{
    if (fault_active(FAULT_IGNORE_PREFIX_FLAG)) prefix = "SANDBOX_";
    if (fault_active(FAULT_METADATA_PREFIX_NOCASE))
        return strncasecmp(name, prefix, strlen(prefix)) == 0;
    if (fault_active(FAULT_METADATA_PREFIX_ANYWHERE)) return strstr(name, prefix) != NULL;
    if (fault_active(FAULT_METADATA_NO_PREFIX)) return true;
    return metadata_prefix_matches(name, prefix);
}

/* metadata-no-markers: names with credential markers are served. */
bool fault_metadata_name_allowed(const char *name, const char *prefix)
{
    if (!prefix_matches(name, prefix)) return false;
    return fault_active(FAULT_METADATA_NO_MARKERS) || !names_secret(name);
}

/* metadata-value-cut: the value split off at its next '='. */
json_t *fault_metadata_value(const char *value)
{
    if (!fault_active(FAULT_METADATA_VALUE_CUT)) return rest_real.metadata_value(value);
    char *cut = strndup(value, strcspn(value, "="));
    json_t *v = json_text(cut ? cut : value);
    free(cut);
    return v;
}

/* metadata-null-env: "env": null when nothing is served. */
void fault_metadata_body(json_t *body)
{
    json_t *env = json_object_get(body, "env");
    if (fault_active(FAULT_METADATA_NULL_ENV) && json_is_object(env) && json_object_size(env) == 0)
        json_object_set_new(body, "env", json_null());
}
