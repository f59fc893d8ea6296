/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_DESCRIPTOR_INDEX_H
#define SBX_GRPC_DESCRIPTOR_INDEX_H
/* An index over a serialized google.protobuf.FileDescriptorSet: files by
 * name, fully-qualified symbols (messages, enums, services, methods) by
 * name, and the services defined. Parsed with a minimal wire-format reader
 * (only names are extracted; the files are served as the original bytes). */
#include <stddef.h>
#include <stdint.h>

struct desc_file {
    char *name;
    const uint8_t *bytes; /* FileDescriptorProto, inside the set */
    size_t len;
    char **deps;
    size_t n_deps;
    char **symbols;
    size_t n_symbols;
};

struct desc_index {
    struct desc_file *files;
    size_t n_files;
    char **services; /* fully-qualified */
    size_t n_services;
};

/* Returns 0, or -1 if the bytes are not a valid FileDescriptorSet. */
int sbx_grpc_desc_index_parse(struct desc_index *ix, const uint8_t *set, size_t len);
void sbx_grpc_desc_index_free(struct desc_index *ix);

const struct desc_file *sbx_grpc_desc_index_file(const struct desc_index *ix, const char *name);
const struct desc_file *sbx_grpc_desc_index_symbol(const struct desc_index *ix, const char *symbol);

/* The file and its transitive dependencies, the file first, each once.
 * Writes up to cap entries into out; returns the count. */
size_t sbx_grpc_desc_index_closure(const struct desc_index *ix, const struct desc_file *f,
                                   const struct desc_file **out, size_t cap);

#endif
