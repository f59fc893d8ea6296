/* SPDX-License-Identifier: Apache-2.0 */
/* Console reporter. */
#include "console.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clauses.h"
#include "report.h"
#include "text_util.h"

#define C_RESET "\033[0m"
#define C_GREEN "\033[32m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_BLUE "\033[34m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"

void console_init(struct console *c, FILE *out, int color_opt, bool quiet)
{
    c->out = out;
    c->quiet = quiet;
    if (color_opt >= 0) {
        c->color = color_opt == 1;
    } else {
        const char *nc = getenv("NO_COLOR");
        const char *term = getenv("TERM");
        c->color = isatty(fileno(out)) && !(nc && *nc) && !(term && strcmp(term, "dumb") == 0);
    }
}

static const char *status_color(const char *st)
{
    if (strcmp(st, "pass") == 0) return C_GREEN;
    if (strcmp(st, "fail") == 0 || strcmp(st, "timeout") == 0 || strcmp(st, "error") == 0)
        return C_RED;
    if (strcmp(st, "unexpected-pass") == 0) return C_BLUE;
    return C_YELLOW;
}

static void paint(struct console *c, const char *color, const char *text)
{
    if (c->color)
        fprintf(c->out, "%s%s%s", color, text, C_RESET);
    else
        fputs(text, c->out);
}

void console_case_done(struct console *c, const struct case_result *r, size_t done, size_t total)
{
    if (c->quiet) return;
    const char *st = result_status(r);
    char label[20];
    snprintf(label, sizeof label, "%-15s", st);
    for (char *p = label; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
    fprintf(c->out, "[%4zu/%zu] ", done, total);
    paint(c, status_color(st), label);
    fprintf(c->out, " %-10s %s", r->def->id, r->def->title);
    if (r->outcome != OUT_SKIP || r->seconds > 0) fprintf(c->out, " (%.2f s)", r->seconds);
    fputc('\n', c->out);
    if (r->reason && r->outcome != OUT_PASS) {
        fputs("           ", c->out);
        paint(c, C_DIM, r->reason);
        fputc('\n', c->out);
    }
    if (r->outcome == OUT_FAIL && r->n_failures && !r->expected_fail) {
        fputs("           expected: ", c->out);
        fputs(r->failures[0].expected, c->out);
        fputc('\n', c->out);
    }
    fflush(c->out);
}

static void print_failure_details(struct console *c, const struct case_result *r)
{
    char head[600];
    snprintf(head, sizeof head, "%s %s", r->def->id, result_status(r));
    fputs("\n", c->out);
    paint(c, C_BOLD, head);
    fprintf(c->out, "  %s  [%s, %s]\n", r->def->title, r->def->clauses,
            r->def->level == LEVEL_MUST ? "MUST" : "SHOULD");
    if (r->reason) fprintf(c->out, "    %s\n", r->reason);
    size_t show = r->n_failures < 5 ? r->n_failures : 5;
    for (size_t i = 0; i < show; i++) {
        const struct failure *f = &r->failures[i];
        fprintf(c->out, "    expected: %s\n    observed: %s\n", f->expected, f->observed);
        if (f->request) fprintf(c->out, "    request:  %s\n", f->request);
    }
    if (r->failures_total > show)
        fprintf(c->out, "    (%u more failures in the reports)\n",
                r->failures_total - (unsigned)show);
    for (size_t i = 0; i < r->n_notes && i < 3; i++)
        fprintf(c->out, "    note: %s\n", r->notes[i]);
}

void console_summary(struct console *c, const struct run_results *res)
{
    fputs("\nSummary by clause group\n", c->out);
    fprintf(c->out, "  %-46s %5s %5s %5s %5s %5s %5s\n", "group", "pass", "fail", "t/o", "error",
            "skip", "xfail");
    for (size_t g = 0; g < clause_group_count; g++) {
        char letter = clause_groups[g].letter;
        unsigned pass = 0, fail = 0, to = 0, err = 0, skip = 0, xf = 0, any = 0;
        for (size_t i = 0; i < res->count; i++) {
            const struct case_result *r = &res->cases[i];
            if (!r->selected || r->outcome == OUT_NOT_RUN ||
                text_clause_group(r->def->clauses) != letter)
                continue;
            any++;
            if (r->expected_fail)
                xf++;
            else if (r->outcome == OUT_PASS)
                pass++;
            else if (r->outcome == OUT_FAIL)
                fail++;
            else if (r->outcome == OUT_TIMEOUT)
                to++;
            else if (r->outcome == OUT_ERROR)
                err++;
            else
                skip++;
        }
        if (!any) continue;
        char name[64];
        snprintf(name, sizeof name, "%c  %s", letter, clause_groups[g].title);
        fprintf(c->out, "  %-46s %5u %5u %5u %5u %5u %5u\n", name, pass, fail, to, err, skip, xf);
    }
    bool header = false;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!r->selected || !(result_is_bad(r) || r->unexpected_pass)) continue;
        if (!header) fputs("\nFailures\n", c->out);
        header = true;
        print_failure_details(c, r);
    }
    struct doc_finding_row *rows;
    size_t nrows = report_doc_findings(res, &rows);
    if (nrows) {
        fprintf(c->out, "\n%s (%s; judged by the contract, not failures)\n",
                REPORT_DOC_FINDINGS_TITLE, res->params.openapi ? res->params.openapi : "?");
        for (size_t i = 0; i < nrows; i++)
            fprintf(c->out, "  - %s [%s]\n", rows[i].text, rows[i].cases);
    }
    report_doc_findings_free(rows, nrows);
    struct result_counts n;
    results_count(res, &n);
    fprintf(c->out,
            "\n%u cases selected of %u: %u pass, %u fail, %u timeout, %u error, %u skip, %u "
            "expected-fail, %u unexpected-pass (%.1f s, seed %llu)\n",
            n.selected, n.total, n.pass, n.fail, n.timeout, n.error, n.skip, n.expected_fail,
            n.unexpected_pass, res->seconds, (unsigned long long)res->params.seed);
    const struct verdict_info *v = &res->verdict;
    fprintf(c->out,
            "MUST %u/%u passed (%u failed, %u missing); SHOULD %u/%u passed (%u "
            "failed, %u missing)\n",
            v->must.passed, v->must.total, v->must.failed, v->must.missing, v->should.passed,
            v->should.total, v->should.failed, v->should.missing);
    fputs("Verdict: ", c->out);
    const char *vc = v->verdict == VERDICT_NOT          ? C_RED
                     : v->verdict == VERDICT_INCOMPLETE ? C_YELLOW
                                                        : C_GREEN;
    paint(c, vc, verdict_name(v->verdict));
    fputc('\n', c->out);
    for (int i = 0; i < v->n_reasons; i++)
        fprintf(c->out, "  - %s\n", v->reasons[i]);
    fflush(c->out);
}
