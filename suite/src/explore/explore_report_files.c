/* SPDX-License-Identifier: Apache-2.0 */
/* explore's JUnit, HTML and bundle reports, written from the same xreport as
 * the console and JSON ones. The report holds no header value or launch
 * environment, so none can reach these files. */
#include "explore_report_files.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fs_util.h"
#include "text_util.h"

static double ops_per_second(const struct xreport *r)
{
    return r->seconds > 0 ? (double)r->ops_run / r->seconds : 0.0;
}

static void xml(FILE *f, const char *s)
{
    text_write_xml(f, s ? s : "");
}

static void attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    xml(f, value);
    fputc('"', f);
}

/* Every operation of the minimal reproduction, numbered, escaped. */
static void write_reproduction(FILE *f, const struct xreport_finding *x)
{
    for (size_t k = 0; k < x->n_minimal; k++) {
        char *t = xop_render(&x->minimal[k]);
        fprintf(f, "%zu. ", k + 1);
        xml(f, t ? t : "?");
        fputc('\n', f);
        free(t);
    }
}

static const char *reproduction_state(const struct xreport_finding *x)
{
    if (x->concurrent)
        return !x->shrunk     ? "a round of concurrent jobs (replay file), not shrunk"
               : x->confirmed ? "a round of concurrent jobs (replay file), shrunk, confirmed by "
                                "a re-run"
                              : "a round of concurrent jobs (replay file), shrunk, NOT confirmed";
    if (!x->minimal) return "no reproduction";
    if (!x->shrunk) return "the sequence up to the failing operation (not shrunk)";
    if (x->runtime_lost) return "the sequence as far as it went (the runtime stopped answering)";
    return x->confirmed ? "minimal, confirmed by a re-run" : "minimal, NOT confirmed by a re-run";
}

/* ---- JUnit ---------------------------------------------------------------- */

static int write_junit(FILE *f, const void *arg)
{
    const struct xreport *r = arg;
    size_t kinds = 0;
    for (int k = 0; k < XOP__COUNT; k++)
        kinds += r->cov.cells[k][0].outcome[0] != '\0';
    size_t tests = kinds + (r->n_findings ? r->n_findings : 1);
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, r->seed);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite", f);
    attr(f, "name", "sandboxd-conformance explore");
    fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n", tests,
            r->n_findings, r->seconds + r->shrink_seconds);
    fputs("    <properties>\n", f);
    const char *props[][2] = {{"seed", seed},
                              {"runtime", r->target_a},
                              {"against", r->target_b[0] ? r->target_b : NULL},
                              {"version", SBX_VERSION}};
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
        if (!props[i][1]) continue;
        fputs("      <property", f);
        attr(f, "name", props[i][0]);
        attr(f, "value", props[i][1]);
        fputs("/>\n", f);
    }
    fputs("    </properties>\n", f);
    /* The operations run: one passing testcase per kind, its outcomes. */
    for (int k = 0; k < XOP__COUNT; k++) {
        const struct xcov_cell *row = r->cov.cells[k];
        if (!row[0].outcome[0]) continue;
        fputs("    <testcase classname=\"explore.coverage\"", f);
        attr(f, "name", xop_kind_name((enum xop_kind)k));
        fputs(">\n      <system-out>", f);
        for (size_t i = 0; i < XCOV_OUTCOMES && row[i].outcome[0]; i++) {
            xml(f, row[i].outcome);
            fprintf(f, " x%u\n", row[i].count);
        }
        fputs("</system-out>\n    </testcase>\n", f);
    }
    if (!r->n_findings)
        fputs("    <testcase classname=\"explore\" name=\"no finding: every answer is one the "
              "contract allows\"/>\n",
              f);
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct xreport_finding *x = &r->findings[i];
        char name[96], msg[200];
        snprintf(name, sizeof name, "finding %zu: clause %s (sequence seed %" PRIu64 ")", i + 1,
                 x->clause, x->seq_seed);
        snprintf(msg, sizeof msg, "clause %s%s%s", x->clause, x->side ? ", deviating side " : "",
                 x->side ? x->side : "");
        fputs("    <testcase classname=\"explore.findings\"", f);
        attr(f, "name", name);
        fprintf(f, " time=\"%.3f\">\n      <failure", x->shrink.seconds);
        attr(f, "message", msg);
        attr(f, "type", x->clause);
        fputs(">operation: ", f);
        xml(f, x->failing_op);
        fputs("\nexpected:  ", f);
        xml(f, x->expected);
        fputs("\nobserved:  ", f);
        xml(f, x->observed);
        if (x->observed_b) {
            fputs("\nother:     ", f);
            xml(f, x->observed_b);
        }
        fputs("\nreproduction: ", f);
        xml(f, reproduction_state(x));
        fputc('\n', f);
        write_reproduction(f, x);
        fputs("</failure>\n", f);
        if (x->replay_text) {
            fputs("      <system-out>", f);
            xml(f, x->replay_text);
            fputs("</system-out>\n", f);
        }
        fputs("    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return 0;
}

