/* SPDX-License-Identifier: Apache-2.0 */
/* The result model's small helpers. */
#include "results.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_KEPT_FAILURES = 50, MAX_KEPT_NOTES = 50, MAX_KEPT_DOC_FINDINGS = 50 };

const char *outcome_name(enum outcome o)
{
    switch (o) {
    case OUT_PASS:
        return "pass";
    case OUT_FAIL:
        return "fail";
    case OUT_TIMEOUT:
        return "timeout";
    case OUT_SKIP:
        return "skip";
    case OUT_ERROR:
        return "error";
    case OUT_NOT_RUN:
        break;
    }
    return "not-run";
}

const char *result_status(const struct case_result *r)
{
    if (r->expected_fail) return "expected-fail";
    if (r->unexpected_pass) return "unexpected-pass";
    return outcome_name(r->outcome);
}

const char *verdict_name(enum verdict v)
{
    switch (v) {
    case VERDICT_FULL:
        return "full conformant";
    case VERDICT_CORE:
        return "core conformant";
    case VERDICT_NOT:
        return "not conformant";
    case VERDICT_INCOMPLETE:
        break;
    }
    return "incomplete";
}

const char *verdict_slug(enum verdict v)
{
    switch (v) {
    case VERDICT_FULL:
        return "full-conformant";
    case VERDICT_CORE:
        return "core-conformant";
    case VERDICT_NOT:
        return "not-conformant";
    case VERDICT_INCOMPLETE:
        break;
    }
    return "incomplete";
}

bool result_is_bad(const struct case_result *r)
{
    if (r->expected_fail) return false;
    return r->outcome == OUT_FAIL || r->outcome == OUT_TIMEOUT || r->outcome == OUT_ERROR;
}

void results_count(const struct run_results *res, struct result_counts *c)
{
    memset(c, 0, sizeof *c);
    c->total = (unsigned)res->count;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!r->selected || r->outcome == OUT_NOT_RUN) {
            c->not_run++;
            continue;
        }
        c->selected++;
        if (r->expected_fail)
            c->expected_fail++;
        else if (r->unexpected_pass)
            c->unexpected_pass++;
        switch (r->outcome) {
        case OUT_PASS:
            c->pass++;
            break;
        case OUT_FAIL:
            c->fail += !r->expected_fail;
            break;
        case OUT_TIMEOUT:
            c->timeout += !r->expected_fail;
            break;
        case OUT_SKIP:
            c->skip++;
            break;
        case OUT_ERROR:
            c->error += !r->expected_fail;
            break;
        case OUT_NOT_RUN:
            break;
        }
    }
}

void case_result_add_failure(struct case_result *r, const char *expected, const char *observed,
                             const char *request)
{
    r->failures_total++;
    if (r->n_failures >= MAX_KEPT_FAILURES) return;
    struct failure *grown = realloc(r->failures, (r->n_failures + 1) * sizeof *grown);
    if (!grown) return;
    r->failures = grown;
    struct failure *f = &grown[r->n_failures++];
    f->expected = strdup(expected ? expected : "");
    f->observed = strdup(observed ? observed : "");
    f->request = request ? strdup(request) : NULL;
}

void case_result_add_note(struct case_result *r, const char *text)
{
    if (r->n_notes >= MAX_KEPT_NOTES) return;
    char **grown = realloc(r->notes, (r->n_notes + 1) * sizeof *grown);
    if (!grown) return;
    r->notes = grown;
    grown[r->n_notes++] = strdup(text ? text : "");
}

void case_result_add_doc_finding(struct case_result *r, const char *text)
{
    text = text ? text : "";
    for (size_t i = 0; i < r->n_doc_findings; i++)
        if (strcmp(r->doc_findings[i], text) == 0) return;
    if (r->n_doc_findings >= MAX_KEPT_DOC_FINDINGS) return;
    char **grown = realloc(r->doc_findings, (r->n_doc_findings + 1) * sizeof *grown);
    if (!grown) return;
    r->doc_findings = grown;
    grown[r->n_doc_findings++] = strdup(text);
}

void run_results_free(struct run_results *res)
{
    for (size_t i = 0; i < res->count; i++) {
        struct case_result *r = &res->cases[i];
        for (size_t f = 0; f < r->n_failures; f++) {
            free(r->failures[f].expected);
            free(r->failures[f].observed);
            free(r->failures[f].request);
        }
        free(r->failures);
        for (size_t n = 0; n < r->n_notes; n++)
            free(r->notes[n]);
        free(r->notes);
        for (size_t n = 0; n < r->n_doc_findings; n++)
            free(r->doc_findings[n]);
        free(r->doc_findings);
        free(r->reason);
        free(r->output);
    }
    free(res->cases);
    free(res->runtime.health_json);
    free(res->runtime.metadata_json);
    free(res->runtime.version);
    free(res->runtime.root_path);
    free(res->runtime.grpc_header_names);
    free(res->runtime.rest_header_names);
    res->runtime.grpc_header_names = res->runtime.rest_header_names = NULL;
    free(res->unresponsive);
    free(res->unreachable);
    res->unresponsive = res->unreachable = NULL;
    res->cases = NULL;
    res->count = 0;
}
