/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_COMPARE_RUN_H
#define SBX_COMPARE_RUN_H
/* One results document (--json of a run, schema version 1) loaded for
 * `compare`: checked field by field so a corrupt or foreign file is a clear
 * error, never a wrong matrix. Strings point into the kept JSON document. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct cmp_case {
    const char *id, *title, *level;
    char *clauses;             /* "P1,P18" (malloc'd) */
    const char *outcome;       /* pass fail timeout skip error not-run */
    const char *status;        /* outcome, or expected-fail / unexpected-pass */
    const char *detail;        /* first failure's observed value, else the reason; may be NULL */
    const char *expected;      /* first failure's expected value; may be NULL */
    const char *baseline_link; /* the run's baseline entry, may be NULL */
};

struct cmp_clause {
    const char *id, *level, *text, *status;
    bool has_should; /* a SHOULD case lists it */
};

struct cmp_run {
    char *path;
    char label[4]; /* "A", "B", ... */
    json_t *doc;
    const char *level;
    char profiles[64];
    const char *verdict_slug, *verdict_text;
    const char *started_at;
    char runtime[256]; /* "launch: ./sandboxd-ref ..." */
    struct cmp_case *cases;
    size_t n_cases;
    struct cmp_clause *clauses;
    size_t n_clauses;
};

/* Loads and checks path. 0, or -1 with a message naming the file in err. */
int cmp_run_load(const char *path, struct cmp_run *run, char *err, size_t err_len);
void cmp_run_free(struct cmp_run *run);

const struct cmp_case *cmp_run_case(const struct cmp_run *run, const char *id);
const struct cmp_clause *cmp_run_clause(const struct cmp_run *run, const char *id);

/* True for the outcomes that count as a failure: fail, timeout, error. */
bool cmp_outcome_bad(const char *outcome);

#endif
