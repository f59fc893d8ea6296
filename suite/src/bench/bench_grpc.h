/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_GRPC_H
#define SBX_BENCH_GRPC_H
/* ProcessService figures, on the wire layer's gRPC client directly:
 *   execute.sequential        Execute `true`, one caller, one connection
 *   execute.concurrent_1/8/64 Execute `true` from N caller threads, each with
 *                             its own connection (one call in flight per
 *                             connection)
 *   start.init                Start `echo x`: time to the InitEvent
 *   start.first_byte          same calls: time to the first stdout byte
 *   start.stream              Start `head -c N /dev/zero` read as fast as possible
 *   streams.concurrent        N Start streams of `sleep S` opened at once on one
 *                             connection (event-driven): how many complete */
#include "bench_opts.h"
#include "bench_results.h"

/* Returns 0 when the endpoint answers an Execute of `true`, else -1 with err. */
int bench_grpc_probe(const char *addr, char *err, size_t err_len);

void bench_execute(struct bench_results *r, const struct bench_opts *o, const char *addr);
void bench_start(struct bench_results *r, const struct bench_opts *o, const char *addr);
void bench_streams(struct bench_results *r, const struct bench_opts *o, const char *addr);

#endif
