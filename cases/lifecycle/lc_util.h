#ifndef SBX_CASES_LC_UTIL_H
#define SBX_CASES_LC_UTIL_H
/* Lifecycle cases talk to a private runtime instance over both surfaces.
 * The process client speaks to the case's target, so for the duration of a
 * case the context is pointed at the instance (lc_retarget) and pointed
 * back before the case returns (lc_restore). The process client keeps its
 * connection in the case's client-state slot "process_client.conn"; that
 * slot is set aside meanwhile, so the client dials the instance. */
#include <stdbool.h>
#include <stdint.h>

#include "case_api.h"
#include "case_context.h"
#include "common/proc_util.h"

struct lc_target {
    struct case_ctx *ctx;
    const struct run_target *saved;
    struct run_target copy;
    /* The process client's per-case connection to the shared runtime (the
     * runner has used it to create the case directory), set aside while
     * the case talks to its instance. */
    struct case_slot saved_conn;
    int conn_slot;
};

void lc_retarget(struct case_ctx *ctx, struct private_runtime *rt, struct lc_target *t);
void lc_restore(struct lc_target *t);

/* GET /v1/health on addr: the status (0 when no response arrived); when
 * code is given it receives the Error body's code (or ""). */
long lc_health(const char *addr, char *code, size_t code_len);

/* Starts `sh -c script` on the (retargeted) runtime in its root and waits
 * for "ready" on stdout. False with a failure recorded otherwise. */
bool lc_start_ready(struct case_ctx *ctx, struct pu_stream *ps, const char *script,
                    const char *label);

/* Reads both streams (either may be NULL) for up to wait_ms, a little at a
 * time, so neither backs up. */
void lc_pump(struct pu_stream *a, struct pu_stream *b, unsigned wait_ms);

#endif
