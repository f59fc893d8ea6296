/* SPDX-License-Identifier: Apache-2.0 */
/* Handler calls run on the blocking pool (see request_offload.h). */
#include "rest/request_offload.h"

#include <stdlib.h>
#include <string.h>

static void run(struct blocking_job *job)
{
    struct request_offload *o = (struct request_offload *)job;
    size_t left = o->chunk_len;
    deferred_reply_hold(&o->reply);
    o->result = o->fn(o, left ? o->chunk : NULL, &left);
    deferred_reply_hold(NULL);
    /* The resume publishes everything the call wrote (libmicrohttpd takes
     * a lock the loop thread takes before it calls the handler again). */
    MHD_resume_connection(o->c);
}

enum request_offload_outcome request_offload_collect(struct request_offload *o,
                                                     struct MHD_Connection *c, enum MHD_Result *ret)
{
    if (!o->pending) return OFFLOAD_NONE;
    o->pending = false;
    enum MHD_Result queued = deferred_reply_deliver(&o->reply, c);
    *ret = o->result == MHD_YES && queued == MHD_YES ? MHD_YES : MHD_NO;
    return o->repeated ? OFFLOAD_ANSWERED : OFFLOAD_COLLECTED;
}

enum MHD_Result request_offload_start(struct request_offload *o, struct MHD_Connection *c,
                                      request_offload_fn fn, const char *upload_data,
                                      size_t *upload_size)
{
    size_t n = *upload_size;
    if (n > o->chunk_cap) {
        char *grown = realloc(o->chunk, n);
        if (!grown) return MHD_NO;
        o->chunk = grown;
        o->chunk_cap = n;
    }
    if (n) memcpy(o->chunk, upload_data, n);
    o->chunk_len = n;
    *upload_size = 0;
    o->c = c;
    o->fn = fn;
    o->repeated = n == 0;
    o->pending = true;
    o->job.run = run;
    /* Suspended before the job is queued: a resume that came first would
     * be lost. */
    MHD_suspend_connection(c);
    if (!blocking_pool_submit(o->pool, &o->job)) run(&o->job);
    return MHD_YES;
}

void request_offload_free(struct request_offload *o)
{
    deferred_reply_drop(&o->reply);
    free(o->chunk);
    o->chunk = NULL;
    o->chunk_cap = o->chunk_len = 0;
}
