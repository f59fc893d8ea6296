/* SPDX-License-Identifier: Apache-2.0 */
/* HTML: a self-contained conformance report that reads like the contract's
 * table of contents — clause groups, each clause with its level, text, and
 * its cases with outcomes and failure details — headed by the verdict, the
 * runtime's identity, the date and the suite version. No external assets. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "clauses.h"
#include "data_dir.h"
#include "html_glance.h"
#include "report.h"
#include "text_util.h"

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em "
    ".6em;text-align:left;vertical-align:top}"
    ".verdict{font-size:1.3em;padding:.4em .8em;display:inline-block;border-radius:.3em}"
    ".full-conformant,.core-conformant{background:#d8f5d8}.not-conformant{background:#f9d6d6}"
    ".incomplete{background:#fbefc8}"
    ".pass{color:#17752a}.fail,.timeout,.error{color:#b3261e;font-weight:bold}"
    ".skip,.not-run,.expected-fail{color:#8a6d00}.unexpected-pass{color:#1a55a8}"
    ".untested{color:#777}.clause{margin:1em 0 .3em}.clause .id{font-weight:bold}"
    ".lvl{font-size:.85em;border:1px solid #aaa;border-radius:.2em;padding:0 .3em}"
    "pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;word-break:break-word;margin:.3em 0}"
    ".failures{margin:.2em 0}.failed li{margin:.2em 0}.failed .obs{color:#555}";

static void esc(FILE *f, const char *s)
{
    text_write_xml(f, s ? s : "");
}

/* primary: the clause the case is listed under first; only there it
 * carries its anchor, so every id in the page is unique. */
static void case_row(FILE *f, const struct case_result *r, bool primary)
{
    const char *st = result_status(r);
    fputs("<tr><td>", f);
    if (primary) {
        fputs("<a id=\"", f);
        esc(f, r->def->id);
        fputs("\"></a>", f);
    }
    esc(f, r->def->id);
    fputs("</td><td>", f);
    esc(f, r->def->title);
    fprintf(f, "</td><td>%s</td><td class=\"%s\">%s</td><td>", case_level_name(r->def->level), st,
            st);
    if (r->outcome != OUT_NOT_RUN) fprintf(f, "%.2f s", r->seconds);
    fputs("</td></tr>\n", f);
    bool detail = r->reason || r->n_failures || r->n_notes || r->in_baseline;
    if (!detail) return;
    fputs("<tr><td></td><td colspan=\"4\">", f);
    if (r->reason) {
        esc(f, r->reason);
        fputs("<br/>", f);
    }
    if (r->in_baseline) {
        fputs("Baseline: ", f);
        esc(f, r->baseline_reason);
        if (r->baseline_link) {
            fputs(" <a href=\"", f);
            esc(f, r->baseline_link);
            fputs("\">", f);
            esc(f, r->baseline_link);
            fputs("</a>", f);
        }
        fputs("<br/>", f);
    }
    if (r->n_failures) {
        fprintf(f, "<div class=\"failures\"><b>%u failure%s</b>", r->failures_total,
                r->failures_total == 1 ? "" : "s");
        for (size_t i = 0; i < r->n_failures; i++) {
            fputs("<pre>expected: ", f);
            esc(f, r->failures[i].expected);
            fputs("\nobserved: ", f);
            esc(f, r->failures[i].observed);
            if (r->failures[i].request) {
                fputs("\nrequest:  ", f);
                esc(f, r->failures[i].request);
            }
            fputs("</pre>", f);
        }
        fputs("</div>", f);
    }
    for (size_t i = 0; i < r->n_notes; i++) {
        fputs("<div>note: ", f);
        esc(f, r->notes[i]);
        fputs("</div>", f);
    }
    fputs("</td></tr>\n", f);
}

/* A section of its own: what the OpenAPI document does not describe. */
static void write_doc_findings(FILE *f, const struct run_results *res)
{
    struct doc_finding_row *rows;
    size_t n = report_doc_findings(res, &rows);
    if (n) {
        fprintf(f, "<h2 id=\"document-findings\">%s</h2>\n<p>Document <code>",
                REPORT_DOC_FINDINGS_TITLE);
        esc(f, res->params.openapi ? res->params.openapi : "?");
        fputs("</code>. The contract requires these; the cases judged them by the contract, so "
              "they are not failures of the runtime.</p>\n<table><tr><th>finding</th>"
              "<th>cases</th></tr>\n",
              f);
    }
    for (size_t i = 0; i < n; i++) {
        fputs("<tr><td>", f);
        esc(f, rows[i].text);
        fputs("</td><td>", f);
        esc(f, rows[i].cases);
        fputs("</td></tr>\n", f);
    }
    if (n) fputs("</table>\n", f);
    report_doc_findings_free(rows, n);
}

