/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the bench's statistics, option parsing, ratios, targets and
 * JSON output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_opts.h"
#include "bench_report.h"
#include "bench_results.h"
#include "bench_stats.h"

static void percentile_nearest_rank(void **state)
{
    (void)state;
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i + 1; /* 1..100 */
    assert_true(bench_percentile_sorted(v, 100, 50) == 50.0);
    assert_true(bench_percentile_sorted(v, 100, 90) == 90.0);
    assert_true(bench_percentile_sorted(v, 100, 99) == 99.0);
    assert_true(bench_percentile_sorted(v, 100, 100) == 100.0);
    assert_true(bench_percentile_sorted(v, 100, 0) == 1.0);
    double three[] = {1, 2, 3};
    assert_true(bench_percentile_sorted(three, 3, 50) == 2.0);
    assert_true(bench_percentile_sorted(three, 3, 99) == 3.0);
    double one[] = {7};
    assert_true(bench_percentile_sorted(one, 1, 99) == 7.0);
    assert_true(bench_percentile_sorted(one, 0, 50) == 0.0);
}

static void summarise_sorts_and_bounds(void **state)
{
    (void)state;
    struct bench_samples s;
    assert_int_equal(bench_samples_init(&s, 4), 0);
    bench_samples_add(&s, 0.4);
    bench_samples_add(&s, 0.1);
    bench_samples_add(&s, 0.3);
    bench_samples_add(&s, 0.2);
    bench_samples_add(&s, 9.0); /* beyond capacity: counted, not kept */
    assert_int_equal(s.n, 4);
    assert_int_equal(s.dropped, 1);
    struct bench_summary m = bench_summarise(&s);
    assert_int_equal(m.count, 4);
    assert_true(m.min == 0.1 && m.max == 0.4);
    assert_true(m.p50 == 0.2);
    assert_true(fabs(m.mean - 0.25) < 1e-12);
    bench_samples_free(&s);

    struct bench_samples e;
    assert_int_equal(bench_samples_init(&e, 3), 0);
    struct bench_summary z = bench_summarise(&e);
    assert_int_equal(z.count, 0);
    assert_true(z.p99 == 0.0);
    bench_samples_free(&e);
}

