/* SPDX-License-Identifier: Apache-2.0 */
/* The blocking unary call on top of the event-driven call API, and the
 * result helpers. */
#include <stdlib.h>
#include <string.h>

#include "sbx_grpc_client.h"

static void free_md(struct sbx_grpc_md *md, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(md[i].name);
        free(md[i].value);
    }
    free(md);
}

void sbx_grpc_result_free(struct sbx_grpc_result *r)
{
    if (!r) return;
    free(r->message);
    free(r->raw_message);
    free(r->content_type);
    free_md(r->headers, r->n_headers);
    free_md(r->trailers, r->n_trailers);
    free(r->response);
    memset(r, 0, sizeof *r);
}

const char *sbx_grpc_md_get(const struct sbx_grpc_md *md, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(md[i].name, name) == 0) return md[i].value;
    return NULL;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static struct sbx_grpc_md *dup_md(const struct sbx_grpc_md *md, size_t n)
{
    if (n == 0) return NULL;
    struct sbx_grpc_md *out = calloc(n, sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        out[i].name = strdup(md[i].name);
        out[i].value = malloc(md[i].value_len + 1);
        if (out[i].value) memcpy(out[i].value, md[i].value, md[i].value_len + 1);
        out[i].value_len = md[i].value_len;
    }
    return out;
}

/* Deep copy of a call's result, without the response message. */
static void copy_result(struct sbx_grpc_result *dst, const struct sbx_grpc_result *src)
{
    *dst = *src;
    dst->message = dup_or_null(src->message);
    dst->raw_message = dup_or_null(src->raw_message);
    dst->content_type = dup_or_null(src->content_type);
    dst->headers = dup_md(src->headers, src->n_headers);
    dst->n_headers = dst->headers ? src->n_headers : 0;
    dst->trailers = dup_md(src->trailers, src->n_trailers);
    dst->n_trailers = dst->trailers ? src->n_trailers : 0;
    dst->response = NULL;
    dst->response_len = 0;
}

int sbx_grpc_unary(struct sbx_grpc_conn *c, const char *path, const void *req, size_t req_len,
                   const struct sbx_grpc_call_opts *opts, struct sbx_grpc_result *result)
{
    memset(result, 0, sizeof *result);
    struct sbx_grpc_call *call =
        sbx_grpc_call_start(c, path, req, req_len, opts, result->error, sizeof result->error);
    if (!call) {
        result->end = SBX_GRPC_END_CONNECTION;
        result->code = SBX_GRPC_UNAVAILABLE;
        return -1;
    }
    uint8_t *first = NULL;
    size_t first_len = 0;
    bool have_first = false;
    int rv;
    for (;;) {
        const uint8_t *msg;
        size_t len;
        /* The call's own wait bound ends the loop; 1 s slices keep it responsive. */
        rv = sbx_grpc_call_next(call, 1000, &msg, &len);
        if (rv == SBX_GRPC_NEXT_MESSAGE) {
            if (!have_first) {
                first = malloc(len ? len : 1);
                if (first && len) memcpy(first, msg, len);
                first_len = len;
                have_first = true;
            }
            continue;
        }
        if (rv != SBX_GRPC_NEXT_TIMEOUT) break;
    }
    copy_result(result, sbx_grpc_call_result(call));
    result->response = first;
    result->response_len = first_len;
    sbx_grpc_call_free(call);
    return rv == SBX_GRPC_NEXT_END ? result->code : -1;
}
