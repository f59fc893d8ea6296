/* Bounded measuring loops shared by every figure. */
#include "bench_measure.h"

#include <stdio.h>
#include <string.h>

void bench_progress(const struct bench_opts *o, const char *label)
{
    if (!o->quiet) fprintf(stderr, "bench: %s\n", label);
}

void bench_note_error(struct bench_figure *f, const char *err)
{
    if (f->note[0] || !err || !err[0]) return;
    snprintf(f->note, sizeof f->note, "first error: %s", err);
}

void bench_measure_latency(struct bench_figure *f, const struct bench_opts *o, bench_op_fn fn,
                           void *ud)
{
    char err[256];
    bench_progress(o, f->label);
    struct bench_samples s;
    if (bench_samples_init(&s, o->count) != 0) {
        snprintf(f->note, sizeof f->note, "out of memory");
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
        snprintf(f->note, sizeof f->note, "out of memory");
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
                snprintf(err, sizeof err, "moved %lld of %llu bytes", (long long)n,
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
