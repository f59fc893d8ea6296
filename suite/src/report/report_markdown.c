/* SPDX-License-Identifier: Apache-2.0 */
/* Markdown: a verdict line, per-group and per-clause tables, then the
 * failures with details (for a pull-request comment or a CI job summary). */
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "clauses.h"
#include "report.h"
#include "text_util.h"

static const char *status_icon(const char *status)
{
    if (strcmp(status, "pass") == 0) return "✅";
    if (strcmp(status, "fail") == 0) return "❌";
    if (strcmp(status, "untested") == 0) return "➖";
    return "⚠️";
}

static void write_doc_findings(FILE *f, const struct run_results *res)
{
    struct doc_finding_row *rows;
    size_t n = report_doc_findings(res, &rows);
    if (n) {
        fprintf(f, "### %s\n\nDocument `", REPORT_DOC_FINDINGS_TITLE);
        text_write_md_cell(f, res->params.openapi ? res->params.openapi : "?");
        fputs("`. The contract requires these; the cases judged them by the contract, so they "
              "are not failures of the runtime.\n\n| finding | cases |\n|---|---|\n",
              f);
    }
    for (size_t i = 0; i < n; i++) {
        fputs("| ", f);
        text_write_md_cell(f, rows[i].text);
        fprintf(f, " | %s |\n", rows[i].cases);
    }
    if (n) fputc('\n', f);
    report_doc_findings_free(rows, n);
}

static int write_md(FILE *f, const struct run_results *res)
{
    const struct verdict_info *v = &res->verdict;
    struct result_counts n;
    results_count(res, &n);
    fprintf(f, "## sandboxd conformance: **%s**\n\n", verdict_name(v->verdict));
    fprintf(f, "| runtime | mode | suite | seed | date |\n|---|---|---|---|---|\n");
    fprintf(f, "| gRPC `%s`, REST `%s` | %s | %s (`%s`) | %llu | %s |\n\n",
            res->runtime.grpc_addr ? res->runtime.grpc_addr : "?",
            res->runtime.rest_addr ? res->runtime.rest_addr : "?",
            res->runtime.mode ? res->runtime.mode : "attach", SBX_VERSION, SBX_GIT_COMMIT,
            (unsigned long long)res->params.seed, res->started_at);
    char gt[512], rt[512];
    fprintf(f, "Transport: gRPC %s; REST %s.\n\n",
            report_tls_text(&res->runtime.grpc_tls, gt, sizeof gt),
            report_tls_text(&res->runtime.rest_tls, rt, sizeof rt));
    const char *gh = res->runtime.grpc_header_names, *rh = res->runtime.rest_header_names;
    if ((gh && *gh) || (rh && *rh))
        fprintf(f, "Headers sent (names only): gRPC %s; REST %s.\n\n", gh && *gh ? gh : "none",
                rh && *rh ? rh : "none");
    fprintf(f,
            "**%u** selected: **%u** pass, **%u** fail, **%u** timeout, **%u** error, **%u** "
            "skip, **%u** expected-fail, **%u** unexpected-pass (%u not selected).\n\n",
            n.selected, n.pass, n.fail, n.timeout, n.error, n.skip, n.expected_fail,
            n.unexpected_pass, n.not_run);
    fprintf(f,
            "MUST: %u/%u passed, %u failed, %u missing. SHOULD: %u/%u passed, %u failed, %u "
            "missing.\n\n",
            v->must.passed, v->must.total, v->must.failed, v->must.missing, v->should.passed,
            v->should.total, v->should.failed, v->should.missing);
    for (int i = 0; i < v->n_reasons; i++)
        fprintf(f, "- %s\n", v->reasons[i]);
    if (v->n_reasons) fputc('\n', f);

    fputs("### Clauses\n\n| clause | level | status | pass | fail | skip | text |\n"
          "|---|---|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < clause_count; i++) {
        const struct clause *cl = &clause_table[i];
        struct clause_rollup ru;
        report_clause_rollup(res, cl->id, &ru);
        fprintf(f, "| %s | %s%s | %s %s | %u | %u | %u | ", cl->id, case_level_name(cl->level),
                cl->launch ? " [launch]" : "", status_icon(ru.status), ru.status, ru.pass, ru.fail,
                ru.skip + ru.expected_fail + ru.not_run);
        text_write_md_cell(f, cl->text);
        fputs(" |\n", f);
    }
    fputc('\n', f);

    bool any = false;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!r->selected || !(result_is_bad(r) || r->expected_fail || r->unexpected_pass)) continue;
        if (!any) fputs("### Failures and baseline changes\n\n", f);
        any = true;
        fprintf(f, "<details><summary><b>%s</b> %s — %s</summary>\n\n", r->def->id,
                result_status(r), r->def->title);
        fprintf(f, "Clauses: %s · level %s\n\n", r->def->clauses, case_level_name(r->def->level));
        if (r->reason) {
            fputs("> ", f);
            text_write_md_cell(f, r->reason);
            fputs("\n\n", f);
        }
        if (r->in_baseline)
            fprintf(f, "Baseline: %s %s\n\n", r->baseline_reason ? r->baseline_reason : "",
                    r->baseline_link ? r->baseline_link : "");
        for (size_t x = 0; x < r->n_failures; x++) {
            fputs("````\nexpected: ", f);
            fputs(r->failures[x].expected, f);
            fputs("\nobserved: ", f);
            fputs(r->failures[x].observed, f);
            if (r->failures[x].request) {
                fputs("\nrequest:  ", f);
                fputs(r->failures[x].request, f);
            }
            fputs("\n````\n", f);
        }
        fputs("</details>\n\n", f);
    }
    write_doc_findings(f, res);
    return ferror(f) ? -1 : 0;
}

int report_markdown_write(const struct run_results *res, const char *path)
{
    return report_write_file(path, write_md, res);
}
