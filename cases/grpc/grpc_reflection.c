/* SPDX-License-Identifier: Apache-2.0 */
/* G7: server reflection, so grpcurl works without a local .proto. The tiny
 * reflection messages are encoded and decoded by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"
#include "sbx_grpc_client.h"

/* Reads a varint; returns bytes used, 0 if malformed. */
static size_t get_varint(const uint8_t *p, size_t n, uint64_t *v)
{
    *v = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        *v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) return i + 1;
    }
    return 0;
}

/* Calls fn for every length-delimited field `want` in msg. Returns -1 if
 * the message is malformed. */
typedef void (*field_fn)(const uint8_t *p, size_t n, void *ud);
static int each_bytes_field(const uint8_t *msg, size_t len, uint32_t want, field_fn fn, void *ud)
{
    size_t i = 0;
    while (i < len) {
        uint64_t key, v;
        size_t k = get_varint(msg + i, len - i, &key);
        if (!k) return -1;
        i += k;
        switch (key & 7) {
        case 0:
            k = get_varint(msg + i, len - i, &v);
            if (!k) return -1;
            i += k;
            break;
        case 1:
            i += 8;
            break;
        case 5:
            i += 4;
            break;
        case 2:
            k = get_varint(msg + i, len - i, &v);
            if (!k || v > len - i - k) return -1;
            i += k;
            if ((key >> 3) == want) fn(msg + i, (size_t)v, ud);
            i += (size_t)v;
            break;
        default:
            return -1;
        }
        if (i > len) return -1;
    }
    return 0;
}

struct names {
    char list[2048];
    bool has_process;
};

static void service_name(const uint8_t *p, size_t n, void *ud)
{
    struct names *nm = ud;
    size_t l = strlen(nm->list);
    if (l + n + 3 < sizeof nm->list)
        snprintf(nm->list + l, sizeof nm->list - l, "%s%.*s", l ? ", " : "", (int)n, p);
    if (n == 25 && memcmp(p, "process.v1.ProcessService", 25) == 0) nm->has_process = true;
}

static void service_entry(const uint8_t *p, size_t n, void *ud)
{
    each_bytes_field(p, n, 1, service_name, ud);
}

static void list_response(const uint8_t *p, size_t n, void *ud)
{
    each_bytes_field(p, n, 1, service_entry, ud);
}

struct files {
    int count;
    bool has_service;
};

static void file_proto(const uint8_t *p, size_t n, void *ud)
{
    struct files *f = ud;
    f->count++;
    if (memmem(p, n, "ProcessService", 14) && memmem(p, n, "process.v1", 10) &&
        memmem(p, n, "Execute", 7))
        f->has_service = true;
}

static void file_response(const uint8_t *p, size_t n, void *ud)
{
    each_bytes_field(p, n, 1, file_proto, ud);
}

static int reflect(struct sbx_grpc_conn *c, const char *path, const uint8_t *req, size_t len,
                   struct sbx_grpc_result *r)
{
    struct sbx_grpc_call_opts o = {.wait_ms = 10000};
    memset(r, 0, sizeof *r);
    return sbx_grpc_unary(c, path, req, len, &o, r);
}

static void reflection_offered(struct case_ctx *ctx)
{
    const char *why = NULL;
    struct sbx_grpc_conn *c = rpc_conn(ctx, &why);
    if (!c) {
        case_fail(ctx, "a gRPC connection", "%s", why ? why : "failed");
        return;
    }
    static const char *const paths[] = {
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"};
    /* ServerReflectionRequest {list_services: "*"} */
    static const uint8_t list_req[] = {0x3a, 0x01, '*'};
    const char *path = NULL;
    struct sbx_grpc_result r;
    char seen[256] = "";
    for (size_t i = 0; i < 2 && !path; i++) {
        case_request(ctx, "%s {list_services: \"*\"}", paths[i]);
        reflect(c, paths[i], list_req, sizeof list_req, &r);
        if (r.end == SBX_GRPC_END_STATUS && r.code == SBX_GRPC_OK && r.response)
            path = paths[i];
        else
            snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%s: %s", i ? "; " : "",
                     i ? "v1alpha" : "v1", sbx_grpc_code_name(r.code));
        if (!path) sbx_grpc_result_free(&r);
    }
    if (!path) {
        case_fail(ctx, "grpc.reflection.v1 or v1alpha ServerReflectionInfo answering", "%s", seen);
        return;
    }
    struct names nm = {.list = ""};
    /* ServerReflectionResponse.list_services_response = 6 */
    int bad = each_bytes_field(r.response, r.response_len, 6, list_response, &nm);
    sbx_grpc_result_free(&r);
    CASE_CHECK(ctx, bad == 0 && nm.has_process, "list_services naming process.v1.ProcessService",
               "services: %s%s", nm.list[0] ? nm.list : "(none)",
               bad ? " (malformed response)" : "");

    /* ServerReflectionRequest {file_containing_symbol: "process.v1.ProcessService"} */
    static const char symbol[] = "process.v1.ProcessService";
    uint8_t sym_req[2 + sizeof symbol - 1];
    sym_req[0] = 0x22;
    sym_req[1] = sizeof symbol - 1; /* the field's bytes, without the NUL */
    memcpy(sym_req + 2, symbol, sizeof symbol - 1);
    case_request(ctx, "%s {file_containing_symbol: \"process.v1.ProcessService\"}", path);
    reflect(c, path, sym_req, sizeof sym_req, &r);
    struct files f = {0};
    if (CASE_CHECK(ctx, r.end == SBX_GRPC_END_STATUS && r.code == SBX_GRPC_OK && r.response,
                   "file_containing_symbol answered", "%s (%s)", sbx_grpc_code_name(r.code),
                   r.error)) {
        /* file_descriptor_response = 4 */
        int bad2 = each_bytes_field(r.response, r.response_len, 4, file_response, &f);
        CASE_CHECK(ctx, bad2 == 0 && f.has_service,
                   "a FileDescriptorProto defining process.v1.ProcessService (with Execute)",
                   "%d descriptors, none defining the service%s", f.count,
                   bad2 ? " (malformed response)" : "");
    }
    sbx_grpc_result_free(&r);
}
SBX_CASE(reflection_offered, .id = "G7-001",
         .title = "gRPC server reflection lists ProcessService and serves its descriptor",
         .clauses = "G7", .level = LEVEL_SHOULD, .tags = "grpc", .timeout_s = 20,
         .catches = "no reflection service (grpcurl needs a local .proto), or one that does not "
                    "know the service",
         .how = "ServerReflectionInfo (v1, else v1alpha): list_services must include "
                "process.v1.ProcessService and file_containing_symbol must return a "
                "descriptor defining it");
