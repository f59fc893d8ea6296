/* SPDX-License-Identifier: Apache-2.0 */
/* A download whose reader pauses mid-transfer (see pausable_download.h). */
#include "common/pausable_download.h"

#include "case_api.h"
#include "rest_client.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct pausable_download {
    struct pd_opts o;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool paused, resume, done, aborted;
    struct pd_result res;
};

/* An absolute CLOCK_REALTIME time ms from now (for pthread_cond_timedwait). */
static struct timespec deadline_in(unsigned ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static size_t pd_write(char *buf, size_t size, size_t nitems, void *ud)
{
    struct pausable_download *d = ud;
    size_t n = size * nitems;
    if (n && d->res.first_byte_ms == 0) d->res.first_byte_ms = case_now_ms();
    if (d->o.sink && !d->o.sink(d->o.sink_ud, buf, n, d->res.received)) {
        d->aborted = true;
        return 0;
    }
    d->res.received += n;
    if (d->res.received >= d->o.pause_at) {
        pthread_mutex_lock(&d->mu);
        if (!d->paused) {
            d->paused = true;
            pthread_cond_broadcast(&d->cv);
            /* Stop reading until resumed (bounded). */
            struct timespec until = deadline_in(d->o.max_pause_ms);
            while (!d->resume)
                if (pthread_cond_timedwait(&d->cv, &d->mu, &until) != 0) break;
        }
        pthread_mutex_unlock(&d->mu);
    }
    return n;
}

static void *pd_main(void *arg)
{
    struct pausable_download *d = arg;
    struct http_request req = {.method = "GET",
                               .target = d->o.target,
                               .timeout_ms = d->o.timeout_ms,
                               .write_cb = pd_write,
                               .write_ud = d};
    struct http_response resp = {0};
    d->res.start_ms = case_now_ms();
    int rc = rest_do_at(d->o.addr, &req, &resp);
    d->res.status = rc == 0 ? resp.status : 0;
    if (rc != 0) snprintf(d->res.error, sizeof d->res.error, "%s", resp.error);
    http_response_free(&resp);
    pthread_mutex_lock(&d->mu);
    d->done = true; /* wakes a case thread waiting for the pause */
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

struct pausable_download *pd_start(const struct pd_opts *opts)
{
    struct pausable_download *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->o = *opts;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    if (pthread_create(&d->tid, NULL, pd_main, d) != 0) {
        pthread_mutex_destroy(&d->mu);
        pthread_cond_destroy(&d->cv);
        free(d);
        return NULL;
    }
    return d;
}

bool pd_wait_paused(struct pausable_download *d, unsigned wait_ms)
{
    pthread_mutex_lock(&d->mu);
    struct timespec until = deadline_in(wait_ms);
    while (!d->paused && !d->done)
        if (pthread_cond_timedwait(&d->cv, &d->mu, &until) != 0) break;
    bool paused = d->paused && !d->done;
    pthread_mutex_unlock(&d->mu);
    return paused;
}

void pd_resume(struct pausable_download *d)
{
    pthread_mutex_lock(&d->mu);
    d->resume = true;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
}

void pd_finish(struct pausable_download *d, struct pd_result *out)
{
    pd_resume(d);
    pthread_join(d->tid, NULL);
    *out = d->res;
    if (d->aborted && !out->error[0])
        snprintf(out->error, sizeof out->error, "aborted by the reader");
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    free(d);
}