int xreport_junit(const char *path, const struct xreport *r)
{
    return fs_write_file_atomic(path, write_junit, r);
}

/* ---- HTML ----------------------------------------------------------------- */

static const char html_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em "
    ".6em;text-align:left;vertical-align:top}"
    ".verdict{font-size:1.3em;padding:.4em .8em;display:inline-block;border-radius:.3em}"
    ".clean{background:#d8f5d8}.findings{background:#f9d6d6}"
    "pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;word-break:break-word;margin:.3em 0}"
    ".finding{margin:1em 0}.side{font-weight:bold;color:#b3261e}";

static void html_row(FILE *f, const char *name, const char *value)
{
    if (!value || !value[0]) return;
    fprintf(f, "<tr><th>%s</th><td>", name);
    xml(f, value);
    fputs("</td></tr>\n", f);
}

static void html_finding(FILE *f, size_t i, const struct xreport_finding *x)
{
    fprintf(f, "<div class=\"finding\" id=\"finding-%zu\">\n<h3>Finding %zu: clause ", i + 1,
            i + 1);
    xml(f, x->clause);
    if (x->side) {
        fputs(", deviating side <span class=\"side\">", f);
        xml(f, x->side);
        fputs("</span>", f);
    }
    fputs("</h3>\n<table>\n", f);
    char seed[64];
    snprintf(seed, sizeof seed, "%" PRIu64, x->seq_seed);
    html_row(f, x->original_len ? "Sequence seed" : "Round seed", seed);
    if (x->original_len) {
        char at[64];
        snprintf(at, sizeof at, "%zu of %zu", x->op_index + 1, x->original_len);
        html_row(f, "Failing operation", at);
    }
    html_row(f, "Operation", x->failing_op);
    html_row(f, "Expected", x->expected);
    html_row(f, x->side ? "Deviating answer" : "Observed", x->observed);
    html_row(f, "Other runtime's answer", x->observed_b);
    html_row(f, "Reproduction", reproduction_state(x));
    if (x->concurrent) {
        char s[160];
        snprintf(s, sizeof s, "%zu jobs, %zu operations of their own (from %zu jobs, %zu)",
                 x->conc_jobs, x->conc_ops, x->conc_jobs_before, x->conc_ops_before);
        html_row(f, "Concurrent round", s);
    }
    if (x->shrunk) {
        char s[96];
        snprintf(s, sizeof s, "%u runs, %.1f s%s", x->shrink.runs, x->shrink.seconds,
                 x->shrink.out_of_time ? ", bound reached" : "");
        html_row(f, "Shrinking", s);
    }
    html_row(f, "Replay file", x->saved_replay);
    html_row(f, "Case draft", x->saved_case);
    fputs("</table>\n", f);
    if (x->minimal) {
        fputs("<ol class=\"reproduction\">\n", f);
        for (size_t k = 0; k < x->n_minimal; k++) {
            char *t = xop_render(&x->minimal[k]);
            fputs("<li><code>", f);
            xml(f, t ? t : "?");
            fputs("</code></li>\n", f);
            free(t);
        }
        fputs("</ol>\n", f);
    }
    if (x->replay_text) {
        fputs("<h4>Replay file</h4><pre class=\"replay\">", f);
        xml(f, x->replay_text);
        fputs("</pre>\n", f);
    }
    if (x->case_draft) {
        fputs("<h4>Draft of a case</h4><pre class=\"case-draft\">", f);
        xml(f, x->case_draft);
        fputs("</pre>\n", f);
    }
    fputs("</div>\n", f);
}