static void sizes_and_durations(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(bench_parse_size("1G", &v), 0);
    assert_true(v == 1073741824ull);
    assert_int_equal(bench_parse_size("1GiB", &v), 0);
    assert_true(v == 1073741824ull);
    assert_int_equal(bench_parse_size("64K", &v), 0);
    assert_true(v == 65536);
    assert_int_equal(bench_parse_size("1.5M", &v), 0);
    assert_true(v == 1572864);
    assert_int_equal(bench_parse_size("4096", &v), 0);
    assert_true(v == 4096);
    assert_int_equal(bench_parse_size("0", &v), -1);
    assert_int_equal(bench_parse_size("-1M", &v), -1);
    assert_int_equal(bench_parse_size("1X", &v), -1);
    assert_int_equal(bench_parse_size("1Mx", &v), -1);
    assert_int_equal(bench_parse_size("", &v), -1);

    double d;
    assert_int_equal(bench_parse_duration("3s", &d), 0);
    assert_true(d == 3.0);
    assert_int_equal(bench_parse_duration("500ms", &d), 0);
    assert_true(d == 0.5);
    assert_int_equal(bench_parse_duration("2m", &d), 0);
    assert_true(d == 120.0);
    assert_int_equal(bench_parse_duration("1.5", &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(bench_parse_duration("0s", &d), -1);
    assert_int_equal(bench_parse_duration("3h", &d), -1);
    assert_int_equal(bench_parse_duration("s", &d), -1);
}

static int parse(struct bench_opts *o, const char *const *words)
{
    char *argv[32];
    int argc = 0;
    for (; words[argc]; argc++)
        argv[argc] = (char *)words[argc];
    argv[argc] = NULL;
    /* Usage errors print on stderr; keep the test output readable. */
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int rc = bench_parse_args(argc, argv, o);
    fclose(stderr);
    stderr = saved;
    return rc;
}

static void args_defaults_and_errors(void **state)
{
    (void)state;
    struct bench_opts o;
    const char *none[] = {"bench", NULL};
    assert_int_equal(parse(&o, none), 0);
    assert_true(o.size == 1073741824ull);
    assert_int_equal(o.streams, 1000);
    assert_int_equal(o.stream_sleep, 2);
    assert_int_equal(o.groups, BENCH_G_ALL);
    assert_null(o.grpc_addr);

    const char *attach[] = {"bench",  "--grpc",       "127.0.0.1:1", "--rest", "127.0.0.1:2",
                            "--pid",  "42",           "--size",      "1M",     "--count",
                            "20",     "--duration",   "1s",          "--json", "x.json",
                            "--only", "rest,execute", NULL};
    assert_int_equal(parse(&o, attach), 0);
    assert_string_equal(o.grpc_addr, "127.0.0.1:1");
    assert_int_equal(o.pid, 42);
    assert_true(o.size == 1048576);
    assert_int_equal(o.count, 20);
    assert_true(o.duration == 1.0);
    assert_string_equal(o.json_path, "x.json");
    assert_int_equal(o.groups, BENCH_G_REST | BENCH_G_EXECUTE);

    const char *skip[] = {"bench", "--skip", "streams", NULL};
    assert_int_equal(parse(&o, skip), 0);
    assert_int_equal(o.groups, BENCH_G_ALL & ~BENCH_G_STREAMS);

    const char *bad[][8] = {
        {"bench", "--grpc", "a:1", NULL},                             /* no --rest */
        {"bench", "--pid", "5", NULL},                                /* pid without attach */
        {"bench", "--size", "big", NULL},                             /* bad size */
        {"bench", "--count", "0", NULL},                              /* zero count */
        {"bench", "--only", "nothing", NULL},                         /* unknown group */
        {"bench", "--launch", "x", "--grpc", "a:1", "--rest", "b:2"}, /* both modes */
        {"bench", "--stream-sleep", "5", "--streams-timeout", "3s", NULL},
        {"bench", "stray", NULL},
        {"bench", "--launch-env", "NOEQUALS", NULL},
        {"bench", "--launch-env", "A=1", "--grpc", "a:1", "--rest", "b:2"}, /* env in attach */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *w[9] = {0};
        memcpy(w, bad[i], sizeof bad[i]);
        assert_int_equal(parse(&o, w), 2);
    }
    const char *unknown[] = {"bench", "--frobnicate", NULL};
    assert_int_equal(parse(&o, unknown), 2);
}

/* A results set with floors and runtime figures, as a run would leave it. */
static void fill(struct bench_results *r, double exec_p50, double get_tput)
{
    bench_results_init(r);
    struct bench_figure *f = bench_add(r, "floor.spawn", "spawn", "floor", BENCH_LATENCY);
    f->measured = true;
    f->lat.count = 10;
    f->lat.p50 = 0.001;
    f->throughput = 1000;
    f = bench_add(r, "floor.file_copy", "copy", "floor", BENCH_TRANSFER);
    f->measured = true;
    f->lat.count = 1;
    f->throughput = 2e9;
    f = bench_add(r, "execute.sequential", "exec", "execute", BENCH_LATENCY);
    f->measured = true;
    f->lat.count = 10;
    f->lat.p50 = exec_p50;
    f->throughput = 1.0 / exec_p50;
    snprintf(f->floor, sizeof f->floor, "floor.spawn");
    f->basis = BENCH_RATIO_P50;
    f = bench_add(r, "rest.get_big", "get", "rest", BENCH_TRANSFER);
    f->measured = true;
    f->lat.count = 1;
    f->throughput = get_tput;
    snprintf(f->floor, sizeof f->floor, "floor.file_copy");
    f->basis = BENCH_RATIO_THROUGHPUT;
    f = bench_add(r, "streams.concurrent", "streams", "streams", BENCH_STREAMS);
    f->measured = true;
    f->value = 998;
    f->value_of = 1000;
    f = bench_add(r, "memory.rss_idle", "idle", "memory", BENCH_MEMORY);
    f->measured = true;
    f->value = 3.0 * 1024 * 1024;
    bench_compute_ratios(r);
}

static const struct bench_target *target(const char *id)
{
    size_t n;
    const struct bench_target *t = bench_targets(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].id, id) == 0) return &t[i];
    return NULL;
}

static void ratios_and_targets(void **state)
{
    (void)state;
    struct bench_results r;
    fill(&r, 0.0015, 1.5e9);
    assert_true(fabs(bench_find(&r, "execute.sequential")->ratio - 1.5) < 1e-9);
    assert_true(fabs(bench_find(&r, "rest.get_big")->ratio - 0.75) < 1e-9);
    assert_true(isnan(bench_find(&r, "floor.spawn")->ratio));

    struct bench_verdict v = bench_evaluate(&r, target("execute_vs_spawn"));
    assert_true(v.evaluated && v.reached);
    v = bench_evaluate(&r, target("rest_get_big"));
    assert_true(v.evaluated && v.reached);
    v = bench_evaluate(&r, target("start_concurrent"));
    assert_true(v.evaluated && !v.reached); /* 998 of 1000 */
    v = bench_evaluate(&r, target("idle_rss"));
    assert_true(v.evaluated && v.reached);
    v = bench_evaluate(&r, target("rest_put_big")); /* not in the results */
    assert_false(v.evaluated);
    bench_results_free(&r);

    fill(&r, 0.0025, 0.9e9);
    v = bench_evaluate(&r, target("execute_vs_spawn"));
    assert_true(v.evaluated && !v.reached);
    assert_true(fabs(v.value - 2.5) < 1e-9);
    v = bench_evaluate(&r, target("rest_get_big"));
    assert_true(v.evaluated && !v.reached);
    bench_results_free(&r);

    size_t n;
    bench_targets(&n);
    assert_int_equal(n, 8);
}

