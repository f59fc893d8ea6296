/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_SWAPPER_H
#define SBX_CASES_SWAPPER_H
/* The S7 swapper: a process started inside the runtime (it is the
 * runtime's view of the file system that races) that trades a directory and
 * a symlink to outside as fast as it can for a bounded time. Tried in
 * order: the static sbx-race-swapper shipped next to the suite (uploaded
 * with PUT mode=0755, renameat2 RENAME_EXCHANGE), python3 and perl calling
 * renameat2, and a shell loop of mv/ln/rm (the link in place only briefly). */
#include <stdbool.h>
#include <stddef.h>

struct case_ctx;
struct rpc_stream;

struct swapper {
    struct rpc_stream *stream;
    const char *kind; /* "static helper", "python3", "perl", "shell loop" */
    char helper[128]; /* uploaded helper's name in the case dir, or "" */
    char tried[600];  /* why earlier kinds were not used */
};

/* Starts a swapper in case_dir that swaps case_dir/dir and a link to
 * link_target for about ms milliseconds, and waits until it runs. 0 when
 * one runs; -1 when none could start (why says what each attempt did). */
int swapper_start(struct case_ctx *ctx, const char *dir, const char *link_target, unsigned ms,
                  struct swapper *sw, char *why, size_t whylen);

/* Waits for the swapper's end; *swaps and *ms (its own figures) stay 0
 * unless it reported them. Returns 0 when its stream ended with OK. */
int swapper_finish(struct case_ctx *ctx, struct swapper *sw, long *swaps, long *ms);

#endif
