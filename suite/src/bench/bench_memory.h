/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_MEMORY_H
#define SBX_BENCH_MEMORY_H
/* The runtime's memory, from /proc/<pid>/status (VmRSS, VmHWM), sampled by
 * a background thread during the run so short peaks between figures are
 * seen too. */
#include <stdbool.h>
#include <stdint.h>

/* One reading; 0 or -1 when the file cannot be read (process gone, no
 * permission). Values in bytes. */
int bench_mem_read(int pid, uint64_t *rss, uint64_t *hwm);

struct bench_mem;

/* Starts sampling pid every interval_ms. NULL if pid cannot be read. */
struct bench_mem *bench_mem_start(int pid, unsigned interval_ms);

/* Starts a window: the window's peak restarts from the current RSS. */
void bench_mem_window_begin(struct bench_mem *m);
/* Highest VmRSS sampled since bench_mem_window_begin (bytes). */
uint64_t bench_mem_window_peak(struct bench_mem *m);
/* Highest VmRSS sampled since start, and the number of samples taken. */
uint64_t bench_mem_peak(struct bench_mem *m, uint64_t *samples);

void bench_mem_stop(struct bench_mem *m);

#endif
