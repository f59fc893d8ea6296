/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_OPS_H
#define SBX_EXPLORE_OPS_H
/* Executing explore's operations against one runtime through the suite's
 * clients (rest_client, process_client), inside one workspace directory,
 * and collecting the answers the model judges. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case_context.h"
#include "explore_answer.h"
#include "explore_op.h"
#include "run_target.h"

struct xproc {
    struct rpc_stream *s;
    int32_t pid;
    bool live;  /* InitEvent seen, stream not drained */
    bool ended; /* drained: the id may only be sent again while no live one holds it */
};

struct xrt {
    struct run_target target;
    struct case_def def;
    struct case_ctx ctx;
    char ws[200]; /* the workspace, relative to the root */
    struct xproc *procs;
    size_t n_procs;
    /* Other connections start processes too (--jobs): an ended process's id
     * may belong to another job's live one, so it is never sent again. */
    bool ids_shared;
};

/* Connects a context to grpc/rest (no I/O yet). */
void xrt_init(struct xrt *rt, const char *grpc, const char *rest);
void xrt_release(struct xrt *rt);

/* Creates ws (relative to the root) with Execute mkdir -p. 0, or -1 with why. */
int xrt_begin(struct xrt *rt, const char *ws, char *why, size_t why_len);
/* Ends every process still running and removes the workspace with the
 * suite's safe removal. 0, or -1 with why naming what is left. */
int xrt_end(struct xrt *rt, char *why, size_t why_len);

/* Sends op and fills a (xans_free it). */
void xrt_exec(struct xrt *rt, const struct xop *op, struct xans *a);

/* The request-target of op's path below ws, malloc'd. */
char *xrt_files_target(const char *ws, const struct xop *op);

/* An id no Start of explore hands out, for "unknown id" operations. */
#define XRT_UNKNOWN_ID 2147480011

#endif
