/* SPDX-License-Identifier: Apache-2.0 */
/* The listing faults and variants of the fault build (see
 * rest_listings.h). Each acts while its fault is on and otherwise calls
 * rest_real. */
#include "rest_listings.h"

#include <stdio.h>

#include "fault.h"

void fault_format_time(const struct timespec *ts, char *out, size_t cap)
{
    /* list-bad-time: Unix seconds. */
    if (fault_active(FAULT_LIST_BAD_TIME)) {
        snprintf(out, cap, "%lld", (long long)ts->tv_sec);
        return;
    }
    /* variant-time-offset: RFC 3339 allows any offset and fractional
     * seconds. */
    if (fault_active(FAULT_VARIANT_TIME_OFFSET)) {
        struct tm tm;
        time_t t = ts->tv_sec + 2 * 3600;
        gmtime_r(&t, &tm);
        size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(out + n, cap - n, ".%09ld+02:00", (long)ts->tv_nsec);
        return;
    }
    rest_real.format_time(ts, out, cap);
}

json_t *fault_entry_json(const struct fs_entry *e)
{
    json_t *entry = rest_real.entry_json(e);
    if (!entry) return NULL;
    /* list-no-mode-pattern: the mode as a decimal number string. */
    if (fault_active(FAULT_LIST_NO_MODE_PATTERN)) {
        char mode[16];
        snprintf(mode, sizeof(mode), "%u", (unsigned)(e->mode & 0777));
        json_object_set_new(entry, "mode", json_string(mode));
    }
    /* list-symlink-type: a symlink listed as "symlink". */
    if (e->is_link && fault_active(FAULT_LIST_SYMLINK_TYPE))
        json_object_set_new(entry, "type", json_string("symlink"));
    /* variant-extra-fields: fields the contract does not name are legal. */
    if (fault_active(FAULT_VARIANT_EXTRA_FIELDS))
        json_object_set_new(entry, "x_inode_kind", json_string(e->is_link ? "link" : "plain"));
    return entry;
}

/* list-null-entries: an empty directory lists "entries": null. */
void fault_listing_body(json_t *body)
{
    json_t *entries = json_object_get(body, "entries");
    if (fault_active(FAULT_LIST_NULL_ENTRIES) && json_is_string(json_object_get(body, "path")) &&
        json_is_array(entries) && json_array_size(entries) == 0)
        json_object_set_new(body, "entries", json_null());
}
