/* SPDX-License-Identifier: Apache-2.0 */
/* Single byte-range parsing (see byte_range.h). */
#include "rest/byte_range.h"

#include <string.h>
#include <strings.h>

/* Parses decimal digits at *p; returns 0 and advances, -1 when none or on
 * overflow. */
static int parse_u64(const char **p, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (*s < '0' || *s > '9') return -1;
    while (*s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
        s++;
    }
    *out = v;
    *p = s;
    return 0;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

enum byte_range_result parse_byte_range(const char *header, uint64_t size, uint64_t *start,
                                        uint64_t *len)
{
    if (!header) return RANGE_NONE;
    const char *p = skip_ws(header);
    if (strncasecmp(p, "bytes=", 6) != 0) return RANGE_NONE;
    p = skip_ws(p + 6);
    if (strchr(p, ',')) return RANGE_NONE;
    uint64_t a = 0, b = 0;
    if (*p == '-') {
        p++;
        if (parse_u64(&p, &b) != 0 || *skip_ws(p) != '\0') return RANGE_NONE;
        if (size == 0) return RANGE_NONE;
        if (b == 0) return RANGE_UNSATISFIABLE;
        if (b > size) b = size;
        *start = size - b;
        *len = b;
        return RANGE_OK;
    }
    if (parse_u64(&p, &a) != 0 || *p != '-') return RANGE_NONE;
    p++;
    int open_ended = (*skip_ws(p) == '\0');
    if (!open_ended && (parse_u64(&p, &b) != 0 || *skip_ws(p) != '\0' || b < a)) return RANGE_NONE;
    if (size == 0) return RANGE_NONE;
    if (a >= size) return RANGE_UNSATISFIABLE;
    if (open_ended || b >= size) b = size - 1;
    *start = a;
    *len = b - a + 1;
    return RANGE_OK;
}
