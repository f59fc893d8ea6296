/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_REQUEST_OFFLOAD_H
#define SBX_REST_REQUEST_OFFLOAD_H
/* One call of a request's handler moved off the event loop: the connection
 * is suspended, a worker of the blocking pool runs the call (its response
 * held, deferred_reply.h) and resumes the connection, and the next call of
 * the access handler on the loop collects the outcome.
 *
 * A call without body bytes (a request's headers, or the end of its body)
 * is repeated by libmicrohttpd after the resume: that repeat only
 * delivers the outcome. A body chunk is copied and consumed before the
 * suspend (libmicrohttpd may move its read buffer), so its outcome is
 * collected by whichever call comes next. Buffering is bounded by one
 * chunk (at most the connection's read buffer) per connection. */
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "rest/blocking_pool.h"
#include "rest/deferred_reply.h"

struct request_offload;
typedef enum MHD_Result (*request_offload_fn)(struct request_offload *o, const char *data,
                                              size_t *size);

struct request_offload {
    struct blocking_job job;
    struct blocking_pool *pool;
    struct MHD_Connection *c;
    request_offload_fn fn;
    char *chunk;
    size_t chunk_len, chunk_cap;
    bool pending;  /* a call went to the pool; its outcome not collected */
    bool repeated; /* libmicrohttpd repeats that call on resume */
    enum MHD_Result result;
    struct deferred_reply reply;
};

enum request_offload_outcome {
    OFFLOAD_NONE,     /* nothing pending: handle this call */
    OFFLOAD_ANSWERED, /* this call is the repeat: return *ret */
    OFFLOAD_COLLECTED /* a chunk's outcome: return *ret if MHD_NO, else handle this call */
};

/* Collects the outcome of the previous call, if one went to the pool. */
enum request_offload_outcome
request_offload_collect(struct request_offload *o, struct MHD_Connection *c, enum MHD_Result *ret);

/* Suspends c and runs fn(o, upload_data, upload_size) on the pool (or on
 * this thread when the pool is stopping). Consumes the body bytes. */
enum MHD_Result request_offload_start(struct request_offload *o, struct MHD_Connection *c,
                                      request_offload_fn fn, const char *upload_data,
                                      size_t *upload_size);

/* Frees what the offload holds (the request is over). */
void request_offload_free(struct request_offload *o);

#endif
