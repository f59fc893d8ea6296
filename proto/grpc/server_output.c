/* SPDX-License-Identifier: Apache-2.0 */
/* Reference-counted output blocks, per-call message queues and the
 * connection's list of spans (see server_output.h). */
#include "server_output.h"

#include <stdlib.h>
#include <string.h>

#include "sbx_grpc_wire.h"

/* A call that queued this much gets large blocks: many messages per block,
 * one allocation (usually from the pool) per block. Smaller calls get
 * blocks of their message's size, so thousands of quiet streams stay small. */
#define STREAMING_BYTES (16u * 1024u)
#define BIG_BLOCK (256u * 1024u)
#define COPY_BLOCK (16u * 1024u)
#define POOL_MAX 4

static struct out_block *block_new(struct out_pool *pool, size_t cap)
{
    struct out_block *b;
    if (cap == BIG_BLOCK && pool->free) {
        b = pool->free;
        pool->free = b->next;
        pool->n_free--;
    } else {
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->cap = cap;
    }
    b->next = NULL;
    b->off = b->len = 0;
    b->refs = 1;
    return b;
}

static void block_unref(struct out_pool *pool, struct out_block *b)
{
    if (--b->refs > 0) return;
    if (b->cap == BIG_BLOCK && pool->n_free < POOL_MAX) {
        b->next = pool->free;
        pool->free = b;
        pool->n_free++;
        return;
    }
    free(b);
}

void sbx_grpc_out_pool_clear(struct out_pool *pool)
{
    while (pool->free) {
        struct out_block *b = pool->free;
        pool->free = b->next;
        free(b);
    }
    pool->n_free = 0;
}

/* ---- a call's queue ------------------------------------------------------ */

/* A tail block with room for need more bytes. */
static struct out_block *tail_space(struct msg_queue *q, struct out_pool *pool, size_t need)
{
    struct out_block *t = q->tail;
    if (t && t->cap - t->len >= need) return t;
    size_t cap = need;
    if (q->total >= STREAMING_BYTES && cap < BIG_BLOCK) cap = BIG_BLOCK;
    struct out_block *b = block_new(pool, cap);
    if (!b) return NULL;
    if (t && t->off == t->len) {
        /* The old tail was read to its end: only spans still hold it. */
        q->head = t->next;
        block_unref(pool, t);
        t = NULL;
    }
    if (t)
        t->next = b;
    else
        q->head = b;
    q->tail = b;
    return b;
}

uint8_t *sbx_grpc_msg_queue_reserve(struct msg_queue *q, struct out_pool *pool, size_t cap)
{
    struct out_block *t = tail_space(q, pool, cap);
    return t ? t->data + t->len : NULL;
}

void sbx_grpc_msg_queue_commit(struct msg_queue *q, size_t len)
{
    q->tail->len += len;
    q->bytes += len;
    q->total += len;
}

int sbx_grpc_msg_queue_push(struct msg_queue *q, struct out_pool *pool, const struct iovec *parts,
                            size_t n_parts, size_t len)
{
    size_t need = SBX_GRPC_PREFIX_LEN + len;
    struct out_block *t = tail_space(q, pool, need);
    if (!t) return -1;
    uint8_t *p = t->data + t->len;
    sbx_grpc_frame_prefix(p, false, (uint32_t)len);
    p += SBX_GRPC_PREFIX_LEN;
    for (size_t i = 0; i < n_parts; i++) {
        if (parts[i].iov_len) memcpy(p, parts[i].iov_base, parts[i].iov_len);
        p += parts[i].iov_len;
    }
    t->len += need;
    q->bytes += need;
    q->total += need;
    return 0;
}

void sbx_grpc_msg_queue_clear(struct msg_queue *q, struct out_pool *pool)
{
    while (q->head) {
        struct out_block *b = q->head;
        q->head = b->next;
        block_unref(pool, b);
    }
    q->tail = NULL;
    q->bytes = 0;
}

