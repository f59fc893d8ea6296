/* SPDX-License-Identifier: Apache-2.0 */
/* The metadata filter (see metadata_filter.h). */
#include "rest/metadata_filter.h"

#include <string.h>

/* The five markers the API description names first, then the daemon's own. */
const char *const metadata_markers[METADATA_MARKER_COUNT] = {
    "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "KEY", "PASSWD",
    "CRED",  "AUTH",   "BEARER",   "PRIVATE",    "CERT"};

/* needle is upper case. */
static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *h = hay; *h; h++) {
        size_t i = 0;
        for (; i < n && h[i]; i++) {
            char c = h[i];
            if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
            if (c != needle[i]) break;
        }
        if (i == n) return true;
    }
    return false;
}

bool metadata_prefix_matches(const char *name, const char *prefix)
{
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

bool metadata_name_secret(const char *name)
{
    for (size_t i = 0; i < METADATA_MARKER_COUNT; i++)
        if (contains_ci(name, metadata_markers[i])) return true;
    return false;
}

bool metadata_name_allowed(const char *name, const char *prefix)
{
    return metadata_prefix_matches(name, prefix) && !metadata_name_secret(name);
}
