/* SPDX-License-Identifier: Apache-2.0 */
/* gRPC status code names and the HTTP-to-gRPC status mapping. */
#include <string.h>

#include "sbx_grpc_status.h"

static const char *const names[] = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

#define N_NAMES ((int)(sizeof names / sizeof names[0]))

const char *sbx_grpc_code_name(int code)
{
    if (code < 0 || code >= N_NAMES) return "UNKNOWN_CODE";
    return names[code];
}

int sbx_grpc_code_from_name(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < N_NAMES; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int sbx_grpc_code_from_http(int http_status)
{
    switch (http_status) {
    case 400:
        return SBX_GRPC_INTERNAL;
    case 401:
        return SBX_GRPC_UNAUTHENTICATED;
    case 403:
        return SBX_GRPC_PERMISSION_DENIED;
    case 404:
        return SBX_GRPC_UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
        return SBX_GRPC_UNAVAILABLE;
    default:
        return SBX_GRPC_UNKNOWN;
    }
}
