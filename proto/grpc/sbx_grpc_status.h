/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_STATUS_H
#define SBX_GRPC_STATUS_H
/* gRPC status codes (grpc/doc/statuscodes.md) and their canonical names. */

enum sbx_grpc_code {
    SBX_GRPC_OK = 0,
    SBX_GRPC_CANCELLED = 1,
    SBX_GRPC_UNKNOWN = 2,
    SBX_GRPC_INVALID_ARGUMENT = 3,
    SBX_GRPC_DEADLINE_EXCEEDED = 4,
    SBX_GRPC_NOT_FOUND = 5,
    SBX_GRPC_ALREADY_EXISTS = 6,
    SBX_GRPC_PERMISSION_DENIED = 7,
    SBX_GRPC_RESOURCE_EXHAUSTED = 8,
    SBX_GRPC_FAILED_PRECONDITION = 9,
    SBX_GRPC_ABORTED = 10,
    SBX_GRPC_OUT_OF_RANGE = 11,
    SBX_GRPC_UNIMPLEMENTED = 12,
    SBX_GRPC_INTERNAL = 13,
    SBX_GRPC_UNAVAILABLE = 14,
    SBX_GRPC_DATA_LOSS = 15,
    SBX_GRPC_UNAUTHENTICATED = 16,
};

/* "OK", "CANCELLED", ... "UNAUTHENTICATED"; "UNKNOWN_CODE" for anything else. */
const char *sbx_grpc_code_name(int code);

/* Inverse of sbx_grpc_code_name (exact, upper case); -1 if not a code name. */
int sbx_grpc_code_from_name(const char *name);

/* The status a gRPC client derives from a non-200 HTTP :status
 * (grpc/doc/http-grpc-status-mapping.md). */
int sbx_grpc_code_from_http(int http_status);

#endif
