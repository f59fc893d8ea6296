/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_OPTS_H
#define SBX_BENCH_OPTS_H
/* Command line of `sandboxd-conformance bench`. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "opt_table.h"
#include "request_headers.h"

#define BENCH_MAX_ENV 32

/* Measurement groups that --only / --skip select (floors always run). */
enum bench_group {
    BENCH_G_EXECUTE = 1u << 0,
    BENCH_G_START = 1u << 1,
    BENCH_G_STREAMS = 1u << 2,
    BENCH_G_REST = 1u << 3,
    BENCH_G_ALL = 0xfu,
};

struct bench_opts {
    /* target: attach (grpc_addr + rest_addr) or launch (launch_cmd, or the
     * bundled sandboxd-ref when nothing is given) */
    const char *grpc_addr;
    const char *rest_addr;
    int pid;                /* attach mode: runtime PID for memory figures; 0 = none */
    const char *launch_cmd; /* launch template with {grpc_port} {rest_port} {root} ... */
    const char *bundled;    /* --launch-bundled: path of the sandboxd-ref to launch */
    const char *launch_env[BENCH_MAX_ENV + 1]; /* --launch-env NAME=VALUE, NULL-terminated */
    unsigned health_timeout_ms;
    /* TLS to the attached runtime, as for the conformance run (cli_tls.h):
     * --tls, --cacert, --cert, --key, --insecure, --authority. */
    bool tls_both, tls_insecure;
    const char *tls_cacert, *tls_cert, *tls_key, *tls_authority;

    /* A second runtime measured side by side (--compare-*): attach or launch
     * as above; NULL/0 when not comparing. */
    const char *cmp_grpc, *cmp_rest, *cmp_launch, *cmp_bundled;
    int cmp_pid;
    const char *cmp_json_path; /* --compare-json FILE: B's figures */
    unsigned rounds;           /* measurements of every figure (median kept) */

    const char *json_path; /* --json FILE */
    const char *tmpdir;    /* where the floor's files go; NULL = launch root's parent or TMPDIR */

    uint64_t size;          /* big transfers: Start stream, pipe/TCP/file floors, REST GET/PUT */
    uint64_t small_size;    /* small REST files */
    unsigned count;         /* per figure: at most this many measured operations */
    double duration;        /* per figure: at most this many seconds of measuring */
    unsigned warmup;        /* operations per figure (and per caller) not measured */
    unsigned streams;       /* concurrent Start streams opened on one connection */
    unsigned stream_sleep;  /* seconds each of those streams sleeps */
    double streams_timeout; /* bound on the concurrent-streams figure, seconds */
    unsigned groups;        /* enum bench_group bits */
    bool quiet;             /* no progress lines on stderr */
    struct request_headers headers; /* --header and its kin, for both runtimes */
    unsigned only, skip;            /* --only, --skip as given (enum bench_group bits) */
    bool help;
};

/* The table of bench's options (bench_options.c). */
extern const struct opt_command bench_command;

/* True when a second runtime is measured side by side. */
bool bench_comparing(const struct bench_opts *o);

/* Parses argv (argv[0] = "bench"). Returns 0 to run, 1 when --help was
 * printed, 2 on a usage error (message printed on stderr). */
int bench_parse_args(int argc, char **argv, struct bench_opts *o);

/* "1G", "64K", "1MiB", "4096" -> bytes; -1 on a malformed or zero size. */
int bench_parse_size(const char *s, uint64_t *out);
/* "3s", "500ms", "1.5", "2m" -> seconds; -1 on malformed or non-positive. */
int bench_parse_duration(const char *s, double *out);

void bench_usage(FILE *out);

#endif
