/* SPDX-License-Identifier: Apache-2.0 */
/* The REST server's worker threads (see blocking_pool.h). */
#include "rest/blocking_pool.h"

#include <pthread.h>
#include <stdlib.h>

struct blocking_pool {
    pthread_mutex_t lock;
    pthread_cond_t work;
    struct blocking_job *head, *tail;
    bool stopping;
    unsigned nthreads;
    pthread_t threads[];
};

static void *worker(void *arg)
{
    struct blocking_pool *pool = arg;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->head && !pool->stopping)
            pthread_cond_wait(&pool->work, &pool->lock);
        struct blocking_job *job = pool->head;
        if (!job) break; /* stopping and drained */
        pool->head = job->next;
        if (!pool->head) pool->tail = NULL;
        pthread_mutex_unlock(&pool->lock);
        job->run(job);
        pthread_mutex_lock(&pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

struct blocking_pool *blocking_pool_start(unsigned threads, size_t stack_size)
{
    if (threads == 0) threads = 1;
    struct blocking_pool *pool = calloc(1, sizeof(*pool) + threads * sizeof(pthread_t));
    if (!pool) return NULL;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work, NULL);
    pthread_attr_t ta;
    pthread_attr_init(&ta);
    if (stack_size) pthread_attr_setstacksize(&ta, stack_size);
    for (unsigned i = 0; i < threads; i++) {
        if (pthread_create(&pool->threads[pool->nthreads], &ta, worker, pool) != 0) break;
        pool->nthreads++;
    }
    pthread_attr_destroy(&ta);
    if (pool->nthreads == 0) {
        pthread_cond_destroy(&pool->work);
        pthread_mutex_destroy(&pool->lock);
        free(pool);
        return NULL;
    }
    return pool;
}

bool blocking_pool_submit(struct blocking_pool *pool, struct blocking_job *job)
{
    if (!pool) return false;
    pthread_mutex_lock(&pool->lock);
    bool taken = !pool->stopping;
    if (taken) {
        job->next = NULL;
        if (pool->tail)
            pool->tail->next = job;
        else
            pool->head = job;
        pool->tail = job;
        pthread_cond_signal(&pool->work);
    }
    pthread_mutex_unlock(&pool->lock);
    return taken;
}

void blocking_pool_stop(struct blocking_pool *pool)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->stopping = true;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->nthreads; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->work);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}
