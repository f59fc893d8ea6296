/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H
/* Reporters. Each writes one file from the run's results; 0 or -1 (errno). */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "results.h"

#define RESULTS_SCHEMA_VERSION 1

/* The results document (reports/results-schema.json, version 1). */
json_t *report_json_build(const struct run_results *res);
int report_json_write(const struct run_results *res, const char *path);
int report_junit_write(const struct run_results *res, const char *path);
int report_tap_write(const struct run_results *res, const char *path);
int report_markdown_write(const struct run_results *res, const char *path);
int report_html_write(const struct run_results *res, const char *path);

/* Per-clause roll-up used by JSON, Markdown and HTML. */
struct clause_rollup {
    unsigned cases, pass, fail, skip, expected_fail, not_run;
    const char *status; /* "pass", "fail", "incomplete", "untested" */
};
void report_clause_rollup(const struct run_results *res, const char *clause_id,
                          struct clause_rollup *out);

/* The run's document findings, each text once, with the cases that found
 * it (comma-separated IDs), in catalog order of their first case. */
struct doc_finding_row {
    const char *text; /* borrowed from the results */
    char *cases;      /* malloc'd */
};
/* Returns the number of rows (*rows malloc'd; free with report_doc_findings_free). */
size_t report_doc_findings(const struct run_results *res, struct doc_finding_row **rows);
void report_doc_findings_free(struct doc_finding_row *rows, size_t n);
/* The heading every report gives that section. */
#define REPORT_DOC_FINDINGS_TITLE "Document findings: what the document does not describe"

/* One surface's transport in words: "cleartext", or "TLSv1.3
 * TLS_AES_256_GCM_SHA384, ALPN h2, server certificate /CN=x (expires ...),
 * verified, client certificate sent". Returns buf. */
const char *report_tls_text(const struct tls_peer *peer, char *buf, size_t buf_len);

/* Writes path atomically (temp file + rename) through a callback. */
int report_write_file(const char *path, int (*fn)(FILE *f, const struct run_results *res),
                      const struct run_results *res);

#endif
