/* SPDX-License-Identifier: Apache-2.0 */
/* JUnit XML: one <testsuite> per clause group, one <testcase> per selected
 * case (classname = clause group). Valid against the common Jenkins/Ant
 * JUnit schema (suite/tests/junit.xsd). Timeouts are failures of type
 * "timeout"; baseline expected failures are reported as skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clauses.h"
#include "report.h"
#include "text_util.h"

static void attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    text_write_xml(f, value);
    fputc('"', f);
}

static void failure_text(FILE *f, const struct case_result *r)
{
    for (size_t i = 0; i < r->n_failures; i++) {
        const struct failure *x = &r->failures[i];
        fputs("expected: ", f);
        text_write_xml(f, x->expected);
        fputs("\nobserved: ", f);
        text_write_xml(f, x->observed);
        if (x->request) {
            fputs("\nrequest:  ", f);
            text_write_xml(f, x->request);
        }
        fputs("\n\n", f);
    }
    if (r->failures_total > r->n_failures)
        fprintf(f, "(%u more failures not shown)\n", r->failures_total - (unsigned)r->n_failures);
}

static void write_case(FILE *f, const struct case_result *r)
{
    char group[2] = {text_clause_group(r->def->clauses), 0};
    char name[512];
    snprintf(name, sizeof name, "%s %s", r->def->id, r->def->title);
    fputs("    <testcase", f);
    attr(f, "classname", group);
    attr(f, "name", name);
    fprintf(f, " time=\"%.3f\">\n", r->seconds);
    if (r->expected_fail) {
        char msg[600];
        snprintf(msg, sizeof msg, "expected failure (baseline): %s",
                 r->baseline_reason ? r->baseline_reason : "no reason given");
        fputs("      <skipped", f);
        attr(f, "message", msg);
        fputs("/>\n", f);
    } else if (r->outcome == OUT_SKIP) {
        fputs("      <skipped", f);
        attr(f, "message", r->reason ? r->reason : "skipped");
        fputs("/>\n", f);
    } else if (r->outcome == OUT_ERROR) {
        fputs("      <error", f);
        attr(f, "message", r->reason ? r->reason : "error");
        attr(f, "type", "error");
        fputs(">", f);
        failure_text(f, r);
        fputs("</error>\n", f);
    } else if (r->outcome == OUT_FAIL || r->outcome == OUT_TIMEOUT) {
        const char *msg = r->outcome == OUT_TIMEOUT
                              ? (r->reason ? r->reason : "timeout")
                              : (r->n_failures ? r->failures[0].expected : "failed");
        fputs("      <failure", f);
        attr(f, "message", msg);
        attr(f, "type", r->outcome == OUT_TIMEOUT ? "timeout" : "fail");
        fputs(">", f);
        failure_text(f, r);
        fputs("</failure>\n", f);
    }
    if (r->n_notes || r->n_doc_findings || r->unexpected_pass || r->output) {
        fputs("      <system-out>", f);
        if (r->unexpected_pass)
            fputs("unexpected pass: listed in the baseline but passed now\n", f);
        for (size_t i = 0; i < r->n_doc_findings; i++) {
            fputs("document finding (judged by the contract): ", f);
            text_write_xml(f, r->doc_findings[i]);
            fputc('\n', f);
        }
        for (size_t i = 0; i < r->n_notes; i++) {
            fputs("note: ", f);
            text_write_xml(f, r->notes[i]);
            fputc('\n', f);
        }
        if (r->output) text_write_xml(f, r->output);
        fputs("</system-out>\n", f);
    }
    fputs("    </testcase>\n", f);
}

static int write_junit(FILE *f, const struct run_results *res)
{
    unsigned tests = 0, failures = 0, errors = 0;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!r->selected || r->outcome == OUT_NOT_RUN) continue;
        tests++;
        if (r->expected_fail || r->outcome == OUT_SKIP) continue;
        if (r->outcome == OUT_ERROR)
            errors++;
        else if (r->outcome == OUT_FAIL || r->outcome == OUT_TIMEOUT)
            failures++;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f,
            "<testsuites name=\"sandboxd-conformance\" tests=\"%u\" failures=\"%u\" "
            "errors=\"%u\" time=\"%.3f\">\n",
            tests, failures, errors, res->seconds);
    struct doc_finding_row *rows;
    size_t nrows = report_doc_findings(res, &rows);
    for (size_t g = 0; g < clause_group_count; g++) {
        char letter = clause_groups[g].letter;
        unsigned t = 0, fl = 0, er = 0, sk = 0;
        double secs = 0;
        for (size_t i = 0; i < res->count; i++) {
            const struct case_result *r = &res->cases[i];
            if (!r->selected || r->outcome == OUT_NOT_RUN ||
                text_clause_group(r->def->clauses) != letter)
                continue;
            t++;
            secs += r->seconds;
            if (r->expected_fail || r->outcome == OUT_SKIP)
                sk++;
            else if (r->outcome == OUT_ERROR)
                er++;
            else if (r->outcome == OUT_FAIL || r->outcome == OUT_TIMEOUT)
                fl++;
        }
        if (t == 0) continue;
        char name[128];
        snprintf(name, sizeof name, "%c: %s", letter, clause_groups[g].title);
        char id[24];
        snprintf(id, sizeof id, "%zu", g);
        fputs("  <testsuite", f);
        attr(f, "name", name);
        fprintf(f, " tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\"", t,
                fl, er, sk, secs);
        attr(f, "timestamp", res->started_at);
        attr(f, "hostname", res->hostname[0] ? res->hostname : "localhost");
        attr(f, "id", id);
        attr(f, "package", "sandboxd-conformance");
        fputs(">\n    <properties>\n", f);
        char seed[32], gt[512], rt[512];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)res->params.seed);
        const char *props[][2] = {
            {"suite.version", SBX_VERSION},
            {"suite.commit", SBX_GIT_COMMIT},
            {"runtime.mode", res->runtime.mode ? res->runtime.mode : "attach"},
            {"runtime.grpc", res->runtime.grpc_addr ? res->runtime.grpc_addr : ""},
            {"runtime.rest", res->runtime.rest_addr ? res->runtime.rest_addr : ""},
            {"runtime.grpc.transport", report_tls_text(&res->runtime.grpc_tls, gt, sizeof gt)},
            {"runtime.rest.transport", report_tls_text(&res->runtime.rest_tls, rt, sizeof rt)},
            {"runtime.grpc.header_names",
             res->runtime.grpc_header_names ? res->runtime.grpc_header_names : ""},
            {"runtime.rest.header_names",
             res->runtime.rest_header_names ? res->runtime.rest_header_names : ""},
            {"seed", seed},
            {"verdict", verdict_name(res->verdict.verdict)},
        };
        for (size_t p = 0; p < sizeof props / sizeof props[0]; p++) {
            fputs("      <property", f);
            attr(f, "name", props[p][0]);
            attr(f, "value", props[p][1]);
            fputs("/>\n", f);
        }
        /* Run-level like the properties above: every suite carries them. */
        fputs("      <property", f);
        attr(f, "name", "document");
        attr(f, "value", res->params.openapi ? res->params.openapi : "");
        fputs("/>\n", f);
        for (size_t k = 0; k < nrows; k++) {
            char *value = text_fmt("%s [%s]", rows[k].text, rows[k].cases);
            fputs("      <property", f);
            attr(f, "name", "document.finding");
            attr(f, "value", value ? value : rows[k].text);
            fputs("/>\n", f);
            free(value);
        }
        fputs("    </properties>\n", f);
        for (size_t i = 0; i < res->count; i++) {
            const struct case_result *r = &res->cases[i];
            if (r->selected && r->outcome != OUT_NOT_RUN &&
                text_clause_group(r->def->clauses) == letter)
                write_case(f, r);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    report_doc_findings_free(rows, nrows);
    return ferror(f) ? -1 : 0;
}

int report_junit_write(const struct run_results *res, const char *path)
{
    return report_write_file(path, write_junit, res);
}
