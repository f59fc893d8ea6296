/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded measuring loops shared by every figure. */
#include "bench_text.h"
#include "bench_measure.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_progress(const struct bench_opts *o, const char *label)
{
    if (!o->quiet) fprintf(stderr, "bench: %s\n", label);
}

void bench_note_error(struct bench_figure *f, const char *err)
{
    if (f->note[0] || !err || !err[0]) return;
    bench_fmt(f->note, sizeof f->note, "first error: %s", err);
}

void bench_measure_latency(struct bench_figure *f, const struct bench_opts *o, bench_op_fn fn,
                           void *ud)
{
    char err[256];
    bench_progress(o, f->label);
    struct bench_samples s;
    if (bench_samples_init(&s, o->count) != 0) {
        bench_fmt(f->note, sizeof f->note, "out of memory");
        return;
    }
    /* Warm-up has its own time bound so a dead endpoint cannot stall it. */
    double warm_end = bench_now() + o->duration;
    for (unsigned i = 0; i < o->warmup && bench_now() < warm_end; i++) {
        err[0] = '\0';
        if (fn(ud, err) != 0) bench_note_error(f, err);
    }
    double t0 = bench_now(), end = t0 + o->duration, now = t0;
    unsigned attempts = 0;
    while (attempts < o->count && now < end) {
        err[0] = '\0';
        double a = bench_now();
        int rc = fn(ud, err);
        now = bench_now();
        attempts++;
        if (rc == 0) {
            bench_samples_add(&s, now - a);
        } else {
            f->errors++;
            bench_note_error(f, err);
        }
    }
    f->elapsed = now - t0;
    f->lat = bench_summarise(&s);
    f->throughput = f->elapsed > 0.0 ? (double)s.n / f->elapsed : 0.0;
    f->measured = true;
    bench_samples_free(&s);
}

void bench_measure_transfer(struct bench_figure *f, const struct bench_opts *o, bench_xfer_fn fn,
                            void *ud, uint64_t bytes)
{
    char err[256];
    bench_progress(o, f->label);
    struct bench_samples s;
    if (bench_samples_init(&s, o->count) != 0) {
        bench_fmt(f->note, sizeof f->note, "out of memory");
        return;
    }
    f->bytes = bytes;
    double t0 = bench_now(), end = t0 + o->duration, now = t0;
    double busy = 0.0, moved = 0.0;
    unsigned runs = 0;
    while (runs < o->count && (runs == 0 || now < end)) {
        err[0] = '\0';
        double a = bench_now();
        int64_t n = fn(ud, err);
        now = bench_now();
        runs++;
        if (n >= 0 && (uint64_t)n == bytes) {
            bench_samples_add(&s, now - a);
            busy += now - a;
            moved += (double)n;
        } else {
            f->errors++;
            if (n >= 0 && !err[0])
                bench_fmt(err, sizeof err, "moved %lld of %llu bytes", (long long)n,
                          (unsigned long long)bytes);
            bench_note_error(f, err);
        }
    }
    f->elapsed = now - t0;
    f->lat = bench_summarise(&s);
    f->throughput = busy > 0.0 ? moved / busy : 0.0;
    f->measured = true;
    bench_samples_free(&s);
}

#define CROWD_CALLS_PER_CALLER 250

struct crowd {
    const struct bench_opts *o;
    const struct bench_workers *w;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned ready; /* callers warmed up (or failed to set up) */
    unsigned next_index;
    bool go; /* measuring has begun */
    double end;
    size_t budget; /* calls of all callers together */
    atomic_size_t issued;
    struct bench_samples all;
    uint64_t errors;
    double last_done;
    char first_err[256];
};

static void crowd_note(struct crowd *c, const char *err)
{
    if (!c->first_err[0] && err[0]) bench_fmt(c->first_err, sizeof c->first_err, "%s", err);
}

static void *crowd_thread(void *arg)
{
    struct crowd *c = arg;
    char err[256] = "";
    pthread_mutex_lock(&c->lock);
    unsigned index = c->next_index++;
    pthread_mutex_unlock(&c->lock);

    struct bench_samples s;
    int ok = bench_samples_init(&s, c->budget);
    void *state = ok == 0 ? c->w->setup(c->w->ud, index, err) : NULL;
    double warm_end = bench_now() + c->o->duration;
    for (unsigned i = 0; state && i < c->o->warmup && bench_now() < warm_end; i++)
        c->w->op(state, err);

    pthread_mutex_lock(&c->lock);
    if (!state) crowd_note(c, err[0] ? err : "caller set-up failed");
    c->ready++;
    pthread_cond_broadcast(&c->cond);
    while (!c->go)
        pthread_cond_wait(&c->cond, &c->lock);
    pthread_mutex_unlock(&c->lock);

    uint64_t errors = state ? 0 : 1;
    double now = bench_now();
    while (state && now < c->end && atomic_fetch_add(&c->issued, 1) < c->budget) {
        err[0] = '\0';
        double a = bench_now();
        int rc = c->w->op(state, err);
        now = bench_now();
        if (rc == 0) {
            bench_samples_add(&s, now - a);
        } else {
            errors++;
            pthread_mutex_lock(&c->lock);
            crowd_note(c, err);
            pthread_mutex_unlock(&c->lock);
        }
    }
    if (state) c->w->teardown(state);
    pthread_mutex_lock(&c->lock);
    if (ok == 0) bench_samples_merge(&c->all, &s);
    c->errors += errors;
    if (now > c->last_done) c->last_done = now;
    pthread_mutex_unlock(&c->lock);
    if (ok == 0) bench_samples_free(&s);
    return NULL;
}

void bench_measure_concurrent(struct bench_figure *f, const struct bench_opts *o, unsigned n,
                              const struct bench_workers *w)
{
    bench_progress(o, f->label);
    /* At least CROWD_CALLS_PER_CALLER calls each: with fewer, the start and
     * the ragged end of the crowd weigh on the figure as much as the calls. */
    size_t budget = (size_t)n * CROWD_CALLS_PER_CALLER;
    if (budget < o->count) budget = o->count;
    struct crowd c = {.o = o, .w = w, .budget = budget};
    if (bench_samples_init(&c.all, budget) != 0) return;
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.cond, NULL);
    atomic_init(&c.issued, 0);
    pthread_t *th = calloc(n, sizeof *th);
    unsigned started = 0;
    for (; th && started < n; started++)
        if (pthread_create(&th[started], NULL, crowd_thread, &c) != 0) break;
    if (started < n)
        bench_fmt(f->note, sizeof f->note, "only %u of %u caller threads started", started, n);
    /* Measuring starts when every caller is warm, with one shared deadline. */
    pthread_mutex_lock(&c.lock);
    while (c.ready < started)
        pthread_cond_wait(&c.cond, &c.lock);
    double t0 = bench_now();
    c.end = t0 + o->duration;
    c.go = true;
    pthread_cond_broadcast(&c.cond);
    pthread_mutex_unlock(&c.lock);
    for (unsigned k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    free(th);
    f->elapsed = (c.last_done > t0 ? c.last_done : bench_now()) - t0;
    f->lat = bench_summarise(&c.all);
    f->throughput = f->elapsed > 0.0 ? (double)c.all.n / f->elapsed : 0.0;
    f->errors = c.errors;
    f->measured = true;
    bench_note_error(f, c.first_err);
    bench_samples_free(&c.all);
    pthread_cond_destroy(&c.cond);
    pthread_mutex_destroy(&c.lock);
}
