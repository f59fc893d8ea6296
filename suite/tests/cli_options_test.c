/* SPDX-License-Identifier: Apache-2.0 */
/* The suite's table-driven option parser (opt_parse.c) in both styles, and
 * the run's table (cli_options.c): every option parses, repeatable ones
 * add up, and bad input is refused with the message it always had and exit
 * status 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/bench_opts.h"
#include "cli.h"
#include "compare_main.h"
#include "compare_options.h"
#include "explore_opts.h"
#include "fleet_summary.h"
#include "opt_table.h"
#include "runner.h"
#include "summary_options.h"

/* ---- the parser, on a table of its own --------------------------------- */

struct toy {
    const char *name;
    bool verbose;
    int count; /* --add: repeatable */
};

static int toy_add(void *target, const struct opt_spec *s, const char *val, char *err,
                   size_t err_len)
{
    (void)s;
    if (strcmp(val, "bad") == 0) {
        snprintf(err, err_len, "--add: bad value '%s'", val);
        return -1;
    }
    ((struct toy *)target)->count++;
    return 0;
}

static const struct opt_group toy_groups[] = {{"main", "Main:\n"}};
static const struct opt_spec toy_opts[] = {
    {.name = "name",
     .arg = "N",
     .group = "main",
     .kind = OPT_SET_STR,
     .offset = offsetof(struct toy, name),
     .help = "a name"},
    {.name = "verbose",
     .short_name = 'v',
     .group = "main",
     .kind = OPT_SET_TRUE,
     .offset = offsetof(struct toy, verbose),
     .help = "more"},
    {.name = "add",
     .arg = "X",
     .flags = OPT_REPEATABLE,
     .group = "main",
     .kind = OPT_CALL,
     .set = toy_add,
     .help = "one more\n(repeatable)"},
    {.name = "stop",
     .flags = OPT_STOPS,
     .group = "main",
     .kind = OPT_SET_TRUE,
     .offset = offsetof(struct toy, verbose),
     .help = "stop"},
};

static struct opt_command toy_command(enum opt_style style)
{
    return (struct opt_command){.name = "toy",
                                .opts = toy_opts,
                                .n_opts = sizeof toy_opts / sizeof toy_opts[0],
                                .groups = toy_groups,
                                .n_groups = 1,
                                .style = style,
                                .allow_eq = true,
                                .msg_unknown = "unknown option '%s'",
                                .msg_needs_value = "%s needs a value",
                                .msg_no_value = "%s takes no value",
                                .msg_positional = NULL,
                                .help_head = "Usage: toy\n",
                                .help_tail = "",
                                .help_col = 12};
}

static int toy_parse(enum opt_style style, int argc, char **argv, struct toy *t,
                     struct opt_result *res, char *err)
{
    struct opt_command c = toy_command(style);
    memset(t, 0, sizeof *t);
    return opt_parse(&c, t, argc, argv, res, err, 200);
}

