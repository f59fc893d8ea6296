/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_BLOCKING_POOL_H
#define SBX_REST_BLOCKING_POOL_H
/* A fixed set of threads for the file-system work of REST requests (opens,
 * listings, writes, renames, tree removals), so that the event loop that
 * serves every connection never waits on a disk. Jobs run in the order
 * they were submitted; each job's owner keeps at most one job queued, so
 * the queue is bounded by the number of connections. */
#include <stdbool.h>
#include <stddef.h>

struct blocking_job {
    struct blocking_job *next; /* owned by the pool while queued */
    void (*run)(struct blocking_job *job);
};

struct blocking_pool;

/* Starts threads workers with stacks of stack_size bytes (0: the default).
 * NULL when no thread could be started. */
struct blocking_pool *blocking_pool_start(unsigned threads, size_t stack_size);

/* Queues job. false when the pool is stopping (or NULL): the caller runs
 * the job itself. */
bool blocking_pool_submit(struct blocking_pool *pool, struct blocking_job *job);

/* Refuses new jobs, runs every queued one to its end, joins and frees. */
void blocking_pool_stop(struct blocking_pool *pool);

#endif
