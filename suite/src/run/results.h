/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_RESULTS_H
#define SBX_RESULTS_H
/* What a run produced: one result per catalog case (run or not), the run's
 * parameters, the runtime's identity and the verdict. Every reporter reads
 * only this. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case_api.h"
#include "tls_connect.h"

enum outcome {
    OUT_NOT_RUN = 0, /* filtered out by the selection */
    OUT_PASS,
    OUT_FAIL,
    OUT_TIMEOUT,
    OUT_SKIP,
    OUT_ERROR,
};

struct failure {
    char *expected;
    char *observed;
    char *request; /* may be NULL */
};

struct case_result {
    const struct case_def *def;
    bool selected; /* chosen by the selection options */
    bool in_level; /* counts for the verdict (level and profile) */
    enum outcome outcome;
    char *reason; /* skip reason, error message, timeout text */
    struct failure *failures;
    size_t n_failures;
    unsigned failures_total; /* including those not kept */
    char **notes;
    size_t n_notes;
    char **doc_findings; /* what the OpenAPI document does not describe (distinct) */
    size_t n_doc_findings;
    double seconds;
    uint64_t seed;
    char *output;        /* what the case printed (bounded) */
    size_t output_total; /* bytes it printed in all */
    /* Baseline (known deviations). */
    const char *baseline_reason;
    const char *baseline_link;
    bool in_baseline;
    bool expected_fail;   /* in the baseline and failed or timed out */
    bool unexpected_pass; /* in the baseline and passed */
    bool not_run;         /* selected, never started: the run was interrupted or the runtime
                             unreachable (reported as skipped, with the reason) */
};

enum verdict {
    VERDICT_FULL,       /* full conformant */
    VERDICT_CORE,       /* core conformant */
    VERDICT_NOT,        /* not conformant */
    VERDICT_INCOMPLETE, /* incomplete */
};

struct level_tally {
    unsigned total, passed, failed, missing;
};

struct verdict_info {
    enum verdict verdict;
    bool complete; /* every case of the requested level ran and passed or failed */
    int exit_code;
    struct level_tally must, should;
    char reasons[8][256]; /* why the verdict is what it is */
    int n_reasons;
};

struct runtime_identity {
    const char *mode; /* "launch" or "attach" */
    const char *grpc_addr, *rest_addr;
    const char *command; /* launch mode */
    char exit_text[256]; /* launch mode: how it ended after SIGTERM */
    int exit_status;     /* waitpid status; -1 unknown */
    bool exit_known;
    double stop_seconds; /* SIGTERM to exit */
    char *health_json;   /* body of GET /v1/health at start */
    char *metadata_json; /* body of GET /v1/metadata at start */
    char *version;       /* `--version` output (launch mode) or null */
    char *root_path;     /* as the runtime's processes see it */
    bool procfs, pty;    /* capabilities found by the probe */
    /* Per surface: TLS or not, and what the handshake agreed on. */
    struct tls_peer grpc_tls, rest_tls;
    /* Per surface: the names of the headers the user had sent ("" or NULL
     * when none; values are never recorded). Owned. */
    char *grpc_header_names, *rest_header_names;
    bool probed;
};

struct run_params {
    uint64_t seed;
    unsigned jobs;
    const char *level; /* "core" or "full" */
    bool transport_profile;
    const char *focus, *skip, *tags;
    const char *baseline_path;
    const char *rerun_path;
    double timeout_scale;
    bool require_complete;
    const char *prefix;
    const char *openapi;      /* the document responses were validated against */
    bool openapi_is_contract; /* it is the project's own (no findings possible) */
    char **argv;
    int argc;
};

struct run_results {
    struct case_result *cases; /* catalog order (by ID) */
    size_t count;
    struct run_params params;
    struct runtime_identity runtime;
    struct verdict_info verdict;
    char started_at[40], finished_at[40]; /* RFC 3339 UTC */
    double seconds;
    char hostname[128];
    bool interrupted;
    char *unresponsive; /* why the circuit breaker gave up on the runtime; NULL if it did not */
    char *unreachable;  /* why the run could not start (exit 3); NULL if it started */
};

const char *outcome_name(enum outcome o); /* "pass", "fail", ..., "not-run" */
/* Final status including the baseline: adds "expected-fail", "unexpected-pass". */
const char *result_status(const struct case_result *r);
const char *verdict_name(enum verdict v); /* "full conformant" ... */
const char *verdict_slug(enum verdict v); /* "full-conformant" ... */

/* Counts of selected cases by status. */
struct result_counts {
    unsigned total, selected, pass, fail, timeout, skip, error, expected_fail, unexpected_pass,
        not_run;
};
void results_count(const struct run_results *res, struct result_counts *c);

/* A case that "went wrong": fail, timeout or error, not expected by the baseline. */
bool result_is_bad(const struct case_result *r);

void case_result_add_failure(struct case_result *r, const char *expected, const char *observed,
                             const char *request);
void case_result_add_note(struct case_result *r, const char *text);
/* Adds a document finding unless the case has that text already. */
void case_result_add_doc_finding(struct case_result *r, const char *text);
void run_results_free(struct run_results *res);

#endif