static void json_reads_back(void **state)
{
    (void)state;
    struct bench_results r;
    fill(&r, 0.0015, 1.5e9);
    struct bench_opts o;
    const char *none[] = {"bench", NULL};
    assert_int_equal(parse(&o, none), 0);
    struct bench_run_info info = {.mode = "attach", .grpc = "g:1", .rest = "r:2"};
    bench_machine_info(&info);
    assert_true(info.nproc >= 1);
    char path[] = "/tmp/bench-unit-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    assert_int_equal(bench_write_json(path, &r, &info, &o, err, sizeof err), 0);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    unlink(path);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "schema")),
                        "sandboxd-conformance-bench/1");
    json_t *figs = json_object_get(doc, "figures");
    assert_int_equal(json_array_size(figs), r.n);
    json_t *exec = json_array_get(figs, 2);
    assert_string_equal(json_string_value(json_object_get(exec, "id")), "execute.sequential");
    assert_true(fabs(json_real_value(json_object_get(exec, "ratio")) - 1.5) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(exec, "ratio_of")), "p50");
    /* a figure without a floor has a null ratio, never NaN */
    assert_true(json_is_null(json_object_get(json_array_get(figs, 0), "ratio")));
    json_t *targets = json_object_get(doc, "targets");
    assert_int_equal(json_array_size(targets), 8);
    json_t *first = json_array_get(targets, 0);
    assert_true(json_is_true(json_object_get(first, "reached")));
    json_decref(doc);
    bench_results_free(&r);
}

static void formatting(void **state)
{
    (void)state;
    char b[32];
    bench_fmt_time(b, sizeof b, 0.000412);
    assert_string_equal(b, "412us");
    bench_fmt_time(b, sizeof b, 0.00123);
    assert_string_equal(b, "1.23ms");
    bench_fmt_time(b, sizeof b, 2.5);
    assert_string_equal(b, "2.50s");
    bench_fmt_rate(b, sizeof b, 1.5e9);
    assert_string_equal(b, "1.50 GB/s");
    bench_fmt_rate(b, sizeof b, 4.56e8);
    assert_string_equal(b, "456 MB/s");
    bench_fmt_bytes(b, sizeof b, 3.5 * 1024 * 1024);
    assert_string_equal(b, "3.5 MiB");
}

/* The median round is kept, with every round's value and the spread. */
static void rounds_merge_to_median(void **state)
{
    (void)state;
    struct bench_results rounds[3], out;
    const double p50[3] = {0.003, 0.001, 0.002};
    const double tput[3] = {200.0, 300.0, 100.0};
    for (int k = 0; k < 3; k++) {
        bench_results_init(&rounds[k]);
        struct bench_figure *f = bench_add(&rounds[k], "x.lat", "lat", "execute", BENCH_LATENCY);
        f->measured = true;
        f->lat.count = 5;
        f->lat.p50 = p50[k];
        f = bench_add(&rounds[k], "x.rate", "rate", "rest", BENCH_TRANSFER);
        f->measured = true;
        f->throughput = tput[k];
    }
    bench_results_init(&out);
    assert_int_equal(bench_merge_rounds(&out, rounds, 3), 0);
    assert_int_equal(out.n, 2);
    const struct bench_figure *lat = bench_find(&out, "x.lat");
    assert_float_equal(lat->lat.p50, 0.002, 1e-12);
    assert_int_equal(lat->n_rounds, 3);
    assert_float_equal(lat->round_value[0], 0.003, 1e-12);
    assert_float_equal(lat->spread, (0.003 - 0.001) / 0.002, 1e-9);
    const struct bench_figure *rate = bench_find(&out, "x.rate");
    assert_float_equal(rate->throughput, 200.0, 1e-9);
    assert_float_equal(rate->spread, 1.0, 1e-9);
    /* One round: no spread. */
    struct bench_results one;
    bench_results_init(&one);
    assert_int_equal(bench_merge_rounds(&one, rounds, 1), 0);
    assert_true(isnan(bench_find(&one, "x.lat")->spread));
    bool hb = true;
    assert_float_equal(bench_headline(lat, &hb), 0.002, 1e-12);
    assert_false(hb);
    assert_float_equal(bench_headline(rate, &hb), 200.0, 1e-9);
    assert_true(hb);
    for (int k = 0; k < 3; k++)
        bench_results_free(&rounds[k]);
    bench_results_free(&out);
    bench_results_free(&one);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(percentile_nearest_rank),
        cmocka_unit_test(summarise_sorts_and_bounds),
        cmocka_unit_test(sizes_and_durations),
        cmocka_unit_test(args_defaults_and_errors),
        cmocka_unit_test(ratios_and_targets),
        cmocka_unit_test(json_reads_back),
        cmocka_unit_test(formatting),
        cmocka_unit_test(rounds_merge_to_median),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
