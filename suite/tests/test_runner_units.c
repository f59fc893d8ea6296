/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the runner's pure parts: verdict and exit code, text
 * sanitising, launch command words, baseline parsing, rerun sets, and the
 * JSON document read back with jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "baseline.h"
#include "catalog.h"
#include "launcher.h"
#include "report.h"
#include "results.h"
#include "selection.h"
#include "text_util.h"
#include "verdict.h"
#include "worker_event.h"

static void noop(struct case_ctx *ctx)
{
    (void)ctx;
}

static const struct case_def defs[] = {
    {.id = "P1-001", .title = "must one", .clauses = "P1", .level = LEVEL_MUST, .fn = noop},
    {.id = "P2-001", .title = "must two", .clauses = "P2", .level = LEVEL_MUST, .fn = noop},
    {.id = "G7-001", .title = "should", .clauses = "G7", .level = LEVEL_SHOULD, .fn = noop},
    {.id = "T1-001",
     .title = "transport",
     .clauses = "T1",
     .level = LEVEL_MUST,
     .tags = "transport",
     .needs = NEEDS_TRANSPORT,
     .fn = noop},
};
#define NDEFS (sizeof defs / sizeof defs[0])

static struct case_result results[NDEFS];

static struct run_results make(enum outcome o0, enum outcome o1, enum outcome o2)
{
    memset(results, 0, sizeof results);
    enum outcome o[] = {o0, o1, o2, OUT_SKIP};
    for (size_t i = 0; i < NDEFS; i++) {
        results[i].def = &defs[i];
        results[i].selected = true;
        results[i].in_level = i < 3; /* no transport profile */
        results[i].outcome = o[i];
    }
    struct run_results r = {.cases = results, .count = NDEFS};
    return r;
}

static void verdict_full_core_not_incomplete(void **state)
{
    (void)state;
    struct run_results r = make(OUT_PASS, OUT_PASS, OUT_PASS);
    verdict_compute(&r, true, false);
    assert_int_equal(r.verdict.verdict, VERDICT_FULL);
    assert_int_equal(r.verdict.exit_code, 0);
    assert_true(r.verdict.complete);
    assert_int_equal(r.verdict.must.total, 2); /* the transport case is not counted */

    r = make(OUT_PASS, OUT_PASS, OUT_FAIL);
    verdict_compute(&r, true, false);
    assert_int_equal(r.verdict.verdict, VERDICT_CORE);
    assert_int_equal(r.verdict.exit_code, 1);

    r = make(OUT_PASS, OUT_PASS, OUT_SKIP);
    verdict_compute(&r, true, true);
    assert_int_equal(r.verdict.verdict, VERDICT_CORE);
    assert_false(r.verdict.complete);
    assert_int_equal(r.verdict.exit_code, 1); /* --require-complete */

    r = make(OUT_TIMEOUT, OUT_PASS, OUT_PASS);
    verdict_compute(&r, true, false);
    assert_int_equal(r.verdict.verdict, VERDICT_NOT);
    assert_int_equal(r.verdict.exit_code, 1);

    r = make(OUT_SKIP, OUT_PASS, OUT_PASS);
    verdict_compute(&r, true, false);
    assert_int_equal(r.verdict.verdict, VERDICT_INCOMPLETE);
    assert_int_equal(r.verdict.exit_code, 0);

    r = make(OUT_PASS, OUT_PASS, OUT_PASS);
    results[1].selected = false; /* filtered out */
    results[1].outcome = OUT_NOT_RUN;
    verdict_compute(&r, true, false);
    assert_int_equal(r.verdict.verdict, VERDICT_INCOMPLETE);

    r = make(OUT_FAIL, OUT_PASS, OUT_PASS);
    results[0].expected_fail = true;
    verdict_compute(&r, true, false);
    assert_int_equal(r.verdict.verdict, VERDICT_INCOMPLETE);
    assert_int_equal(r.verdict.exit_code, 0);

    r = make(OUT_ERROR, OUT_PASS, OUT_PASS);
    verdict_compute(&r, false, false);
    assert_int_equal(r.verdict.verdict, VERDICT_NOT);

    /* core level: SHOULD cases are outside the set */
    r = make(OUT_PASS, OUT_PASS, OUT_NOT_RUN);
    results[2].selected = false;
    results[2].in_level = false;
    verdict_compute(&r, false, true);
    assert_int_equal(r.verdict.verdict, VERDICT_CORE);
    assert_true(r.verdict.complete);
    assert_int_equal(r.verdict.exit_code, 0);
}

