/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_DEFERRED_REPLY_H
#define SBX_REST_DEFERRED_REPLY_H
/* A response queued by a handler that runs on a worker thread, held until
 * the connection's own event-loop thread can queue it. libmicrohttpd lets
 * only that thread queue a response and act on it, so while a worker runs a
 * handler, rest_queue hands its response to the deferred reply of that
 * worker's thread instead. */
#include <microhttpd.h>
#include <stdbool.h>

struct deferred_reply {
    struct MHD_Response *response;
    unsigned status;
};

/* Until deferred_reply_hold(NULL), responses queued on this thread are held
 * in d (which must be empty). */
void deferred_reply_hold(struct deferred_reply *d);

/* Called by rest_queue: true when this thread holds responses, with *ret
 * what queuing answered (MHD_NO for a second response, as libmicrohttpd
 * would). The response's reference is taken over either way. */
bool deferred_reply_take(unsigned status, struct MHD_Response *response, enum MHD_Result *ret);

/* Queues the held response, if any, on c (from c's own thread) and empties
 * d: MHD_YES, or what queuing answered. */
enum MHD_Result deferred_reply_deliver(struct deferred_reply *d, struct MHD_Connection *c);

/* Drops a held response that will never be delivered. */
void deferred_reply_drop(struct deferred_reply *d);

#endif
