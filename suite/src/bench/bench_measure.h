/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_MEASURE_H
#define SBX_BENCH_MEASURE_H
/* Generic measuring loops: warm-up excluded, bounded by a count AND a
 * duration, results written into a figure. */
#include <stdint.h>

#include "bench_opts.h"
#include "bench_results.h"

/* One operation; returns 0 on success, -1 on failure (counted as an error,
 * not sampled). err (256 bytes) may receive a reason. */
typedef int (*bench_op_fn)(void *ud, char *err);

/* One transfer; returns the bytes moved, or -1 on failure. */
typedef int64_t (*bench_xfer_fn)(void *ud, char *err);

/* Runs fn o->warmup times unmeasured, then until o->count operations or
 * o->duration seconds; fills lat, throughput (successful ops/s), errors. */
void bench_measure_latency(struct bench_figure *f, const struct bench_opts *o, bench_op_fn fn,
                           void *ud);

/* Runs fn at least once and then until o->count transfers or o->duration
 * seconds; fills lat (per transfer), bytes, throughput (bytes/s over the
 * successful transfers). No warm-up at full size: callers warm up with a
 * small transfer themselves when it matters. */
void bench_measure_transfer(struct bench_figure *f, const struct bench_opts *o, bench_xfer_fn fn,
                            void *ud, uint64_t bytes);

/* Concurrent callers: n threads, each with its own state (e.g. its own
 * connection) made by setup, which warm up, then start together and share
 * one budget of o->count operations and one deadline of o->duration. */
struct bench_workers {
    void *(*setup)(void *ud, unsigned index, char *err); /* NULL = this caller failed */
    bench_op_fn op;                                      /* called with the state */
    void (*teardown)(void *state);
    void *ud;
};

/* Fills lat (per-operation), throughput (successful ops / wall time from the
 * common start to the last caller's end), errors. */
void bench_measure_concurrent(struct bench_figure *f, const struct bench_opts *o, unsigned n,
                              const struct bench_workers *w);

/* Progress line on stderr ("bench: <label>") unless o->quiet. */
void bench_progress(const struct bench_opts *o, const char *label);

/* Records "first error: ..." in the figure's note once. */
void bench_note_error(struct bench_figure *f, const char *err);

#endif