static void test_exact_style(void **state)
{
    (void)state;
    struct toy t;
    struct opt_result r;
    char err[200] = "";
    char *ok[] = {"toy", "--name", "a", "--add=1", "-v", "--add", "2", "--name=b", "word", NULL};
    assert_int_equal(toy_parse(OPT_STYLE_EXACT, 9, ok, &t, &r, err), 0);
    assert_string_equal(t.name, "b"); /* not repeatable: the last wins */
    assert_true(t.verbose);
    assert_int_equal(t.count, 2);
    assert_int_equal(r.n_words, 1);
    assert_string_equal(ok[r.first], "word");

    static const struct {
        const char *argv[4];
        const char *msg;
    } bad[] = {
        {{"toy", "--nam", "a"}, "unknown option '--nam'"}, /* no abbreviations */
        {{"toy", "--name"}, "--name needs a value"},
        {{"toy", "--verbose=1"}, "--verbose takes no value"},
        {{"toy", "--add", "bad"}, "--add: bad value 'bad'"},
        {{"toy", "-x"}, "unknown option '-x'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = bad[i].argv[2] ? 3 : 2;
        assert_int_equal(toy_parse(OPT_STYLE_EXACT, argc, (char **)bad[i].argv, &t, &r, err), -1);
        assert_string_equal(err, bad[i].msg);
    }
}

static void test_getopt_style(void **state)
{
    (void)state;
    struct toy t;
    struct opt_result r;
    char err[200] = "";
    /* Abbreviations and words anywhere, as getopt_long has them. */
    char *ok[] = {"toy", "one", "--nam", "a", "two", "--add=1", "--add", "2", NULL};
    assert_int_equal(toy_parse(OPT_STYLE_GETOPT, 8, ok, &t, &r, err), 0);
    assert_string_equal(t.name, "a");
    assert_int_equal(t.count, 2);
    assert_int_equal(r.n_words, 2);
    assert_string_equal(ok[r.first], "one");
    char *missing[] = {"toy", "--name", NULL};
    assert_int_equal(toy_parse(OPT_STYLE_GETOPT, 2, missing, &t, &r, err), -1);
    assert_string_equal(err, "--name needs a value");
    char *unknown[] = {"toy", "--bogus", NULL};
    assert_int_equal(toy_parse(OPT_STYLE_GETOPT, 2, unknown, &t, &r, err), -1);
    assert_string_equal(err, "unknown option '--bogus'");
    /* A stopping option ends parsing: what follows is not read. */
    char *stop[] = {"toy", "--stop", "--bogus", NULL};
    assert_int_equal(toy_parse(OPT_STYLE_GETOPT, 3, stop, &t, &r, err), 0);
    assert_int_equal(r.n_words, 0);
}

static void test_help_and_man_rows(void **state)
{
    (void)state;
    struct opt_command c = toy_command(OPT_STYLE_EXACT);
    char buf[1024] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    opt_print_help(f, &c);
    fclose(f);
    assert_string_equal(buf, "Usage: toy\nMain:\n"
                             "  --name N  a name\n"
                             "  --verbose more\n"
                             "  --add X   one more\n"
                             "            (repeatable)\n"
                             "  --stop    stop\n");
    f = fmemopen(buf, sizeof buf - 1, "w");
    opt_print_man(f, &c, "main");
    fclose(f);
    assert_non_null(strstr(buf, ".TP\n\\fB\\-\\-name\\fR \\fIN\\fR\na name\n"));
    assert_non_null(strstr(buf, ".TP\n\\fB\\-\\-add\\fR \\fIX\\fR\none more\n(repeatable)\n"));
}

/* ---- the run's table ----------------------------------------------------- */

/* A value each option of the run takes. */
static const char *good_value(const char *name)
{
    static const struct {
        const char *name, *val;
    } v[] = {
        {"launch-env", "A=1"},
        {"startup-timeout", "5"},
        {"header", "X-A: 1"},
        {"rest-header", "X-B: 2"},
        {"grpc-header", "x-c: 3"},
        {"header-file", "/dev/null"},
        {"secret-header", "X-A"},
        {"level", "core"},
        {"profile", "transport"},
        {"jobs", "3"},
        {"seed", "7"},
        {"timeout-scale", "2"},
        {"max-output", "2M"},
        {"unresponsive-after", "4"},
        {"color", "never"},
        {"colour", "always"},
        {"man-options", "run"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (strcmp(v[i].name, name) == 0) return v[i].val;
    return "value";
}

static void test_every_run_option_parses(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < cli_command.n_opts; i++) {
        const struct opt_spec *s = &cli_command.opts[i];
        if (s->kind == OPT_TEXT) continue;
        char name[64];
        snprintf(name, sizeof name, "--%s", s->name);
        char *argv[] = {"sandboxd-conformance", name, (char *)good_value(s->name), NULL};
        struct cli_opts o;
        memset(&o, 0, sizeof o);
        char err[600] = "";
        if (opt_parse(&cli_command, &o, s->arg ? 3 : 2, argv, NULL, err, sizeof err) != 0)
            fail_msg("%s: %s", name, err);
        if (s->kind == OPT_SET_STR)
            assert_ptr_equal(*(const char **)(void *)((char *)&o + s->offset), argv[2]);
        if (s->kind == OPT_SET_TRUE) assert_true(*(bool *)(void *)((char *)&o + s->offset));
        request_headers_free(&o.headers);
        n++;
    }
    assert_true(n >= 45);
}

static void test_run_values(void **state)
{
    (void)state;
    char *argv[] = {"sandboxd-conformance",
                    "--launch-env",
                    "A=1",
                    "--launch-env=B=2",
                    "-j",
                    "4",
                    "--seed",
                    "9",
                    "--level=core",
                    "--colour",
                    "never",
                    "--header",
                    "X-A: 1",
                    "--header",
                    "X-B: 2",
                    "--max-output",
                    "1G",
                    NULL};
    struct cli_opts o;
    char err[600] = "";
    assert_int_equal(cli_parse(&o, 17, argv, err, sizeof err), 0);
    assert_string_equal(o.launch_env[0], "A=1");
    assert_string_equal(o.launch_env[1], "B=2");
    assert_null(o.launch_env[2]);
    assert_int_equal(o.jobs, 4);
    assert_true(o.seed_set);
    assert_int_equal(o.seed, 9);
    assert_true(o.core_only);
    assert_int_equal(o.color, 0);
    assert_int_equal(o.headers.n, 2);
    assert_int_equal(o.max_output, 1u << 30);
    cli_free(&o);
}

/* The messages the run has always given; the runner exits 2 on each. */
static void test_run_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *argv[4];
        const char *msg;
    } bad[] = {
        {{"x", "--bogus"}, "unknown option '--bogus' (see --help)"},
        {{"x", "--jso", "f"}, "unknown option '--jso' (see --help)"},
        {{"x", "--json"}, "--json needs a value"},
        {{"x", "--list=1"}, "--list takes no value"},
        {{"x", "--tls=1"}, "--tls takes no value"},
        {{"x", "foo"}, "unexpected argument 'foo' (options start with --)"},
        {{"x", "--jobs", "0"}, "--jobs wants 1-256, got '0'"},
        {{"x", "--seed", "-1"}, "--seed wants a non-negative integer, got '-1'"},
        {{"x", "--max-output", "1K"},
         "--max-output wants a size of 1M or more (e.g. 512M, 2G), got '1K'"},
        {{"x", "--color", "blue"}, "--color wants auto, always or never, got 'blue'"},
        {{"x", "--cacert="}, "--cacert needs a non-empty value"},
        {{"x", "--launch-env", "X"}, "--launch-env wants NAME=VALUE, got 'X'"},
        {{"x", "--grpc", "a:1"}, "attach mode needs both --grpc ADDR and --rest ADDR"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = bad[i].argv[2] ? 3 : 2;
        struct cli_opts o;
        char err[600] = "";
        assert_int_equal(cli_parse(&o, argc, (char **)bad[i].argv, err, sizeof err), -1);
        if (strcmp(err, bad[i].msg) != 0) fail_msg("got '%s', want '%s'", err, bad[i].msg);
        cli_free(&o);
        assert_int_equal(runner_main(argc, (char **)bad[i].argv), 2);
    }
}

/* ---- compare and summary ------------------------------------------------ */

/* Every option of a table whose values are not checked parses into target. */
static void every_option_parses(const struct opt_command *c, void *target, size_t size,
                                void (*release)(void *target))
{
    for (size_t i = 0; i < c->n_opts; i++) {
        const struct opt_spec *s = &c->opts[i];
        if (s->kind == OPT_TEXT) continue;
        char name[64];
        snprintf(name, sizeof name, "--%s", s->name);
        char *argv[] = {"x", name, "ID", NULL};
        memset(target, 0, size);
        char err[300] = "";
        if (opt_parse(c, target, s->arg ? 3 : 2, argv, NULL, err, sizeof err) != 0)
            fail_msg("%s %s: %s", c->name, name, err);
        if (s->kind == OPT_SET_STR)
            assert_ptr_equal(*(const char **)(void *)((char *)target + s->offset), argv[2]);
        if (s->kind == OPT_SET_TRUE) assert_true(*(bool *)(void *)((char *)target + s->offset));
        if (release) release(target);
    }
}

static void release_compare(void *target)
{
    struct compare_opts *o = target;
    for (size_t i = 0; i < o->n_allow_buf; i++)
        free(o->allow_buf[i]);
}

static void test_compare_options(void **state)
{
    (void)state;
    struct compare_opts o;
    every_option_parses(&compare_command, &o, sizeof o, release_compare);
    memset(&o, 0, sizeof o);
    char *argv[] = {"compare", "a.json", "--allow", "P1-001,P2-002", "--allo",
                    "P3-003",  "b.json", "--base",  "o.json",        NULL};
    struct opt_result r;
    char err[300] = "";
    assert_int_equal(opt_parse(&compare_command, &o, 9, argv, &r, err, sizeof err), 0);
    assert_int_equal(o.n_allow, 3); /* repeatable, and a list each */
    assert_string_equal(o.allow[2], "P3-003");
    assert_string_equal(o.base, "o.json");
    assert_int_equal(r.n_words, 2);
    for (size_t i = 0; i < o.n_allow_buf; i++)
        free(o.allow_buf[i]);
    char *bad[][3] = {
        {"compare", "--bogus", "a"}, {"compare", "a", "--base"}, {"compare", "--allow", ","}};
    const char *msg[] = {"unknown option '--bogus'", "--base needs a value",
                         "--allow wants case IDs, got ','"};
    for (size_t i = 0; i < 3; i++) {
        memset(&o, 0, sizeof o);
        assert_int_equal(opt_parse(&compare_command, &o, 3, bad[i], NULL, err, sizeof err), -1);
        assert_string_equal(err, msg[i]);
        for (size_t k = 0; k < o.n_allow_buf; k++)
            free(o.allow_buf[k]);
        assert_int_equal(compare_main(3, bad[i]), 2);
    }
}

static void test_summary_options(void **state)
{
    (void)state;
    struct summary_opts o;
    every_option_parses(&summary_command, &o, sizeof o, NULL);
    /* Options first; the first word that does not start with "--" begins
     * the directories ("-h" is one). */
    char *argv[] = {"summary", "--targets", "t", "-h", "--markdown", "m", NULL};
    struct opt_result r;
    char err[300] = "";
    memset(&o, 0, sizeof o);
    assert_int_equal(opt_parse(&summary_command, &o, 6, argv, &r, err, sizeof err), 0);
    assert_string_equal(o.targets, "t");
    assert_null(o.markdown);
    assert_int_equal(r.first, 3);
    char *bad[][2] = {{"summary", "--targets"}, {"summary", "--markdown=m"}};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(opt_parse(&summary_command, &o, 2, bad[i], NULL, err, sizeof err), -1);
        char want[100];
        snprintf(want, sizeof want, "unknown option or missing value: %s", bad[i][1]);
        assert_string_equal(err, want);
        assert_int_equal(fleet_summary_main(2, bad[i]), 2);
    }
}

