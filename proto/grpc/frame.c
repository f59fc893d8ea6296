/* SPDX-License-Identifier: Apache-2.0 */
/* Length-prefixed message framing: prefix encoding and the reassembling
 * deframer. The deframer never allocates more than max_message bytes and
 * allocates nothing before a whole prefix was validated. */
#include <stdlib.h>
#include <string.h>

#include "sbx_grpc_wire.h"

void sbx_grpc_frame_prefix(uint8_t out[SBX_GRPC_PREFIX_LEN], bool compressed, uint32_t len)
{
    out[0] = compressed ? 1 : 0;
    out[1] = (uint8_t)(len >> 24);
    out[2] = (uint8_t)(len >> 16);
    out[3] = (uint8_t)(len >> 8);
    out[4] = (uint8_t)len;
}

void sbx_grpc_deframer_init(struct sbx_grpc_deframer *d, size_t max_message)
{
    memset(d, 0, sizeof *d);
    d->max_message = max_message ? max_message : SBX_GRPC_DEFAULT_MAX_RECV_MESSAGE;
}

void sbx_grpc_deframer_free(struct sbx_grpc_deframer *d)
{
    free(d->body);
    d->body = NULL;
    d->prefix_have = 0;
    d->body_have = 0;
    d->body_len = 0;
}

bool sbx_grpc_deframer_idle(const struct sbx_grpc_deframer *d)
{
    return d->prefix_have == 0 && !d->failed;
}

/* Checks a complete prefix and prepares the body buffer. */
static int start_body(struct sbx_grpc_deframer *d)
{
    if (d->prefix[0] > 1) return SBX_GRPC_DEFRAME_BAD_FLAG;
    if (d->prefix[0] == 1) return SBX_GRPC_DEFRAME_COMPRESSED;
    uint32_t len = ((uint32_t)d->prefix[1] << 24) | ((uint32_t)d->prefix[2] << 16) |
                   ((uint32_t)d->prefix[3] << 8) | (uint32_t)d->prefix[4];
    if (len > d->max_message) return SBX_GRPC_DEFRAME_TOO_LARGE;
    d->body_len = len;
    d->body_have = 0;
    d->body = NULL;
    if (len > 0) {
        d->body = malloc(len);
        if (!d->body) return SBX_GRPC_DEFRAME_TOO_LARGE;
    }
    return 0;
}

int sbx_grpc_deframer_feed(struct sbx_grpc_deframer *d, const uint8_t *data, size_t len,
                           size_t *consumed, uint8_t **msg, size_t *msg_len)
{
    size_t pos = 0;
    *msg = NULL;
    *msg_len = 0;
    if (d->failed) {
        *consumed = 0;
        return d->failed;
    }
    for (;;) {
        if (d->prefix_have < SBX_GRPC_PREFIX_LEN) {
            size_t take = SBX_GRPC_PREFIX_LEN - d->prefix_have;
            if (take > len - pos) take = len - pos;
            if (take) memcpy(d->prefix + d->prefix_have, data + pos, take);
            d->prefix_have += take;
            pos += take;
            if (d->prefix_have < SBX_GRPC_PREFIX_LEN) {
                *consumed = pos;
                return SBX_GRPC_DEFRAME_NEED_MORE;
            }
            int rv = start_body(d);
            if (rv) {
                d->failed = rv;
                *consumed = pos;
                return rv;
            }
        }
        size_t take = d->body_len - d->body_have;
        if (take > len - pos) take = len - pos;
        if (take) memcpy(d->body + d->body_have, data + pos, take);
        d->body_have += take;
        pos += take;
        if (d->body_have == d->body_len) {
            *msg = d->body;
            *msg_len = d->body_len;
            d->body = NULL;
            d->body_len = 0;
            d->body_have = 0;
            d->prefix_have = 0;
            *consumed = pos;
            return SBX_GRPC_DEFRAME_MESSAGE;
        }
        *consumed = pos;
        return SBX_GRPC_DEFRAME_NEED_MORE;
    }
}
