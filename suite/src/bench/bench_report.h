/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_REPORT_H
#define SBX_BENCH_REPORT_H
/* The bench's outputs: the console table and the JSON document
 * (schema "sandboxd-conformance-bench/1", described in README.md). */
#include <stdio.h>

#include "bench_opts.h"
#include "bench_results.h"

struct bench_run_info {
    const char *mode; /* "launch" or "attach" */
    const char *grpc;
    const char *rest;
    int pid;             /* 0 = unknown */
    const char *command; /* launch mode: the command line; else NULL */
    long nproc;
    char cpu[128];
    char kernel[200];
    char date[64];  /* UTC, RFC 3339 */
    double seconds; /* wall time of the whole bench */
};

/* Fills nproc, cpu (from /proc/cpuinfo), kernel (uname) and date. */
void bench_machine_info(struct bench_run_info *i);

void bench_print_table(FILE *out, const struct bench_results *r, const struct bench_run_info *i,
                       const struct bench_opts *o);

/* Writes the JSON document; 0, or -1 with a message in err. */
int bench_write_json(const char *path, const struct bench_results *r,
                     const struct bench_run_info *i, const struct bench_opts *o, char *err,
                     size_t err_len);

/* Human formatting, exposed for tests: "412us", "1.23ms", "2.01s". */
void bench_fmt_time(char *buf, size_t len, double seconds);
/* "1.23 GB/s", "456 MB/s", "12.3 kB/s" (decimal units, as the targets). */
void bench_fmt_rate(char *buf, size_t len, double bytes_per_s);
/* "3.2 MiB" */
void bench_fmt_bytes(char *buf, size_t len, double bytes);

#endif
