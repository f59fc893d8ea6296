/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_REST_IDLE_H
#define SBX_BENCH_REST_IDLE_H
/* rest.health_idle: the latency of GET /v1/health, each on a fresh
 * connection, while BENCH_IDLE_CONNECTIONS connections that send nothing
 * are held open on the REST port. A runtime that spends a thread or much
 * memory per connection, or caps connections low, shows it here. On a
 * loopback target the idle connections come from 16 addresses of
 * 127.0.0.0/8, so that no per-address cap refuses them. */
#include "bench_opts.h"
#include "bench_results.h"

#define BENCH_IDLE_CONNECTIONS 2000u

void bench_rest_idle(struct bench_results *r, const struct bench_opts *o, const char *addr);

#endif
