/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_REFLECTION_H
#define SBX_GRPC_REFLECTION_H
/* gRPC server reflection (grpc.reflection.v1 and v1alpha
 * ServerReflection/ServerReflectionInfo): list_services,
 * file_containing_symbol, file_by_filename, file_containing_extension
 * (answered NOT_FOUND) and all_extension_numbers_of_type (empty), answered
 * from a serialized google.protobuf.FileDescriptorSet. */
#include <stddef.h>
#include <stdint.h>

#include "sbx_grpc_server.h"

/* Registers both reflection services on s. The descriptor set is parsed
 * once and must stay valid for the server's lifetime (the embedded
 * sbx_process_descriptor_set does). Services listed are those defined in
 * the set, plus the reflection services themselves. Returns 0, or -1 if
 * the set cannot be parsed or registration failed. */
int sbx_grpc_reflection_register(struct sbx_grpc_server *s, const uint8_t *descriptor_set,
                                 size_t len);

#endif
