/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's table of flags and its parser (daemon_options.c,
 * daemon_config.c): every flag parses in each spelling, a flag given twice
 * keeps the last value (none is repeatable), and bad input is refused with
 * the message it always had (main exits 2 on -1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon_config.h"
#include "daemon_options.h"

/* Runs the parser with stderr into a buffer: its result, the message. */
static int parse_capturing(int argc, char **argv, struct daemon_config *cfg, char *msg, size_t len)
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int rc = daemon_config_parse(cfg, argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(msg, 1, len - 1, tmp);
    msg[n] = '\0';
    fclose(tmp);
    return rc;
}

/* A value each flag takes, and what it sets. */
static const struct {
    const char *name, *val;
} good[] = {
    {"listen-host", "127.0.0.1"},
    {"grpc-port", "0"},
    {"rest-port", "8081"},
    {"root-dir", "/tmp/ws"},
    {"metadata-env-prefix", "APP_"},
    {"shutdown-timeout", "1m30s"},
    {"http-idle-timeout", "5s"},
    {"http-header-timeout", "0s"},
    {"http-max-connections", "10"},
    {"http-max-connections-per-client", "2"},
    {"grpc-max-connections", "7"},
    {"grpc-max-connections-per-client", "3"},
    {"grpc-handshake-timeout", "1s"},
    {"grpc-idle-timeout", "2m"},
    {"grpc-request-timeout", "500ms"},
    {"grpc-stall-timeout", "0s"},
    {"stream-chunk-size", "8Ki"},
    {"execute-output-limit", "1Mi"},
    {"grpc-unix", "/tmp/g.sock"},
    {"copy-to", "/tmp/bin"},
};

static void test_every_flag_parses(void **state)
{
    (void)state;
    size_t valued = 0;
    for (size_t i = 0; i < daemon_n_options; i++) {
        const struct daemon_option *o = &daemon_options[i];
        if (!o->arg || o->kind == DOPT_INTERNAL) continue;
        const char *val = NULL;
        for (size_t k = 0; k < sizeof good / sizeof good[0]; k++)
            if (strcmp(good[k].name, o->name) == 0) val = good[k].val;
        if (!val) fail_msg("no good value for --%s", o->name);
        /* --name value, -name value, --name=value */
        char dd[80], d[80], eq[160];
        snprintf(dd, sizeof dd, "--%s", o->name);
        snprintf(d, sizeof d, "-%s", o->name);
        snprintf(eq, sizeof eq, "--%s=%s", o->name, val);
        char *forms[][3] = {{"sandboxd-ref", dd, (char *)val},
                            {"sandboxd-ref", d, (char *)val},
                            {"sandboxd-ref", eq, NULL}};
        for (size_t f = 0; f < 3; f++) {
            struct daemon_config cfg, defaults;
            char msg[300];
            char *none[] = {"sandboxd-ref"};
            assert_int_equal(daemon_config_parse(&defaults, 1, none), 0);
            if (parse_capturing(forms[f][2] ? 3 : 2, forms[f], &cfg, msg, sizeof msg) != 0)
                fail_msg("%s %s: %s", forms[f][1], val, msg);
            /* It set its own field and nothing else. */
            if (o->kind == DOPT_TEXT || o->kind == DOPT_NONEMPTY)
                assert_string_equal(*(const char **)(void *)((char *)&cfg + o->offset), val);
            memcpy((char *)&cfg + o->offset, (char *)&defaults + o->offset,
                   o->kind == DOPT_PORT       ? sizeof(int)
                   : o->kind == DOPT_COUNT    ? sizeof(unsigned)
                   : o->kind == DOPT_SIZE     ? sizeof(size_t)
                   : o->kind == DOPT_CHUNK    ? sizeof(size_t)
                   : o->kind == DOPT_TEXT     ? sizeof(char *)
                   : o->kind == DOPT_NONEMPTY ? sizeof(char *)
                                              : sizeof(uint64_t));
            assert_memory_equal(&cfg, &defaults, sizeof cfg);
        }
        valued++;
    }
    assert_int_equal(valued, sizeof good / sizeof good[0]);
}

static void test_values(void **state)
{
    (void)state;
    char *argv[] = {"sandboxd-ref",
                    "--grpc-port",
                    "1",
                    "-rest-port=2",
                    "--grpc-port",
                    "3",
                    "--shutdown-timeout",
                    "1m30s",
                    "--stream-chunk-size",
                    "8Ki",
                    "--execute-output-limit=2Mi",
                    NULL};
    struct daemon_config cfg;
    assert_int_equal(daemon_config_parse(&cfg, 11, argv), 0);
    assert_int_equal(cfg.grpc_port, 3); /* the last wins */
    assert_int_equal(cfg.rest_port, 2);
    assert_int_equal(cfg.shutdown_timeout_ms, 90000);
    assert_int_equal(cfg.stream_chunk_size, 8192);
    assert_int_equal(cfg.execute_output_limit, 2u << 20);
}

static void test_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *argv[3];
        const char *msg;
    } bad[] = {
        {{"sandboxd-ref", "--bogus", "1"}, "sandboxd-ref: unknown flag '--bogus' (see --help)\n"},
        {{"sandboxd-ref", "--grpc-port"}, "sandboxd-ref: flag --grpc-port needs a value\n"},
        {{"sandboxd-ref", "--grpc-port", "x"}, "sandboxd-ref: invalid value 'x' for --grpc-port\n"},
        {{"sandboxd-ref", "--stream-chunk-size", "0"},
         "sandboxd-ref: invalid value '0' for --stream-chunk-size\n"},
        {{"sandboxd-ref", "--grpc-idle-timeout", "100000h"},
         "sandboxd-ref: invalid value '100000h' for --grpc-idle-timeout\n"},
        {{"sandboxd-ref", "--root-dir="}, "sandboxd-ref: invalid value '' for --root-dir\n"},
        {{"sandboxd-ref", "--help=1"}, "sandboxd-ref: unknown flag '--help' (see --help)\n"},
        {{"sandboxd-ref", "x"}, "sandboxd-ref: unexpected argument 'x' (see --help)\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct daemon_config cfg;
        char msg[300];
        int argc = bad[i].argv[2] ? 3 : 2;
        assert_int_equal(parse_capturing(argc, (char **)bad[i].argv, &cfg, msg, sizeof msg), -1);
        assert_string_equal(msg, bad[i].msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_flag_parses),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
