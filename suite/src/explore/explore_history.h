/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_HISTORY_H
#define SBX_EXPLORE_HISTORY_H
/* The replay file: a sequence of operations as JSON (jansson), written for
 * every reproduction and read back by `explore --replay FILE`. A replay
 * file is untrusted input: every field is checked, and a path that could
 * leave the workspace (an empty, "." or ".." component) is refused. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explore_op.h"

#define XHIST_FORMAT "sandboxd-conformance-explore-replay/1"
#define XHIST_MAX_OPS 100000
#define XHIST_MAX_SIZE (16u << 20)
/* A concurrent round: one sequence per job (connection), each with the seed
 * that places its contended operations. */
#define XHIST_JOBS_FORMAT "sandboxd-conformance-explore-replay-jobs/1"
#define XHIST_MAX_JOBS 64

/* JSON text of the sequence (malloc'd); clause may be NULL. */
char *xhist_dump(const struct xop *ops, size_t n, uint64_t seed, const char *clause);

/* Parses a replay file's bytes: 0 with *ops (malloc'd), *n and *seed, or
 * -1 with err. */
int xhist_parse(const char *text, size_t len, struct xop **ops, size_t *n, uint64_t *seed,
                char *err, size_t err_len);

struct xhist_job {
    uint64_t seed;
    struct xop *ops;
    size_t n;
};

/* JSON text of a concurrent round (malloc'd); clause may be NULL. */
char *xhist_dump_jobs(const struct xhist_job *jobs, size_t n, uint64_t seed, const char *clause);

/* Parses either format: a plain replay file gives one job and *concurrent
 * false. 0 with *jobs (free with xhist_jobs_free), *n and *seed, or -1 with
 * err. */
int xhist_parse_jobs(const char *text, size_t len, struct xhist_job **jobs, size_t *n,
                     uint64_t *seed, bool *concurrent, char *err, size_t err_len);
void xhist_jobs_free(struct xhist_job *jobs, size_t n);

#endif
