/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROCESS_DESCRIPTOR_H
#define SBX_PROCESS_DESCRIPTOR_H
#include <stddef.h>

/* FileDescriptorSet of process.proto and its imports, built by protoc from
 * the proto3-optional form (what server reflection serves). The file is
 * named process/v1/process.proto, as in the upstream reference. */
extern const unsigned char sbx_process_descriptor_set[];
extern const size_t sbx_process_descriptor_set_len;

#endif
