/* The metadata filter (see metadata_filter.h). */
#include "rest/metadata_filter.h"

#include <string.h>
#include <strings.h>

#include "fault.h"

/* The seed's five markers first: the metadata-short-markers fault keeps only
 * those. */
static const char *const markers[] = {"TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "KEY", "PASSWD",
                                      "CRED",  "AUTH",   "BEARER",   "PRIVATE",    "CERT"};
#define MUST_MARKERS 5

static bool contains_ci(const char *hay, const char *needle, bool case_sensitive)
{
    size_t n = strlen(needle);
    for (const char *h = hay; *h; h++) {
        size_t i = 0;
        for (; i < n && h[i]; i++) {
            char c = h[i];
            if (!case_sensitive && c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
            if (c != needle[i]) break;
        }
        if (i == n) return true;
    }
    return false;
}

bool metadata_name_allowed(const char *name, const char *prefix)
{
    if (fault_active(FAULT_IGNORE_PREFIX_FLAG)) prefix = "SANDBOX_";
    if (fault_active(FAULT_METADATA_PREFIX_NOCASE)) {
        if (strncasecmp(name, prefix, strlen(prefix)) != 0) return false;
    } else if (fault_active(FAULT_METADATA_PREFIX_ANYWHERE)) {
        if (!strstr(name, prefix)) return false;
    } else if (!fault_active(FAULT_METADATA_NO_PREFIX) &&
               strncmp(name, prefix, strlen(prefix)) != 0) {
        return false;
    }
    if (fault_active(FAULT_METADATA_NO_MARKERS)) return true;
    size_t count = fault_active(FAULT_METADATA_SHORT_MARKERS)
                       ? MUST_MARKERS
                       : sizeof(markers) / sizeof(markers[0]);
    bool case_sensitive = fault_active(FAULT_METADATA_CASE_SENSITIVE);
    for (size_t i = 0; i < count; i++)
        if (contains_ci(name, markers[i], case_sensitive)) return false;
    return true;
}