/* "P1,P18" -> "P1": the clause whose section holds the case's anchor. */
static void primary_clause(const char *clauses, char *buf, size_t len)
{
    while (*clauses == ' ')
        clauses++;
    size_t n = strcspn(clauses, ", ");
    if (n >= len) n = len - 1;
    memcpy(buf, clauses, n);
    buf[n] = '\0';
}

/* The page opens with what went wrong, each linked to its clause section. */
static void what_failed(FILE *f, const struct run_results *res)
{
    size_t bad = 0;
    for (size_t i = 0; i < res->count; i++)
        bad += result_is_bad(&res->cases[i]);
    fprintf(f, "<h2 id=\"failed\">What failed</h2>\n");
    if (!bad) {
        fputs("<p>No selected case failed, timed out or errored.</p>\n", f);
        return;
    }
    fputs("<ul class=\"failed\">\n", f);
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!result_is_bad(r)) continue;
        char cl[32];
        primary_clause(r->def->clauses, cl, sizeof cl);
        fputs("<li><a href=\"#clause-", f);
        esc(f, cl);
        fputs("\">", f);
        esc(f, cl);
        fputs("</a> <a href=\"#", f);
        esc(f, r->def->id);
        fputs("\">", f);
        esc(f, r->def->id);
        fprintf(f, "</a> <span class=\"%s\">%s</span> ", result_status(r), result_status(r));
        esc(f, r->def->title);
        const char *obs = r->n_failures ? r->failures[0].observed : r->reason;
        if (obs) {
            fputs("<br/><span class=\"obs\">", f);
            if (r->n_failures) {
                fputs("expected ", f);
                esc(f, r->failures[0].expected);
                fputs("; observed ", f);
            }
            esc(f, obs);
            fputs("</span>", f);
        }
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* One cell per clause, coloured by its roll-up. */
static void contract_glance(FILE *f, const struct run_results *res)
{
    struct glance_cell cells[256];
    size_t n = 0;
    for (size_t i = 0; i < clause_count && n < sizeof cells / sizeof cells[0]; i++) {
        struct clause_rollup ru;
        report_clause_rollup(res, clause_table[i].id, &ru);
        cells[n++] = (struct glance_cell){.id = clause_table[i].id,
                                          .status = ru.status,
                                          .text = clause_table[i].text,
                                          .should = clause_table[i].level == LEVEL_SHOULD};
    }
    fputs("<h2 id=\"glance\">The contract at a glance</h2>\n", f);
    html_glance_grid(f, NULL, cells, n, "clause-");
    html_glance_legend(f);
}

