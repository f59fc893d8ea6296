/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_SERVER_OUTPUT_H
#define SBX_GRPC_SERVER_OUTPUT_H
/* Response bytes on their way to the socket with a single copy: a call's
 * framed messages are written once into reference-counted blocks; the
 * connection's output is a list of spans of blocks (DATA payloads point into
 * the call's blocks, everything nghttp2 serialises is copied into a small
 * block of the connection), handed out as iovecs and released once the
 * socket took them. Sans-I/O; used by server_session.c, server_response.c
 * and server_handler_api.c. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct out_block {
    struct out_block *next; /* in a message queue or the pool */
    size_t off, len, cap;   /* unread bytes are data[off, len) */
    unsigned refs;
    uint8_t data[];
};

/* Spare large blocks, so a steady stream does not go through malloc. */
struct out_pool {
    struct out_block *free;
    size_t n_free;
};

/* One call's framed messages not yet handed to the connection. */
struct msg_queue {
    struct out_block *head, *tail;
    size_t bytes;   /* unread bytes */
    uint64_t total; /* bytes ever queued (large blocks once a call streams) */
};

struct out_span {
    struct out_block *b;
    const uint8_t *p;
    size_t len;
};

/* The connection's output: spans[first, n); spans before `cur` (and cur_off
 * bytes of spans[cur]) were handed out and wait for sbx_grpc_out_list_written. */
struct out_list {
    struct out_span *v;
    size_t first, n, cap;
    size_t cur, cur_off;
    size_t bytes;         /* all bytes in the list */
    size_t unsent;        /* bytes not yet handed out */
    struct out_block *in; /* block receiving copied bytes */
};

void sbx_grpc_out_pool_clear(struct out_pool *pool);

/* Appends one message: the 5-byte gRPC prefix and the concatenation of
 * parts (len bytes in all). Returns 0, or -1 when out of memory. */
int sbx_grpc_msg_queue_push(struct msg_queue *q, struct out_pool *pool, const struct iovec *parts,
                            size_t n_parts, size_t len);
void sbx_grpc_msg_queue_clear(struct msg_queue *q, struct out_pool *pool);

/* Space for cap bytes after the queue's end, for messages written in place;
 * nothing is queued until sbx_grpc_msg_queue_commit. NULL when out of memory. */
uint8_t *sbx_grpc_msg_queue_reserve(struct msg_queue *q, struct out_pool *pool, size_t cap);
/* Queues the first len bytes written at the reserved space (len <= cap). */
void sbx_grpc_msg_queue_commit(struct msg_queue *q, size_t len);

/* Appends a copy of d. Returns 0, or -1 when out of memory. */
int sbx_grpc_out_list_copy(struct out_list *l, struct out_pool *pool, const uint8_t *d, size_t len);
/* Moves the first len bytes of q (which holds at least len) to the list
 * without copying them. Returns 0, or -1 when out of memory. */
int sbx_grpc_out_list_take(struct out_list *l, struct msg_queue *q, struct out_pool *pool,
                           size_t len);
/* Hands out up to max_iov iovecs, at most max_bytes in all, of the bytes not
 * handed out yet; they stay valid until sbx_grpc_out_list_written releases them.
 * Returns the number of iovecs; *bytes is their total length. */
size_t sbx_grpc_out_list_next(struct out_list *l, struct iovec *iov, size_t max_iov,
                              size_t max_bytes, size_t *bytes);
/* The first len handed-out bytes were written: releases them. */
void sbx_grpc_out_list_written(struct out_list *l, struct out_pool *pool, size_t len);
void sbx_grpc_out_list_clear(struct out_list *l, struct out_pool *pool);

#endif