/* ---- explore --------------------------------------------------------- */

static void test_explore_options(void **state)
{
    (void)state;
    static const struct {
        const char *name, *val;
    } good[] = {{"seed", "5"},        {"ops", "10"},         {"jobs", "2"},
                {"duration", "3s"},   {"shrink-time", "1m"}, {"startup-timeout", "5"},
                {"launch-env", "A=1"}};
    for (size_t i = 0; i < explore_command.n_opts; i++) {
        const struct opt_spec *s = &explore_command.opts[i];
        if (s->kind == OPT_TEXT) continue;
        char name[64];
        snprintf(name, sizeof name, "--%s", s->name);
        char *argv[] = {"explore", name, "x", NULL};
        for (size_t k = 0; k < sizeof good / sizeof good[0]; k++)
            if (strcmp(good[k].name, s->name) == 0) argv[2] = (char *)good[k].val;
        struct explore_opts o;
        memset(&o, 0, sizeof o);
        char err[300] = "";
        if (opt_parse(&explore_command, &o, s->arg ? 3 : 2, argv, NULL, err, sizeof err) != 0)
            fail_msg("%s: %s", name, err);
    }
    char *argv[] = {"explore",
                    "--launch-env",
                    "A=1",
                    "--launch-env",
                    "B=2",
                    "--against-grpc",
                    "a:1",
                    "--against-rest",
                    "a:2",
                    "--seed",
                    "7",
                    "--no-shrink",
                    "--startup-timeout",
                    "9",
                    NULL};
    struct explore_opts o;
    assert_int_equal(explore_parse_args(14, argv, &o), 0);
    assert_string_equal(o.launch_env[1], "B=2");
    assert_true(o.against);
    assert_string_equal(o.b.rest, "a:2");
    assert_int_equal(o.seed, 7);
    assert_false(o.shrink);
    assert_int_equal(o.a.health_timeout_ms, 9000);
    static const struct {
        const char *argv[3];
        const char *msg;
    } bad[] = {
        {{"explore", "--seed=5"}, "unknown option --seed=5 (see --help)"},
        {{"explore", "word"}, "unknown option word (see --help)"},
        {{"explore", "--seed"}, "--seed needs a value"},
        {{"explore", "--ops", "0"}, "bad value for --ops: 0"},
        {{"explore", "--launch-env", "X"}, "--launch-env NAME=VALUE (at most 32)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = bad[i].argv[2] ? 3 : 2;
        char err[300] = "";
        memset(&o, 0, sizeof o);
        assert_int_equal(
            opt_parse(&explore_command, &o, argc, (char **)bad[i].argv, NULL, err, sizeof err), -1);
        assert_string_equal(err, bad[i].msg);
        assert_int_equal(explore_parse_args(argc, (char **)bad[i].argv, &o), 2);
    }
}

/* ---- bench ------------------------------------------------------------ */

static void test_bench_options(void **state)
{
    (void)state;
    static const struct {
        const char *name, *val;
    } good[] = {{"pid", "12"},
                {"compare-pid", "13"},
                {"launch-env", "A=1"},
                {"startup-timeout", "5s"},
                {"header", "X-A: 1"},
                {"rest-header", "X-B: 1"},
                {"grpc-header", "x-c: 1"},
                {"header-file", "/dev/null"},
                {"secret-header", "X-A"},
                {"size", "1M"},
                {"small-size", "4K"},
                {"count", "10"},
                {"duration", "1s"},
                {"warmup", "0"},
                {"streams", "2"},
                {"stream-sleep", "1"},
                {"streams-timeout", "5s"},
                {"rounds", "3"},
                {"only", "rest"},
                {"skip", "execute,start"}};
    for (size_t i = 0; i < bench_command.n_opts; i++) {
        const struct opt_spec *s = &bench_command.opts[i];
        if (s->kind == OPT_TEXT || strcmp(s->name, "compare") == 0) continue;
        char name[64];
        snprintf(name, sizeof name, "--%s", s->name);
        char *argv[] = {"bench", name, "x", NULL};
        for (size_t k = 0; k < sizeof good / sizeof good[0]; k++)
            if (strcmp(good[k].name, s->name) == 0) argv[2] = (char *)good[k].val;
        struct bench_opts o;
        memset(&o, 0, sizeof o);
        char err[300] = "";
        if (opt_parse(&bench_command, &o, s->arg ? 3 : 2, argv, NULL, err, sizeof err) != 0)
            fail_msg("%s: %s", name, err);
        request_headers_free(&o.headers);
    }
    char *argv[] = {"bench",  "--launch-env", "A=1",    "--launch-env",
                    "B=2",    "--header",     "X-A: 1", "--header",
                    "X-B: 2", "--coun",       "7",      "--only",
                    "rest",   "--streams-t",  "10s",    NULL};
    struct bench_opts o;
    assert_int_equal(bench_parse_args(15, argv, &o), 0);
    assert_string_equal(o.launch_env[1], "B=2");
    assert_int_equal(o.headers.n, 2);
    assert_int_equal(o.count, 7); /* getopt_long: a unique abbreviation */
    assert_int_equal(o.groups, BENCH_G_REST);
    assert_true(o.streams_timeout == 10.0);
    request_headers_free(&o.headers);
    static const struct {
        const char *argv[3];
        const char *msg;
    } bad[] = {
        {{"bench", "--bogus"}, "unknown option '--bogus'"},
        {{"bench", "--count"}, "option '--count' needs a value"},
        {{"bench", "--count", "0"}, "--count: expected 1..10000000, got '0'"},
        {{"bench", "--rounds", "10"}, "--rounds: expected 1..9, got '10'"},
        {{"bench", "--size", "0"}, "--size: not a size: '0' (e.g. 1G, 64M, 4096)"},
        {{"bench", "--only", "nope"},
         "--only: expected a list of execute,start,streams,rest; got 'nope'"},
        {{"bench", "extra"}, "unexpected argument 'extra'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = bad[i].argv[2] ? 3 : 2;
        char err[300] = "";
        memset(&o, 0, sizeof o);
        assert_int_equal(
            opt_parse(&bench_command, &o, argc, (char **)bad[i].argv, NULL, err, sizeof err), -1);
        assert_string_equal(err, bad[i].msg);
        assert_int_equal(bench_parse_args(argc, (char **)bad[i].argv, &o), 2);
        request_headers_free(&o.headers);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_style),       cmocka_unit_test(test_getopt_style),
        cmocka_unit_test(test_help_and_man_rows), cmocka_unit_test(test_every_run_option_parses),
        cmocka_unit_test(test_run_values),        cmocka_unit_test(test_run_refusals),
        cmocka_unit_test(test_compare_options),   cmocka_unit_test(test_summary_options),
        cmocka_unit_test(test_explore_options),   cmocka_unit_test(test_bench_options),
        /* one per line */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
