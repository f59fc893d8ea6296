/* SPDX-License-Identifier: Apache-2.0 */
/* A minimal protobuf wire-format reader over FileDescriptorSet, enough to
 * index file names, dependencies and fully-qualified symbol names. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "descriptor_index.h"

struct field {
    uint32_t number;
    uint32_t wire;
    uint64_t varint;
    const uint8_t *data; /* length-delimited payload */
    size_t len;
};

/* Reads the next field; returns 1, 0 at the end, -1 on malformed input. */
static int next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
    if (*p == end) return 0;
    uint64_t key = 0;
    for (int shift = 0;; shift += 7) {
        if (*p == end || shift > 63) return -1;
        uint8_t b = *(*p)++;
        key |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
    }
    f->number = (uint32_t)(key >> 3);
    f->wire = key & 7;
    switch (f->wire) {
    case 0:
        f->varint = 0;
        for (int shift = 0;; shift += 7) {
            if (*p == end || shift > 63) return -1;
            uint8_t b = *(*p)++;
            f->varint |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80)) break;
        }
        return 1;
    case 1:
        if (end - *p < 8) return -1;
        *p += 8;
        return 1;
    case 5:
        if (end - *p < 4) return -1;
        *p += 4;
        return 1;
    case 2: {
        uint64_t len = 0;
        for (int shift = 0;; shift += 7) {
            if (*p == end || shift > 63) return -1;
            uint8_t b = *(*p)++;
            len |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80)) break;
        }
        if (len > (uint64_t)(end - *p)) return -1;
        f->data = *p;
        f->len = (size_t)len;
        *p += len;
        return 1;
    }
    default:
        return -1;
    }
}

static int push_str(char ***arr, size_t *n, char *s)
{
    if (!s) return -1;
    char **a = realloc(*arr, (*n + 1) * sizeof **arr);
    if (!a) {
        free(s);
        return -1;
    }
    a[(*n)++] = s;
    *arr = a;
    return 0;
}

static char *qualify(const char *scope, const uint8_t *name, size_t nlen)
{
    size_t sl = strlen(scope);
    char *out = malloc(sl + 1 + nlen + 1);
    if (!out) return NULL;
    if (sl) {
        memcpy(out, scope, sl);
        out[sl++] = '.';
    }
    memcpy(out + sl, name, nlen);
    out[sl + nlen] = '\0';
    return out;
}

/* Finds field 1 (name) of a descriptor message. */
static int message_name(const uint8_t *d, size_t len, const uint8_t **name, size_t *nlen)
{
    const uint8_t *p = d, *end = d + len;
    struct field f = {0};
    while (next_field(&p, end, &f) > 0)
        if (f.number == 1 && f.wire == 2) {
            *name = f.data;
            *nlen = f.len;
            return 0;
        }
    return -1;
}

/* DescriptorProto: name 1, nested_type 3, enum_type 4. */
static int index_message(struct desc_file *file, const char *scope, const uint8_t *d, size_t len,
                         int depth)
{
    const uint8_t *name;
    size_t nlen;
    if (depth > 32 || message_name(d, len, &name, &nlen) < 0) return -1;
    char *full = qualify(scope, name, nlen);
    if (!full || push_str(&file->symbols, &file->n_symbols, strdup(full)) < 0) {
        free(full);
        return -1;
    }
    const uint8_t *p = d, *end = d + len;
    struct field f = {0};
    int rv;
    while ((rv = next_field(&p, end, &f)) > 0) {
        if (f.wire != 2) continue;
        bool nested_failed =
            f.number == 3 && index_message(file, full, f.data, f.len, depth + 1) < 0;
        bool enum_failed =
            f.number == 4 && message_name(f.data, f.len, &name, &nlen) == 0 &&
            push_str(&file->symbols, &file->n_symbols, qualify(full, name, nlen)) < 0;
        if (nested_failed || enum_failed) {
            rv = -1;
            break;
        }
    }
    free(full);
    return rv < 0 ? -1 : 0;
}

/* ServiceDescriptorProto: name 1, method 2 (MethodDescriptorProto name 1). */
static int index_service(struct desc_index *ix, struct desc_file *file, const char *pkg,
                         const uint8_t *d, size_t len)
{
    const uint8_t *name;
    size_t nlen;
    if (message_name(d, len, &name, &nlen) < 0) return -1;
    char *full = qualify(pkg, name, nlen);
    if (!full || push_str(&file->symbols, &file->n_symbols, strdup(full)) < 0 ||
        push_str(&ix->services, &ix->n_services, strdup(full)) < 0) {
        free(full);
        return -1;
    }
    const uint8_t *p = d, *end = d + len;
    struct field f = {0};
    int rv;
    while ((rv = next_field(&p, end, &f)) > 0) {
        if (f.number == 2 && f.wire == 2 && message_name(f.data, f.len, &name, &nlen) == 0 &&
            push_str(&file->symbols, &file->n_symbols, qualify(full, name, nlen)) < 0) {
            rv = -1;
            break;
        }
    }
    free(full);
    return rv < 0 ? -1 : 0;
}

