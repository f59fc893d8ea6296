/* SPDX-License-Identifier: Apache-2.0 */
/* What a run writes: the per-case log lines and progress, the reports
 * asked for, and the certification bundle. */
#include "runner_reports.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fs_util.h"
#include "report.h"
#include "verdict.h"

void runner_log_case(int fd, const struct case_result *r)
{
    if (fd < 0) return;
    dprintf(fd, "=== %s %s (%.2f s, seed %016llx) %s\n", r->def->id, result_status(r), r->seconds,
            (unsigned long long)r->seed, r->def->title);
    if (r->reason) dprintf(fd, "    reason: %s\n", r->reason);
    for (size_t i = 0; i < r->n_failures; i++) {
        dprintf(fd, "    expected: %s\n    observed: %s\n", r->failures[i].expected,
                r->failures[i].observed);
        if (r->failures[i].request) dprintf(fd, "    request:  %s\n", r->failures[i].request);
    }
    if (r->failures_total > r->n_failures)
        dprintf(fd, "    (%u failures in all)\n", r->failures_total);
    for (size_t i = 0; i < r->n_notes; i++)
        dprintf(fd, "    note: %s\n", r->notes[i]);
    if (r->output && *r->output)
        dprintf(fd, "    --- output (%zu bytes%s) ---\n%s\n    --- end of output ---\n",
                r->output_total, r->output_total > strlen(r->output) ? ", truncated" : "",
                r->output);
}

void runner_on_case_done(void *ud, const struct case_result *r, size_t done, size_t total)
{
    struct runner_progress *p = ud;
    console_case_done(p->con, r, done, total);
    runner_log_case(p->log_fd, r);
}

static int write_bundle(const char *dir, const struct run_results *res, const char *log_path,
                        const char *runtime_log)
{
    if (fs_mkdir_p(dir, 0755) != 0) return -1;
    char path[PATH_MAX];
    int rc = 0;
#define BUNDLE_FILE(name) (snprintf(path, sizeof path, "%s/%s", dir, name), path)
    rc |= report_json_write(res, BUNDLE_FILE("results.json"));
    rc |= report_junit_write(res, BUNDLE_FILE("junit.xml"));
    rc |= report_tap_write(res, BUNDLE_FILE("results.tap"));
    rc |= report_markdown_write(res, BUNDLE_FILE("report.md"));
    rc |= report_html_write(res, BUNDLE_FILE("report.html"));
    if (log_path) rc |= fs_copy_file(log_path, BUNDLE_FILE("run.log"));
    if (runtime_log && access(runtime_log, R_OK) == 0)
        rc |= fs_copy_file(runtime_log, BUNDLE_FILE("runtime.log"));
    json_t *doc = report_json_build(res);
    json_t *id = json_object();
    json_object_set(id, "suite", json_object_get(doc, "suite"));
    json_object_set(id, "runtime", json_object_get(doc, "runtime"));
    json_object_set(id, "parameters", json_object_get(doc, "parameters"));
    json_object_set(id, "verdict", json_object_get(doc, "verdict"));
    json_object_set_new(id, "started_at", json_string(res->started_at));
    json_object_set_new(id, "host", json_string(res->hostname));
    rc |= json_dump_file(id, BUNDLE_FILE("identity.json"), JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(id);
    json_decref(doc);
    FILE *f = fopen(BUNDLE_FILE("README.txt"), "w");
    if (f) {
        fprintf(f,
                "sandboxd conformance certification bundle\n\n"
                "verdict:   %s\nsuite:     sandboxd-conformance %s (%s)\nstarted:   %s\n\n"
                "identity.json  runtime identity (addresses, command, version, exit), run "
                "parameters, suite version and commit, verdict\n"
                "results.json   every case's result (schema_version %d)\n"
                "junit.xml      JUnit XML\nresults.tap    TAP 13\n"
                "report.html    the conformance report by clause\nreport.md      "
                "Markdown summary\nrun.log        the full log\n%s",
                verdict_name(res->verdict.verdict), SBX_VERSION, SBX_GIT_COMMIT, res->started_at,
                RESULTS_SCHEMA_VERSION,
                runtime_log ? "runtime.log    the launched runtime's stdout and stderr\n" : "");
        if (fclose(f) != 0) rc = -1;
    } else {
        rc = -1;
    }
#undef BUNDLE_FILE
    return rc ? -1 : 0;
}

int runner_write_reports(const struct cli_opts *o, const struct run_results *res,
                         const char *log_path, const char *runtime_log)
{
    int rc = 0;
    struct {
        const char *path;
        int (*fn)(const struct run_results *, const char *);
        const char *what;
    } reps[] = {{o->json, report_json_write, "JSON"},
                {o->junit, report_junit_write, "JUnit"},
                {o->tap, report_tap_write, "TAP"},
                {o->markdown, report_markdown_write, "Markdown"},
                {o->html, report_html_write, "HTML"}};
    for (size_t i = 0; i < sizeof reps / sizeof reps[0]; i++) {
        if (!reps[i].path) continue;
        if (reps[i].fn(res, reps[i].path) != 0) {
            fprintf(stderr, "sandboxd-conformance: cannot write the %s report %s: %s\n",
                    reps[i].what, reps[i].path, strerror(errno));
            rc = -1;
        }
    }
    if (o->bundle && write_bundle(o->bundle, res, log_path, runtime_log) != 0) {
        fprintf(stderr, "sandboxd-conformance: cannot write the bundle %s: %s\n", o->bundle,
                strerror(errno));
        rc = -1;
    }
    if (o->log && log_path && fs_copy_file(log_path, o->log) != 0) {
        fprintf(stderr, "sandboxd-conformance: cannot write the log %s: %s\n", o->log,
                strerror(errno));
        rc = -1;
    }
    return rc;
}
