/* SPDX-License-Identifier: Apache-2.0 */
/* grpc-timeout: "TimeoutValue TimeoutUnit", at most 8 digits. */
#include <stdio.h>

#include "sbx_grpc_wire.h"

#define MAX_VALUE 99999999ULL

static uint64_t unit_ns(char unit)
{
    switch (unit) {
    case 'H':
        return 3600ULL * 1000000000ULL;
    case 'M':
        return 60ULL * 1000000000ULL;
    case 'S':
        return 1000000000ULL;
    case 'm':
        return 1000000ULL;
    case 'u':
        return 1000ULL;
    case 'n':
        return 1ULL;
    default:
        return 0;
    }
}

int sbx_grpc_timeout_parse(const char *s, size_t len, uint64_t *ns)
{
    if (!s || len < 2 || len > 9) return -1;
    uint64_t mult = unit_ns(s[len - 1]);
    if (!mult) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *ns = v > UINT64_MAX / mult ? UINT64_MAX : v * mult;
    return 0;
}

int sbx_grpc_timeout_format(uint64_t ns, char out[SBX_GRPC_TIMEOUT_BUFSZ])
{
    static const char units[] = {'n', 'u', 'm', 'S', 'M', 'H'};
    for (size_t i = 0; i < sizeof units; i++) {
        uint64_t mult = unit_ns(units[i]);
        uint64_t v = ns / mult + (ns % mult ? 1 : 0);
        if (v <= MAX_VALUE)
            return snprintf(out, SBX_GRPC_TIMEOUT_BUFSZ, "%llu%c", (unsigned long long)v, units[i]);
    }
    return snprintf(out, SBX_GRPC_TIMEOUT_BUFSZ, "%lluH", MAX_VALUE);
}
