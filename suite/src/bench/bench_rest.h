/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_REST_H
#define SBX_BENCH_REST_H
/* REST figures, on libcurl easy handles kept alive across requests:
 *   rest.get_small_c1 / rest.put_small_c1     one connection, sequential
 *   rest.get_small_c64 / rest.put_small_c64   64 threads, each its own keep-alive handle
 *   rest.put_big / rest.get_big               one file of the big size, streamed both ways
 * All files live in a fresh directory under the sandbox root, removed
 * afterwards. The big transfers run inside a memory window (see bench_main). */
#include "bench_memory.h"
#include "bench_opts.h"
#include "bench_results.h"

/* mem may be NULL (no PID known); when set, the RSS growth during the big
 * transfers is recorded as memory.rss_growth_rest_big. */
void bench_rest(struct bench_results *r, const struct bench_opts *o, const char *addr,
                struct bench_mem *mem);

#endif
