/* SPDX-License-Identifier: Apache-2.0 */
/* Argument parsing of the bench subcommand: defaults, the table
 * (bench_options.c), then the checks across options; sizes and durations. */
#include "bench_opts.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void bench_usage(FILE *out)
{
    opt_print_help(out, &bench_command);
}

int bench_parse_size(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0.0)) return -1;
    double mult = 1.0;
    if (*end) {
        char u = (char)(*end | 0x20);
        if (u == 'k')
            mult = 1024.0;
        else if (u == 'm')
            mult = 1024.0 * 1024.0;
        else if (u == 'g')
            mult = 1024.0 * 1024.0 * 1024.0;
        else if (u == 'b' && end[1] == '\0')
            mult = 1.0;
        else
            return -1;
        if (u != 'b' && end[1] && strcasecmp(end + 1, "ib") != 0 && strcasecmp(end + 1, "b") != 0)
            return -1;
    }
    double bytes = floor(v * mult);
    if (bytes < 1.0 || bytes > 1e15) return -1;
    *out = (uint64_t)bytes;
    return 0;
}

int bench_parse_duration(const char *s, double *out)
{
    if (!s || !*s) return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0.0) || v > 1e6) return -1;
    if (strcmp(end, "ms") == 0)
        v /= 1000.0;
    else if (strcmp(end, "m") == 0)
        v *= 60.0;
    else if (*end && strcmp(end, "s") != 0)
        return -1;
    *out = v;
    return 0;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("sandboxd-conformance bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'sandboxd-conformance bench --help'.\n", stderr);
    return 2;
}

bool bench_comparing(const struct bench_opts *o)
{
    return o->cmp_grpc || o->cmp_rest || o->cmp_launch || o->cmp_bundled;
}

int bench_parse_args(int argc, char **argv, struct bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->health_timeout_ms = 20000;
    o->size = 1024ull * 1024 * 1024;
    o->small_size = 4096;
    o->count = 2000;
    o->duration = 3.0;
    o->warmup = 5;
    o->streams = 1000;
    o->stream_sleep = 2;
    o->streams_timeout = 30.0;
    o->groups = BENCH_G_ALL;

    char err[700];
    if (opt_parse(&bench_command, o, argc, argv, NULL, err, sizeof err) != 0)
        return usage_error("%s", err);
    if (o->help) {
        bench_usage(stdout);
        return 1;
    }
    if (o->only) o->groups = o->only;
    o->groups &= ~o->skip;
    if (!o->groups) return usage_error("%s", "--only/--skip leave nothing to measure");
    if (!o->grpc_addr != !o->rest_addr)
        return usage_error("%s", "attach mode needs both --grpc and --rest");
    if (o->grpc_addr && (o->launch_cmd || o->bundled))
        return usage_error("%s", "--launch/--launch-bundled and --grpc/--rest exclude each other");
    if (o->launch_cmd && o->bundled)
        return usage_error("%s", "--launch and --launch-bundled exclude each other");
    if (o->launch_env[0] && o->grpc_addr)
        return usage_error("%s", "--launch-env applies to launch mode only");
    if (o->pid && !o->grpc_addr)
        return usage_error("%s", "--pid is for attach mode (launch mode knows the PID)");
    if (!o->cmp_grpc != !o->cmp_rest)
        return usage_error("%s", "attaching to B needs both --compare-grpc and --compare-rest");
    if ((o->cmp_grpc != NULL) + (o->cmp_launch != NULL) + (o->cmp_bundled != NULL) > 1)
        return usage_error("%s", "choose one B: --compare-grpc/--compare-rest, --compare-launch "
                                 "or --compare-bundled");
    if (o->cmp_pid && !o->cmp_grpc) return usage_error("%s", "--compare-pid is for attaching to B");
    if (o->cmp_json_path && !bench_comparing(o))
        return usage_error("%s", "--compare-json needs a B (--compare-launch, ...)");
    if (!o->rounds) o->rounds = bench_comparing(o) ? 3 : 1;
    if (o->streams_timeout <= (double)o->stream_sleep)
        return usage_error("%s", "--streams-timeout must exceed --stream-sleep");
    return 0;
}