static void sanitize_escapes_and_bounds(void **state)
{
    (void)state;
    char *s = text_sanitize("a\x01\xff\xc3\xa9\n", 6, 100, false);
    assert_string_equal(s, "a\\x01\\xFF\xc3\xa9\\n");
    free(s);
    s = text_sanitize("\xc0\xae", 2, 100, true); /* overlong '.' is not UTF-8 */
    assert_string_equal(s, "\\xC0\\xAE");
    free(s);
    char big[5000];
    memset(big, 'z', sizeof big);
    s = text_sanitize(big, sizeof big, 100, true);
    assert_non_null(strstr(s, "... (5000 bytes total)"));
    assert_true(strlen(s) < 140);
    free(s);
}

static void list_membership(void **state)
{
    (void)state;
    assert_true(text_list_has("files, traversal,errors", "traversal"));
    assert_false(text_list_has("files,traversal", "file"));
    assert_int_equal(text_clause_group(" S1,S2"), 'S');
}

static void launch_words(void **state)
{
    (void)state;
    char err[200];
    char **w = launcher_split_words("run 'a b' \"c \\\"d\\\"\" e\\ f {root}", err, sizeof err);
    assert_non_null(w);
    assert_string_equal(w[0], "run");
    assert_string_equal(w[1], "a b");
    assert_string_equal(w[2], "c \"d\"");
    assert_string_equal(w[3], "e f");
    assert_string_equal(w[4], "{root}");
    assert_null(w[5]);
    launcher_free_words(w);
    assert_null(launcher_split_words("run 'open", err, sizeof err));
    assert_non_null(strstr(err, "unterminated"));
    assert_null(launcher_split_words("   ", err, sizeof err));
}

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/sbxc-unit-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void baseline_forms(void **state)
{
    (void)state;
    char err[300];
    struct baseline b;
    char *p = write_temp("expected_failures:\n  - id: P1-001\n    reason: r\n    link: l\n"
                         "  - P2-001\n");
    assert_int_equal(baseline_load(p, &b, err, sizeof err), 0);
    assert_int_equal(b.count, 2);
    assert_string_equal(baseline_find(&b, "P1-001")->link, "l");
    assert_non_null(baseline_find(&b, "P2-001"));
    assert_null(baseline_find(&b, "G7-001"));
    baseline_free(&b);
    unlink(p);
    free(p);
    p = write_temp("- id: G7-001\n  reason: top-level list\n");
    assert_int_equal(baseline_load(p, &b, err, sizeof err), 0);
    assert_int_equal(b.count, 1);
    baseline_free(&b);
    unlink(p);
    free(p);
    p = write_temp("expected_failures: {id: x}\n");
    assert_int_equal(baseline_load(p, &b, err, sizeof err), -1);
    unlink(p);
    free(p);
    p = write_temp("- [unclosed\n");
    assert_int_equal(baseline_load(p, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, ":"));
    unlink(p);
    free(p);
}

static void rerun_ids(void **state)
{
    (void)state;
    char err[300];
    char *p = write_temp("{\"cases\":[{\"id\":\"A\",\"outcome\":\"pass\"},"
                         "{\"id\":\"B\",\"outcome\":\"fail\"},{\"id\":\"C\",\"outcome\":"
                         "\"timeout\"},{\"id\":\"D\",\"outcome\":\"error\"},{\"id\":\"E\","
                         "\"outcome\":\"skip\"}]}");
    char **ids = selection_failed_ids(p, err, sizeof err);
    assert_non_null(ids);
    assert_string_equal(ids[0], "B");
    assert_string_equal(ids[1], "C");
    assert_string_equal(ids[2], "D");
    assert_null(ids[3]);
    selection_free_ids(ids);
    unlink(p);
    free(p);
    p = write_temp("{\"no\": 1}");
    assert_null(selection_failed_ids(p, err, sizeof err));
    unlink(p);
    free(p);
}

