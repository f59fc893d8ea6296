/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASE_CONTEXT_H
#define SBX_CASE_CONTEXT_H
/* The runner's side of struct case_ctx: how a worker builds the context for
 * one case and how recorded outcomes travel to the parent (one JSON object
 * per line on report_fd; see worker_event.h). */
#include <stdbool.h>
#include <stdint.h>

#include "case_api.h"
#include "run_target.h"
#include "worker_event.h"

#define CASE_MAX_SLOTS 8

struct case_slot {
    const char *key;
    void *state;
    void (*destroy)(void *state);
};

struct case_ctx {
    const struct case_def *def;
    const struct run_target *target;
    char dir[600]; /* "<prefix>/<case id>" */
    uint64_t seed; /* the case's derived seed */
    uint64_t rand_state;
    char *root_path; /* cached answer of case_root_path() */
    bool root_probed;
    int report_fd; /* where events go; -1 = discarded */
    bool failed, skipped, errored;
    unsigned failures;
    struct case_slot slots[CASE_MAX_SLOTS];
    uint64_t deadline_ms; /* case_now_ms() when the runner stops waiting; 0: none */
    /* While the case talks to a private instance (case_use_runtime): the
     * shared target and its client state, set aside. */
    const struct run_target *shared_target;
    struct case_slot parked[CASE_MAX_SLOTS];
    char *parked_root_path;
    bool parked_root_probed;
};

/* Why the run's gRPC endpoint cannot carry gRPC (run_target.grpc_unusable),
 * or NULL when it can (or the case talks to a private instance). */
const char *case_grpc_unusable(const struct case_ctx *ctx);

/* Seed of one case, derived from the run seed and the case ID. */
uint64_t case_derive_seed(uint64_t run_seed, const char *case_id);

/* Prepares ctx for def (no I/O). */
void case_ctx_init(struct case_ctx *ctx, const struct case_def *def,
                   const struct run_target *target, uint64_t run_seed, int report_fd);
/* Runs the slot destructors and frees what the context owns. */
void case_ctx_release(struct case_ctx *ctx);

/* Sends one event line to the parent (no-op when report_fd < 0). */
void case_ctx_emit(struct case_ctx *ctx, const struct worker_event *ev);

#endif