static int write_html(FILE *f, const void *arg)
{
    const struct xreport *r = arg;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
          "<title>sandboxd-conformance explore</title><style>",
          f);
    fputs(html_style, f);
    fputs("</style></head><body>\n<h1>sandboxd-conformance explore</h1>\n", f);
    if (r->n_findings)
        fprintf(f, "<p><span class=\"verdict findings\">%zu finding%s</span></p>\n", r->n_findings,
                r->n_findings == 1 ? "" : "s");
    else
        fputs("<p><span class=\"verdict clean\">no finding</span>: every answer is one the "
              "contract allows</p>\n",
              f);
    fputs("<h2 id=\"run\">The run</h2>\n<table>\n", f);
    char seed[24], text[200];
    snprintf(seed, sizeof seed, "%" PRIu64, r->seed);
    html_row(f, "Seed", seed);
    html_row(f, "Runtime (A)", r->target_a);
    html_row(f, "Against (B)", r->target_b);
    snprintf(text, sizeof text, "%zu in %u sequence%s, %.1f s (%.1f/s)", r->ops_run, r->sequences,
             r->sequences == 1 ? "" : "s", r->seconds, ops_per_second(r));
    html_row(f, "Operations", text);
    if (r->jobs > 1) {
        snprintf(text, sizeof text, "%u, with %zu contended PUTs and GETs of shared files", r->jobs,
                 r->contended);
        html_row(f, "Concurrent jobs", text);
    }
    if (r->target_b[0]) {
        snprintf(text, sizeof text, "%u", r->open_disagreements);
        html_row(f, "Answers that differ where the contract leaves them open", text);
    }
    snprintf(text, sizeof text, "%.1f s", r->shrink_seconds);
    html_row(f, "Shrinking", text);
    html_row(f, "Suite", "sandboxd-conformance " SBX_VERSION);
    fputs("</table>\n<h2 id=\"coverage\">Coverage: operation &#215; outcome</h2>\n", f);
    fputs("<table class=\"coverage\"><tr><th>operation</th><th>outcomes (count)</th></tr>\n", f);
    for (int k = 0; k < XOP__COUNT; k++) {
        const struct xcov_cell *row = r->cov.cells[k];
        if (!row[0].outcome[0]) continue;
        fputs("<tr><td>", f);
        xml(f, xop_kind_name((enum xop_kind)k));
        fputs("</td><td>", f);
        for (size_t i = 0; i < XCOV_OUTCOMES && row[i].outcome[0]; i++) {
            if (i) fputs(", ", f);
            xml(f, row[i].outcome);
            fprintf(f, " &#215;%u", row[i].count);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n<h2 id=\"findings\">Findings</h2>\n", f);
    if (!r->n_findings) fputs("<p>None.</p>\n", f);
    for (size_t i = 0; i < r->n_findings; i++)
        html_finding(f, i, &r->findings[i]);
    fputs("</body></html>\n", f);
    return 0;
}

int xreport_html(const char *path, const struct xreport *r)
{
    return fs_write_file_atomic(path, write_html, r);
}

/* ---- bundle --------------------------------------------------------------- */

static int write_text(FILE *f, const void *arg)
{
    fputs(arg, f);
    return 0;
}

static int write_console(FILE *f, const void *arg)
{
    xreport_console(f, arg);
    return 0;
}

int xreport_bundle(const char *dir, const struct xreport *r, char *err, size_t err_len)
{
    char path[PATH_MAX], failed[PATH_MAX] = "";
    int saved_errno = 0;
    err[0] = '\0';
#define BUNDLE_FILE(name) (snprintf(path, sizeof path, "%s/%s", dir, name), path)
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if (!failed[0] && (call) != 0) {                                                           \
            saved_errno = errno;                                                                   \
            snprintf(failed, sizeof failed, "%s", path);                                           \
        }                                                                                          \
    } while (0)
    snprintf(path, sizeof path, "%s", dir);
    TRY(fs_mkdir_p(dir, 0755));
    TRY(xreport_json(BUNDLE_FILE("explore.json"), r, err, err_len));
    TRY(xreport_junit(BUNDLE_FILE("junit.xml"), r));
    TRY(xreport_html(BUNDLE_FILE("report.html"), r));
    TRY(fs_write_file_atomic(BUNDLE_FILE("report.txt"), write_console, r));
    if (r->n_findings) TRY(fs_mkdir_p(BUNDLE_FILE("findings"), 0755));
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct xreport_finding *x = &r->findings[i];
        char name[160];
        snprintf(name, sizeof name, "findings/%zu-%s.replay.json", i + 1, x->clause);
        if (x->replay_text)
            TRY(fs_write_file_atomic(BUNDLE_FILE(name), write_text, x->replay_text));
        snprintf(name, sizeof name, "findings/%zu-%s.case.c", i + 1, x->clause);
        if (x->case_draft) TRY(fs_write_file_atomic(BUNDLE_FILE(name), write_text, x->case_draft));
    }
    char *readme = text_fmt(
        "sandboxd-conformance explore bundle\n\n"
        "verdict:   %s\nseed:      %" PRIu64 "\nsuite:     sandboxd-conformance %s\n\n"
        "explore.json   the report as JSON (coverage, findings, replay files, case drafts)\n"
        "junit.xml      JUnit XML: one testcase per operation kind, one failing per finding\n"
        "report.html    the report as a page\nreport.txt     the console report\n%s",
        r->n_findings ? "findings" : "no finding", r->seed, SBX_VERSION,
        r->n_findings ? "findings/      each finding's replay file (explore --replay) and case "
                        "draft\n"
                      : "");
    if (!readme) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    TRY(fs_write_file_atomic(BUNDLE_FILE("README.txt"), write_text, readme));
    free(readme);
#undef TRY
#undef BUNDLE_FILE
    if (failed[0]) {
        if (saved_errno)
            snprintf(err, err_len, "cannot write %s: %s", failed, strerror(saved_errno));
        else if (!err[0])
            snprintf(err, err_len, "cannot write %s", failed);
        return -1;
    }
    return 0;
}
