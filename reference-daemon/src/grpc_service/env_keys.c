/* SPDX-License-Identifier: Apache-2.0 */
/* Env names straight from the protobuf wire format (see env_keys.h). */
#include "grpc_service/env_keys.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sbx_grpc_status.h"

struct field {
    uint32_t number;
    const uint8_t *data; /* length-delimited fields only, else NULL */
    size_t len;
};

static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return true;
    }
    return false;
}

/* Reads the next field; false at the end or on bytes that do not parse. */
static bool next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
    uint64_t tag, v;
    if (*p >= end || !read_varint(p, end, &tag)) return false;
    f->number = (uint32_t)(tag >> 3);
    f->data = NULL;
    f->len = 0;
    switch (tag & 7) {
    case 0:
        return read_varint(p, end, &v);
    case 1:
        if ((size_t)(end - *p) < 8) return false;
        *p += 8;
        return true;
    case 2:
        if (!read_varint(p, end, &v) || v > (uint64_t)(end - *p)) return false;
        f->data = *p;
        f->len = (size_t)v;
        *p += v;
        return true;
    case 5:
        if ((size_t)(end - *p) < 4) return false;
        *p += 4;
        return true;
    default: /* groups: never in this schema */
        return false;
    }
}

static int check_name(const uint8_t *name, size_t len, char *msg, size_t msglen)
{
    const char *why = NULL;
    if (len == 0)
        why = "is empty";
    else if (memchr(name, '\0', len))
        why = "contains a NUL byte";
    else if (memchr(name, '=', len))
        why = "contains '='";
    if (!why) return SBX_GRPC_OK;
    int shown = len > 64 ? 64 : (int)len;
    snprintf(msg, msglen, "env_vars name \"%.*s\"%s %s", shown, (const char *)name,
             len > 64 ? "..." : "", why);
    return SBX_GRPC_INVALID_ARGUMENT;
}

/* One map entry: key = 1, value = 2; the last key wins, a missing one is "". */
static int check_entry(const uint8_t *p, size_t len, char *msg, size_t msglen)
{
    const uint8_t *end = p + len, *key = (const uint8_t *)"";
    size_t key_len = 0;
    struct field f;
    while (next_field(&p, end, &f))
        if (f.number == 1 && f.data) {
            key = f.data;
            key_len = f.len;
        }
    return check_name(key, key_len, msg, msglen);
}

int env_keys_check(const uint8_t *req, size_t len, char *msg, size_t msglen)
{
    const uint8_t *p = req, *end = req + len;
    struct field top, cfg;
    while (next_field(&p, end, &top)) {
        if (top.number != 1 || !top.data) continue;
        const uint8_t *q = top.data, *cend = top.data + top.len;
        while (next_field(&q, cend, &cfg)) {
            if (cfg.number != 2 || !cfg.data) continue;
            int code = check_entry(cfg.data, cfg.len, msg, msglen);
            if (code != SBX_GRPC_OK) return code;
        }
    }
    return SBX_GRPC_OK;
}
