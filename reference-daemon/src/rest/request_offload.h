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
 * delivers the outcome. Body bytes are copied and consumed before the
 * suspend (libmicrohttpd may move its read buffer), so their outcome is
 * collected by whichever call comes next.
 *
 * Body bytes are gathered on the loop up to REQUEST_OFFLOAD_GATHER before
 * they go to the pool: every hand-off suspends and resumes the connection,
 * two thread wake-ups, and libmicrohttpd hands a body over in pieces of
 * its read buffer (a few KiB to 32 KiB). The gathering buffers of all
 * connections together stay within REQUEST_OFFLOAD_GATHER_BUDGET; an
 * upload that finds it spent hands its bytes over as they come, so a
 * connection then holds at most one piece. A hand-off before the body's
 * end stops at a multiple of REQUEST_OFFLOAD_GATHER of the body, so an
 * upload is written in aligned pieces; the rest waits for the next one. */

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "rest/blocking_pool.h"
#include "rest/deferred_reply.h"

/* Bytes gathered before a hand-off, and all gathering buffers together. */
#define REQUEST_OFFLOAD_GATHER (256 * 1024)
#define REQUEST_OFFLOAD_GATHER_BUDGET (8 * 1024 * 1024)

struct request_offload;
typedef enum MHD_Result (*request_offload_fn)(struct request_offload *o, const char *data,
                                              size_t *size);

struct request_offload {
    struct blocking_job job;
    struct blocking_pool *pool;
    struct MHD_Connection *c;
    request_offload_fn fn;
    char *chunk; /* body bytes not yet handed to fn */
    size_t chunk_len, chunk_cap;
    size_t handed;      /* body bytes handed to fn so far */
    size_t charged;     /* bytes of the gathering budget this buffer holds */
    bool headers_first; /* the job starts with the headers' call, fn(o, NULL, 0) */
    bool pending;       /* a call went to the pool; its outcome not collected */
    bool repeated;      /* libmicrohttpd repeats that call on resume */
    enum MHD_Result result;
    struct deferred_reply reply;
    /* A descriptor the job closes after its resume (close_pending). */
    bool close_pending;
    int close_after_reply;
};

enum request_offload_outcome {
    OFFLOAD_NONE,     /* nothing pending: handle this call */
    OFFLOAD_ANSWERED, /* this call is the repeat: return *ret */
    OFFLOAD_COLLECTED /* a chunk's outcome: return *ret if MHD_NO, else handle this call */
};

/* Collects the outcome of the previous call, if one went to the pool. */
enum request_offload_outcome
request_offload_collect(struct request_offload *o, struct MHD_Connection *c, enum MHD_Result *ret);

/* Keeps the body bytes for a later hand-off when they and those already
 * kept stay under REQUEST_OFFLOAD_GATHER and the budget allows: true, with
 * *upload_size 0. false: hand them off now. */
bool request_offload_gather(struct request_offload *o, const char *upload_data,
                            size_t *upload_size);

/* Suspends c and runs on the pool (or on this thread when the pool is
 * stopping): the headers' call fn(o, NULL, 0) if o->headers_first is set,
 * then fn over the body bytes kept and these ones, then, for a call
 * without body bytes (the body's end, or a request without one),
 * fn(o, NULL, 0), whose outcome the repeat of this call collects. Stops at
 * the first call that answers. Consumes the body bytes. */
enum MHD_Result request_offload_start(struct request_offload *o, struct MHD_Connection *c,
                                      request_offload_fn fn, const char *upload_data,
                                      size_t *upload_size);

/* Frees what the offload holds (the request is over). */
void request_offload_free(struct request_offload *o);

#endif