/* FileDescriptorProto: name 1, package 2, dependency 3, message_type 4,
 * enum_type 5, service 6. The package is read first (any field order). */
static int index_file(struct desc_index *ix, struct desc_file *file)
{
    const uint8_t *end = file->bytes + file->len;
    struct field f = {0};
    int rv;
    char *pkg = strdup("");
    const uint8_t *p = file->bytes;
    while (pkg && (rv = next_field(&p, end, &f)) > 0) {
        if (f.wire != 2) continue;
        if (f.number == 1) {
            free(file->name);
            file->name = strndup((const char *)f.data, f.len);
        } else if (f.number == 2) {
            free(pkg);
            pkg = strndup((const char *)f.data, f.len);
        }
    }
    if (!pkg || !file->name || rv < 0) {
        free(pkg);
        return -1;
    }
    p = file->bytes;
    while ((rv = next_field(&p, end, &f)) > 0) {
        if (f.wire != 2) continue;
        const uint8_t *name;
        size_t nlen;
        if (f.number == 3)
            rv = push_str(&file->deps, &file->n_deps, strndup((const char *)f.data, f.len));
        else if (f.number == 4)
            rv = index_message(file, pkg, f.data, f.len, 0);
        else if (f.number == 5 && message_name(f.data, f.len, &name, &nlen) == 0)
            rv = push_str(&file->symbols, &file->n_symbols, qualify(pkg, name, nlen));
        else if (f.number == 6)
            rv = index_service(ix, file, pkg, f.data, f.len);
        if (rv < 0) break;
    }
    free(pkg);
    return rv < 0 ? -1 : 0;
}

int sbx_grpc_desc_index_parse(struct desc_index *ix, const uint8_t *set, size_t len)
{
    memset(ix, 0, sizeof *ix);
    const uint8_t *p = set, *end = set + len;
    struct field f = {0};
    int rv;
    while ((rv = next_field(&p, end, &f)) > 0) {
        if (f.number != 1 || f.wire != 2) continue;
        struct desc_file *files = realloc(ix->files, (ix->n_files + 1) * sizeof *files);
        if (!files) {
            rv = -1;
            break;
        }
        ix->files = files;
        struct desc_file *file = &files[ix->n_files++];
        memset(file, 0, sizeof *file);
        file->bytes = f.data;
        file->len = f.len;
        if (index_file(ix, file) < 0) {
            rv = -1;
            break;
        }
    }
    if (rv < 0) {
        sbx_grpc_desc_index_free(ix);
        return -1;
    }
    return 0;
}

static void free_strs(char **a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

void sbx_grpc_desc_index_free(struct desc_index *ix)
{
    for (size_t i = 0; i < ix->n_files; i++) {
        free(ix->files[i].name);
        free_strs(ix->files[i].deps, ix->files[i].n_deps);
        free_strs(ix->files[i].symbols, ix->files[i].n_symbols);
    }
    free(ix->files);
    free_strs(ix->services, ix->n_services);
    memset(ix, 0, sizeof *ix);
}

const struct desc_file *sbx_grpc_desc_index_file(const struct desc_index *ix, const char *name)
{
    for (size_t i = 0; i < ix->n_files; i++)
        if (ix->files[i].name && strcmp(ix->files[i].name, name) == 0) return &ix->files[i];
    return NULL;
}

const struct desc_file *sbx_grpc_desc_index_symbol(const struct desc_index *ix, const char *symbol)
{
    for (size_t i = 0; i < ix->n_files; i++)
        for (size_t j = 0; j < ix->files[i].n_symbols; j++)
            if (strcmp(ix->files[i].symbols[j], symbol) == 0) return &ix->files[i];
    return NULL;
}

static bool contains(const struct desc_file **out, size_t n, const struct desc_file *f)
{
    for (size_t i = 0; i < n; i++)
        if (out[i] == f) return true;
    return false;
}

size_t sbx_grpc_desc_index_closure(const struct desc_index *ix, const struct desc_file *f,
                                   const struct desc_file **out, size_t cap)
{
    size_t n = 0;
    if (cap == 0) return 0;
    out[n++] = f;
    /* Breadth-first over the list being built: it doubles as the queue. */
    for (size_t i = 0; i < n; i++) {
        for (size_t d = 0; d < out[i]->n_deps; d++) {
            const struct desc_file *dep = sbx_grpc_desc_index_file(ix, out[i]->deps[d]);
            if (dep && !contains(out, n, dep) && n < cap) out[n++] = dep;
        }
    }
    return n;
}
