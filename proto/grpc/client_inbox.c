/* SPDX-License-Identifier: Apache-2.0 */
/* A call's received response bytes and the messages in them (see
 * client_inbox.h). */
#include "client_inbox.h"

#include <stdlib.h>
#include <string.h>

#include "sbx_grpc_wire.h"

#define MIN_CAP 4096

static uint32_t prefix_len(const uint8_t *p)
{
    return ((uint32_t)p[1] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 8) | p[4];
}

void sbx_grpc_inbox_init(struct grpc_inbox *b, size_t max_message)
{
    memset(b, 0, sizeof *b);
    b->max_message = max_message ? max_message : SBX_GRPC_DEFAULT_MAX_RECV_MESSAGE;
}

void sbx_grpc_inbox_free(struct grpc_inbox *b)
{
    free(b->buf);
    free(b->held);
    memset(b, 0, sizeof *b);
}

/* Makes room for need more bytes after end. The unread bytes move to the
 * front; a message handed out stays where it is (its buffer is held). */
static int make_room(struct grpc_inbox *b, size_t need)
{
    size_t live = b->end - b->start;
    if (!b->out_in_buf && b->start > 0) {
        memmove(b->buf, b->buf + b->start, live);
        b->scan -= b->start;
        b->end = live;
        b->start = 0;
        if (b->cap - b->end >= need) return 0;
    }
    size_t cap = b->cap ? b->cap * 2 : MIN_CAP;
    if (cap < live + need) cap = live + need;
    if (!b->out_in_buf) {
        uint8_t *nb = realloc(b->buf, cap);
        if (!nb) return -1;
        b->buf = nb;
        b->cap = cap;
        return 0;
    }
    uint8_t *nb = malloc(cap);
    if (!nb) return -1;
    memcpy(nb, b->buf + b->start, live);
    b->held = b->buf; /* nothing else is held while out_in_buf */
    b->out_in_buf = false;
    b->buf = nb;
    b->cap = cap;
    b->scan -= b->start;
    b->end = live;
    b->start = 0;
    return 0;
}

int sbx_grpc_inbox_feed(struct grpc_inbox *b, const uint8_t *data, size_t len, size_t *completed)
{
    *completed = 0;
    if (b->failed) return -b->failed;
    if (len > 0) {
        if (b->cap - b->end < len && make_room(b, len) < 0) return -1;
        memcpy(b->buf + b->end, data, len);
        b->end += len;
    }
    while (b->end - b->scan >= SBX_GRPC_PREFIX_LEN) {
        const uint8_t *p = b->buf + b->scan;
        if (p[0] > 1)
            b->failed = SBX_GRPC_DEFRAME_BAD_FLAG;
        else if (p[0] == 1)
            b->failed = SBX_GRPC_DEFRAME_COMPRESSED;
        else if (prefix_len(p) > b->max_message)
            b->failed = SBX_GRPC_DEFRAME_TOO_LARGE;
        if (b->failed) return -b->failed;
        size_t mlen = prefix_len(p);
        if (b->end - b->scan - SBX_GRPC_PREFIX_LEN < mlen) break;
        b->scan += SBX_GRPC_PREFIX_LEN + mlen;
        b->ready++;
        (*completed)++;
    }
    return 0;
}

bool sbx_grpc_inbox_next(struct grpc_inbox *b, const uint8_t **msg, size_t *len)
{
    sbx_grpc_inbox_release(b);
    if (b->ready == 0) return false;
    const uint8_t *p = b->buf + b->start;
    *len = prefix_len(p);
    *msg = p + SBX_GRPC_PREFIX_LEN;
    b->start += SBX_GRPC_PREFIX_LEN + *len;
    b->ready--;
    b->out_in_buf = true;
    return true;
}

void sbx_grpc_inbox_release(struct grpc_inbox *b)
{
    free(b->held);
    b->held = NULL;
    b->out_in_buf = false;
    if (b->start == b->end) b->start = b->scan = b->end = 0;
}

void sbx_grpc_inbox_clear(struct grpc_inbox *b)
{
    b->start = b->scan = b->end;
    b->ready = 0;
}

bool sbx_grpc_inbox_idle(const struct grpc_inbox *b)
{
    return !b->failed && b->end == b->scan;
}