static int write_html(FILE *f, const struct run_results *res)
{
    const struct verdict_info *v = &res->verdict;
    const struct runtime_identity *ri = &res->runtime;
    struct result_counts n;
    results_count(res, &n);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
          "<title>sandboxd conformance report</title><style>",
          f);
    fputs(style, f);
    html_glance_style(f);
    fputs("</style></head><body>\n<h1>sandboxd conformance report</h1>\n", f);
    fprintf(f, "<p><span class=\"verdict %s\">%s</span></p>\n", verdict_slug(v->verdict),
            verdict_name(v->verdict));
    if (v->n_reasons) {
        fputs("<ul>", f);
        for (int i = 0; i < v->n_reasons; i++) {
            fputs("<li>", f);
            esc(f, v->reasons[i]);
            fputs("</li>", f);
        }
        fputs("</ul>\n", f);
    }
    fprintf(f,
            "<p>%u selected: %u pass, %u fail, %u timeout, %u error, %u skip, %u expected-fail, "
            "%u unexpected-pass; %u not selected. MUST %u/%u passed, SHOULD %u/%u passed.</p>\n",
            n.selected, n.pass, n.fail, n.timeout, n.error, n.skip, n.expected_fail,
            n.unexpected_pass, n.not_run, v->must.passed, v->must.total, v->should.passed,
            v->should.total);
    what_failed(f, res);
    contract_glance(f, res);
    fputs("<h2 id=\"run\">The run</h2>\n", f);
    fputs("<table>\n", f);
    char gt[512], rt[512];
    const char *rows[][2] = {
        {"Mode", ri->mode ? ri->mode : "attach"},
        {"gRPC address", ri->grpc_addr},
        {"gRPC transport", report_tls_text(&ri->grpc_tls, gt, sizeof gt)},
        {"gRPC headers sent", ri->grpc_header_names},
        {"REST address", ri->rest_addr},
        {"REST transport", report_tls_text(&ri->rest_tls, rt, sizeof rt)},
        {"REST headers sent", ri->rest_header_names},
        {"Launch command", ri->command},
        {"Runtime version", ri->version},
        {"Runtime health", ri->health_json},
        {"Runtime metadata", ri->metadata_json},
        {"Runtime exit", ri->exit_known ? ri->exit_text : NULL},
        {"Sandbox root", ri->root_path},
        {"Started", res->started_at},
        {"Finished", res->finished_at},
        {"Host", res->hostname},
        {"Suite", "sandboxd-conformance " SBX_VERSION " (" SBX_GIT_COMMIT ")"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!rows[i][1]) continue;
        fprintf(f, "<tr><th>%s</th><td>", rows[i][0]);
        esc(f, rows[i][1]);
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "<tr><th>Parameters</th><td>seed %llu, %u jobs, level %s%s",
            (unsigned long long)res->params.seed, res->params.jobs,
            res->params.level ? res->params.level : "full",
            res->params.transport_profile ? ", profile transport" : "");
    const char *opt[][2] = {{"focus", res->params.focus},
                            {"skip", res->params.skip},
                            {"tags", res->params.tags},
                            {"baseline", res->params.baseline_path},
                            {"rerun-failed", res->params.rerun_path}};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        if (opt[i][1]) {
            fprintf(f, ", %s <code>", opt[i][0]);
            esc(f, opt[i][1]);
            fputs("</code>", f);
        }
    fputs("</td></tr>\n", f);
    fputs("</table>\n", f);

    fputs("<h2>Contents</h2>\n<ul>\n", f);
    for (size_t g = 0; g < clause_group_count; g++)
        fprintf(f, "<li><a href=\"#group-%c\">%c — %s</a></li>\n", clause_groups[g].letter,
                clause_groups[g].letter, clause_groups[g].title);
    fputs("</ul>\n", f);

    /* Each clause links to its normative text in the contract document this
     * suite was built with (cases/contract/CONTRACT.md of its data). */
    char contract_buf[PATH_MAX], contract[PATH_MAX];
    data_dir_file("cases/contract/CONTRACT.md", contract_buf, sizeof contract_buf);
    bool have_contract = realpath(contract_buf, contract) != NULL;

    for (size_t g = 0; g < clause_group_count; g++) {
        char letter = clause_groups[g].letter;
        fprintf(f, "<h2 id=\"group-%c\">%c — %s</h2>\n", letter, letter, clause_groups[g].title);
        for (size_t i = 0; i < clause_count; i++) {
            const struct clause *cl = &clause_table[i];
            if (cl->id[0] != letter) continue;
            struct clause_rollup ru;
            report_clause_rollup(res, cl->id, &ru);
            fprintf(f,
                    "<div class=\"clause\" id=\"clause-%s\"><span class=\"id\">%s</span> <span "
                    "class=\"lvl\">%s%s%s</span> ",
                    cl->id, cl->id, case_level_name(cl->level), cl->has_should ? " + SHOULD" : "",
                    cl->launch ? " [launch]" : "");
            esc(f, cl->text);
            if (have_contract) {
                fputs(" <a class=\"rule\" href=\"file://", f);
                esc(f, contract);
                fprintf(f, "#clause-%s\">(the clause)</a>", cl->id);
            }
            fprintf(f, " — <span class=\"%s\">%s</span></div>\n", ru.status, ru.status);
            if (ru.cases == 0) continue;
            fputs("<table><tr><th>case</th><th>title</th><th>level</th><th>outcome</th>"
                  "<th>time</th></tr>\n",
                  f);
            for (size_t k = 0; k < res->count; k++) {
                const char *cls = res->cases[k].def->clauses;
                if (!text_list_has(cls, cl->id)) continue;
                size_t idl = strlen(cl->id);
                while (*cls == ' ')
                    cls++;
                bool primary = strncmp(cls, cl->id, idl) == 0 &&
                               (cls[idl] == '\0' || cls[idl] == ',' || cls[idl] == ' ');
                case_row(f, &res->cases[k], primary);
            }
            fputs("</table>\n", f);
        }
    }
    write_doc_findings(f, res);
    fputs("</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}

int report_html_write(const struct run_results *res, const char *path)
{
    return report_write_file(path, write_html, res);
}
