/* SPDX-License-Identifier: Apache-2.0 */
/* Checks of gRPC request/response header values. */
#include <strings.h>

#include "sbx_grpc_wire.h"

bool sbx_grpc_content_type_ok(const char *value, size_t len)
{
    static const char base[] = "application/grpc";
    const size_t blen = sizeof base - 1;
    if (!value || len < blen || strncasecmp(value, base, blen) != 0) return false;
    return len == blen || value[blen] == '+' || value[blen] == ';';
}

bool sbx_grpc_header_name_ok(const char *name, size_t len)
{
    if (!name || len == 0) return false;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
            return false;
    }
    return true;
}

int sbx_grpc_status_parse(const char *s, size_t len)
{
    if (!s || len == 0 || len > 3) return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}
