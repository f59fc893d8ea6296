/* SPDX-License-Identifier: Apache-2.0 */
/* gRPC server reflection (v1 and v1alpha) answered from a descriptor set.
 * Each request on the open stream is answered as it arrives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "descriptor_index.h"
#include "reflection.pb-c.h"
#include "sbx_grpc_reflection.h"
#include "server_internal.h"

#define V1_PATH "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
#define V1ALPHA_PATH "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
#define MAX_FILES 64

typedef Grpc__Reflection__V1__ServerReflectionRequest Request;
typedef Grpc__Reflection__V1__ServerReflectionResponse Response;

/* One index per server, released with the server. */
struct reflection {
    struct desc_index ix;
};

static void reflection_free(void *arg)
{
    struct reflection *r = arg;
    sbx_grpc_desc_index_free(&r->ix);
    free(r);
}

static void answer_files(Response *resp, const struct desc_index *ix, const struct desc_file *f,
                         Grpc__Reflection__V1__FileDescriptorResponse *fdr,
                         ProtobufCBinaryData *bins)
{
    const struct desc_file *files[MAX_FILES];
    size_t n = sbx_grpc_desc_index_closure(ix, f, files, MAX_FILES);
    for (size_t i = 0; i < n; i++) {
        bins[i].data = (uint8_t *)(uintptr_t)files[i]->bytes;
        bins[i].len = files[i]->len;
    }
    fdr->n_file_descriptor_proto = n;
    fdr->file_descriptor_proto = bins;
    resp->message_response_case =
        GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_FILE_DESCRIPTOR_RESPONSE;
    resp->file_descriptor_response = fdr;
}

static void on_request(struct sbx_grpc_server_call *call, const uint8_t *msg, size_t len,
                       void *user)
{
    struct reflection *r = user;
    Request *req = grpc__reflection__v1__server_reflection_request__unpack(NULL, len, msg);
    if (!req) {
        sbx_grpc_server_call_finish(call, SBX_GRPC_INVALID_ARGUMENT,
                                    "invalid ServerReflectionRequest");
        return;
    }
    Response resp = GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__INIT;
    resp.valid_host = req->host;
    resp.original_request = req;

    Grpc__Reflection__V1__ListServiceResponse lsr =
        GRPC__REFLECTION__V1__LIST_SERVICE_RESPONSE__INIT;
    Grpc__Reflection__V1__ServiceResponse svc[MAX_FILES + 2];
    Grpc__Reflection__V1__ServiceResponse *svcp[MAX_FILES + 2];
    Grpc__Reflection__V1__FileDescriptorResponse fdr =
        GRPC__REFLECTION__V1__FILE_DESCRIPTOR_RESPONSE__INIT;
    ProtobufCBinaryData bins[MAX_FILES];
    Grpc__Reflection__V1__ErrorResponse er = GRPC__REFLECTION__V1__ERROR_RESPONSE__INIT;
    Grpc__Reflection__V1__ExtensionNumberResponse enr =
        GRPC__REFLECTION__V1__EXTENSION_NUMBER_RESPONSE__INIT;
    char errmsg[300];
    const struct desc_file *f = NULL;
    const char *missing = NULL;

    switch (req->message_request_case) {
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_LIST_SERVICES: {
        static char v1[] = "grpc.reflection.v1.ServerReflection";
        static char v1alpha[] = "grpc.reflection.v1alpha.ServerReflection";
        size_t n = 0;
        char *names[MAX_FILES + 2];
        for (size_t i = 0; i < r->ix.n_services && n < MAX_FILES; i++)
            names[n++] = r->ix.services[i];
        names[n++] = v1;
        names[n++] = v1alpha;
        for (size_t i = 0; i < n; i++) {
            grpc__reflection__v1__service_response__init(&svc[i]);
            svc[i].name = names[i];
            svcp[i] = &svc[i];
        }
        lsr.n_service = n;
        lsr.service = svcp;
        resp.message_response_case =
            GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_LIST_SERVICES_RESPONSE;
        resp.list_services_response = &lsr;
        break;
    }
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_BY_FILENAME:
        f = sbx_grpc_desc_index_file(&r->ix, req->file_by_filename);
        missing = f ? NULL : req->file_by_filename;
        break;
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_SYMBOL:
        f = sbx_grpc_desc_index_symbol(&r->ix, req->file_containing_symbol);
        missing = f ? NULL : req->file_containing_symbol;
        break;
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_ALL_EXTENSION_NUMBERS_OF_TYPE:
        if (sbx_grpc_desc_index_symbol(&r->ix, req->all_extension_numbers_of_type)) {
            enr.base_type_name = req->all_extension_numbers_of_type;
            resp.message_response_case =
                GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ALL_EXTENSION_NUMBERS_RESPONSE;
            resp.all_extension_numbers_response = &enr;
        } else {
            missing = req->all_extension_numbers_of_type;
        }
        break;
    case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_EXTENSION:
        missing = "extension";
        break;
    default:
        break;
    }
    if (f) {
        answer_files(&resp, &r->ix, f, &fdr, bins);
    } else if (resp.message_response_case ==
               GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE__NOT_SET) {
        if (missing) {
            snprintf(errmsg, sizeof errmsg, "%.256s not found", missing);
            er.error_code = SBX_GRPC_NOT_FOUND;
        } else {
            snprintf(errmsg, sizeof errmsg, "unsupported reflection request");
            er.error_code = SBX_GRPC_UNIMPLEMENTED;
        }
        er.error_message = errmsg;
        resp.message_response_case =
            GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ERROR_RESPONSE;
        resp.error_response = &er;
    }
    size_t out_len = grpc__reflection__v1__server_reflection_response__get_packed_size(&resp);
    uint8_t *out = malloc(out_len ? out_len : 1);
    int rv = SBX_GRPC_SEND_FULL;
    if (out) {
        grpc__reflection__v1__server_reflection_response__pack(&resp, out);
        rv = sbx_grpc_server_call_send_message(call, out, out_len);
        free(out);
    }
    grpc__reflection__v1__server_reflection_request__free_unpacked(req, NULL);
    /* A client that sends requests without reading answers is stopped. */
    if (rv == SBX_GRPC_SEND_FULL)
        sbx_grpc_server_call_finish(call, SBX_GRPC_RESOURCE_EXHAUSTED,
                                    "reflection answers not being read");
}

static void on_half_close(struct sbx_grpc_server_call *call, void *user)
{
    (void)user;
    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
}

int sbx_grpc_reflection_register(struct sbx_grpc_server *s, const uint8_t *descriptor_set,
                                 size_t len)
{
    struct reflection *r = calloc(1, sizeof *r);
    if (!r) return -1;
    if (sbx_grpc_desc_index_parse(&r->ix, descriptor_set, len) < 0) {
        free(r);
        return -1;
    }
    if (sbx_grpc_server_add_cleanup(s, reflection_free, r) < 0) {
        reflection_free(r);
        return -1;
    }
    struct sbx_grpc_method m = {.path = V1_PATH,
                                .kind = SBX_GRPC_METHOD_BIDI_STREAMING,
                                .on_request = on_request,
                                .on_half_close = on_half_close,
                                .user = r};
    if (sbx_grpc_server_add_method(s, &m) < 0) return -1;
    m.path = V1ALPHA_PATH;
    return sbx_grpc_server_add_method(s, &m);
}