static void json_reads_back(void **state)
{
    (void)state;
    struct run_results r = make(OUT_FAIL, OUT_PASS, OUT_SKIP);
    case_result_add_failure(&results[0], "exp <&>", "obs \"q\"", "GET /x");
    results[2].reason = strdup("needs launch mode");
    r.params.seed = 42;
    r.params.level = "full";
    r.runtime.mode = "attach";
    verdict_compute(&r, true, false);
    json_t *doc = report_json_build(&r);
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    json_error_t je;
    json_t *back = json_loads(text, 0, &je);
    free(text);
    assert_non_null(back);
    assert_int_equal(json_integer_value(json_object_get(back, "schema_version")), 1);
    json_t *cases = json_object_get(back, "cases");
    assert_int_equal(json_array_size(cases), NDEFS);
    json_t *c0 = json_array_get(cases, 0);
    assert_string_equal(json_string_value(json_object_get(c0, "outcome")), "fail");
    json_t *f0 = json_array_get(json_object_get(c0, "failures"), 0);
    assert_string_equal(json_string_value(json_object_get(f0, "expected")), "exp <&>");
    assert_string_equal(json_string_value(json_object_get(f0, "request")), "GET /x");
    json_t *v = json_object_get(back, "verdict");
    assert_string_equal(json_string_value(json_object_get(v, "result")), "not-conformant");
    assert_int_equal(json_integer_value(json_object_get(v, "exit_code")), 1);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(back, "parameters"), "seed")), 42);
    json_decref(back);
    for (size_t i = 0; i < NDEFS; i++) {
        struct case_result *x = &results[i];
        for (size_t k = 0; k < x->n_failures; k++) {
            free(x->failures[k].expected);
            free(x->failures[k].observed);
            free(x->failures[k].request);
        }
        free(x->failures);
        free(x->reason);
    }
}

/* Every event kind survives the line format with its fields; lines that
 * are not events are refused. */
/* A case's source reads relative to the tree, whatever path the compiler
 * (or a compiler cache) gave __FILE__. */
static void source_relative_to_tree(void **state)
{
    (void)state;
    char buf[128];
    struct case_def d = {.id = "X1-001", .file = "../../cases/files/x.c", .line = 12};
    assert_string_equal(case_source_text(&d, buf, sizeof buf), "cases/files/x.c:12");
    d.file = "cases/files/x.c";
    assert_string_equal(case_source_text(&d, buf, sizeof buf), "cases/files/x.c:12");
    d.file = "./cases/a.c";
    assert_string_equal(case_source_text(&d, buf, sizeof buf), "cases/a.c:12");
    d.file = NULL;
    assert_string_equal(case_source_text(&d, buf, sizeof buf), "-");
}

static void worker_events_round_trip(void **state)
{
    (void)state;
    const struct worker_event sent[] = {
        {.kind = WEV_START},
        {.kind = WEV_DONE},
        {.kind = WEV_FAIL, .text = "got \"x\"\n", .expected = "y", .request = "GET /v1/a"},
        {.kind = WEV_FAIL, .text = "o", .expected = "e"},
        {.kind = WEV_NOTE, .text = "a note"},
        {.kind = WEV_DOC_FINDING, .text = "silent"},
        {.kind = WEV_SKIP, .text = "no python3"},
        {.kind = WEV_ERROR, .text = "set-up failed"},
        {.kind = WEV_UNREACHABLE, .text = "gRPC"},
        {.kind = WEV_TRACK, .pid = 2147480000},
        {.kind = WEV_UNTRACK, .pid = -7},
    };
    for (size_t i = 0; i < sizeof sent / sizeof sent[0]; i++) {
        size_t n;
        char *line = worker_event_encode(&sent[i], &n);
        assert_non_null(line);
        assert_int_equal(line[n - 1], '\n');
        assert_null(memchr(line, '\n', n - 1));
        line[n - 1] = '\0';
        struct worker_event got;
        void *holder;
        assert_int_equal(worker_event_decode(line, &got, &holder), 0);
        assert_int_equal(got.kind, sent[i].kind);
        assert_string_equal(got.text, sent[i].text ? sent[i].text : "");
        if (sent[i].kind == WEV_FAIL) {
            assert_string_equal(got.expected, sent[i].expected);
            if (sent[i].request)
                assert_string_equal(got.request, sent[i].request);
            else
                assert_null(got.request);
        }
        assert_int_equal(got.pid, sent[i].pid);
        worker_event_release(holder);
        free(line);
    }
    const char *bad[] = {"", "not json", "[]", "{}", "{\"ev\":\"bogus\"}", "{\"ev\":3}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct worker_event got;
        void *holder = (void *)1;
        assert_int_equal(worker_event_decode(bad[i], &got, &holder), -1);
        assert_null(holder);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verdict_full_core_not_incomplete),
        cmocka_unit_test(sanitize_escapes_and_bounds),
        cmocka_unit_test(list_membership),
        cmocka_unit_test(launch_words),
        cmocka_unit_test(baseline_forms),
        cmocka_unit_test(rerun_ids),
        cmocka_unit_test(json_reads_back),
        cmocka_unit_test(worker_events_round_trip),
        cmocka_unit_test(source_relative_to_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