/* ---- the connection's output --------------------------------------------- */

static int add_span(struct out_list *l, struct out_block *b, const uint8_t *p, size_t len)
{
    if (len == 0) return 0;
    struct out_span *last = l->n > l->first ? &l->v[l->n - 1] : NULL;
    if (last && l->cur < l->n && last->b == b && last->p + last->len == p) {
        last->len += len;
    } else {
        if (l->n == l->cap && l->first > 0) {
            /* v holds cap spans: with cap > 0 it was allocated */
            // NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker)
            memmove(l->v, l->v + l->first, (l->n - l->first) * sizeof *l->v);
            l->n -= l->first;
            l->cur -= l->first;
            l->first = 0;
        }
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 64;
            struct out_span *v = realloc(l->v, cap * sizeof *v);
            if (!v) return -1;
            l->v = v;
            l->cap = cap;
        }
        /* v holds cap spans: with cap > 0 it was allocated */
        // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
        l->v[l->n++] = (struct out_span){b, p, len};
        b->refs++;
    }
    l->bytes += len;
    l->unsent += len;
    return 0;
}

int sbx_grpc_out_list_copy(struct out_list *l, struct out_pool *pool, const uint8_t *d, size_t len)
{
    if (len == 0) return 0;
    if (!l->in || l->in->cap - l->in->len < len) {
        struct out_block *b = block_new(pool, len > COPY_BLOCK ? len : COPY_BLOCK);
        if (!b) return -1;
        if (l->in) block_unref(pool, l->in);
        l->in = b;
    }
    uint8_t *p = l->in->data + l->in->len;
    memcpy(p, d, len);
    l->in->len += len;
    return add_span(l, l->in, p, len);
}

int sbx_grpc_out_list_take(struct out_list *l, struct msg_queue *q, struct out_pool *pool,
                           size_t len)
{
    while (len > 0 && q->head) {
        struct out_block *b = q->head;
        size_t t = b->len - b->off;
        if (t > len) t = len;
        if (add_span(l, b, b->data + b->off, t) < 0) return -1;
        b->off += t;
        q->bytes -= t;
        len -= t;
        if (b->off == b->len && b != q->tail) {
            q->head = b->next;
            block_unref(pool, b);
        }
    }
    return len == 0 ? 0 : -1;
}

size_t sbx_grpc_out_list_next(struct out_list *l, struct iovec *iov, size_t max_iov,
                              size_t max_bytes, size_t *bytes)
{
    size_t k = 0, total = 0;
    while (k < max_iov && l->cur < l->n && total < max_bytes) {
        const struct out_span *s = &l->v[l->cur];
        size_t t = s->len - l->cur_off;
        if (t > max_bytes - total) t = max_bytes - total;
        iov[k].iov_base = (void *)(uintptr_t)(s->p + l->cur_off);
        iov[k].iov_len = t;
        k++;
        total += t;
        l->cur_off += t;
        if (l->cur_off == s->len) {
            l->cur++;
            l->cur_off = 0;
        }
    }
    l->unsent -= total;
    *bytes = total;
    return k;
}

void sbx_grpc_out_list_written(struct out_list *l, struct out_pool *pool, size_t len)
{
    while (len > 0 && l->first < l->n) {
        struct out_span *s = &l->v[l->first];
        size_t t = s->len < len ? s->len : len;
        s->p += t;
        s->len -= t;
        l->bytes -= t;
        len -= t;
        if (l->first == l->cur) l->cur_off -= t;
        if (s->len == 0) {
            block_unref(pool, s->b);
            l->first++;
        }
    }
    if (l->first == l->n) l->first = l->n = l->cur = l->cur_off = 0;
}

void sbx_grpc_out_list_clear(struct out_list *l, struct out_pool *pool)
{
    for (size_t i = l->first; i < l->n; i++)
        block_unref(pool, l->v[i].b);
    if (l->in) block_unref(pool, l->in);
    free(l->v);
    memset(l, 0, sizeof *l);
}
