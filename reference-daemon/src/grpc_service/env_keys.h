/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVICE_ENV_KEYS_H
#define SBX_GRPC_SERVICE_ENV_KEYS_H
/* Validation of env_vars names in a serialized ExecuteRequest or
 * StartRequest. It reads the wire bytes, not the decoded message, because
 * protobuf-c hands strings over NUL-terminated: a NUL inside a name would
 * silently cut it short. */
#include <stddef.h>
#include <stdint.h>

/* Returns SBX_GRPC_OK when every env_vars name of the request (field 1,
 * ProcessConfig, field 2) is non-empty and holds neither '=' nor NUL;
 * otherwise SBX_GRPC_INVALID_ARGUMENT with the reason in msg. Bytes that do
 * not parse are left to the decoder and answer OK. */
int env_keys_check(const uint8_t *req, size_t len, char *msg, size_t msglen);

#endif
