/* SPDX-License-Identifier: Apache-2.0 */
/* The option table of `sandboxd-conformance bench` (opt_table.h) and the
 * handlers of the options whose values it checks. */
#include "bench_opts.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_ROUNDS_OPT 9 /* BENCH_MAX_ROUNDS of bench_results.h */

#define STR(f) .kind = OPT_SET_STR, .offset = offsetof(struct bench_opts, f)
#define FLAG(f) .kind = OPT_SET_TRUE, .offset = offsetof(struct bench_opts, f)
#define CALL(fn) .kind = OPT_CALL, .set = fn

static int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < min || v > max) return -1;
    *out = (unsigned)v;
    return 0;
}

static int parse_groups(const char *list, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"execute", BENCH_G_EXECUTE},
                 {"start", BENCH_G_START},
                 {"streams", BENCH_G_STREAMS},
                 {"rest", BENCH_G_REST}};
    unsigned bits = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        bool found = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && strncmp(p, names[i].name, len) == 0) {
                bits |= names[i].bit;
                found = true;
            }
        if (!found) return -1;
        p += len;
        if (*p == ',') p++;
    }
    if (!bits) return -1;
    *out = bits;
    return 0;
}

/* --pid, --compare-pid. */
static int set_pid(void *target, const struct opt_spec *s, const char *val, char *err,
                   size_t err_len)
{
    struct bench_opts *o = target;
    unsigned u;
    if (parse_uint(val, 1, 0x7fffffff, &u) != 0) {
        snprintf(err, err_len, "--%s: not a process ID: '%s'", s->name, val);
        return -1;
    }
    *(strcmp(s->name, "pid") == 0 ? &o->pid : &o->cmp_pid) = (int)u;
    return 0;
}

/* --count, --warmup, --streams, --stream-sleep, --rounds. */
static int set_count(void *target, const struct opt_spec *s, const char *val, char *err,
                     size_t err_len)
{
    struct bench_opts *o = target;
    static const struct {
        const char *name;
        unsigned min, max;
        size_t offset;
        const char *unit;
    } counts[] = {
        {"count", 1, 10000000, offsetof(struct bench_opts, count), ""},
        {"warmup", 0, 100000, offsetof(struct bench_opts, warmup), ""},
        {"streams", 1, 100000, offsetof(struct bench_opts, streams), ""},
        {"stream-sleep", 0, 3600, offsetof(struct bench_opts, stream_sleep), " seconds"},
        {"rounds", 1, BENCH_MAX_ROUNDS_OPT, offsetof(struct bench_opts, rounds), ""},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if (strcmp(counts[i].name, s->name) != 0) continue;
        unsigned *at = (unsigned *)(void *)((char *)o + counts[i].offset);
        if (parse_uint(val, counts[i].min, counts[i].max, at) == 0) return 0;
        snprintf(err, err_len, "--%s: expected %u..%u%s, got '%s'", s->name, counts[i].min,
                 counts[i].max, counts[i].unit, val);
        return -1;
    }
    return -1;
}

/* --size, --small-size. */
static int set_size(void *target, const struct opt_spec *s, const char *val, char *err,
                    size_t err_len)
{
    struct bench_opts *o = target;
    bool small = strcmp(s->name, "small-size") == 0;
    if (bench_parse_size(val, small ? &o->small_size : &o->size) == 0) return 0;
    snprintf(err, err_len, "--%s: not a size: '%s' (e.g. %s)", s->name, val,
             small ? "4K" : "1G, 64M, 4096");
    return -1;
}

/* --startup-timeout, --duration, --streams-timeout. */
static int set_duration(void *target, const struct opt_spec *s, const char *val, char *err,
                        size_t err_len)
{
    struct bench_opts *o = target;
    double d;
    if (bench_parse_duration(val, &d) != 0) {
        snprintf(err, err_len, "--%s: not a duration: '%s'%s", s->name, val,
                 strcmp(s->name, "duration") == 0 ? " (e.g. 3s, 500ms)" : "");
        return -1;
    }
    if (strcmp(s->name, "startup-timeout") == 0)
        o->health_timeout_ms = (unsigned)(d * 1000.0);
    else
        *(strcmp(s->name, "duration") == 0 ? &o->duration : &o->streams_timeout) = d;
    return 0;
}

static int set_launch_env(void *target, const struct opt_spec *s, const char *val, char *err,
                          size_t err_len)
{
    (void)s;
    struct bench_opts *o = target;
    size_t n = 0;
    while (o->launch_env[n])
        n++;
    if (!strchr(val, '=') || val[0] == '=')
        snprintf(err, err_len, "--launch-env wants NAME=VALUE, got '%s'", val);
    else if (n == BENCH_MAX_ENV)
        snprintf(err, err_len, "at most %d --launch-env options", BENCH_MAX_ENV);
    else
        o->launch_env[n] = val;
    return o->launch_env[n] == val ? 0 : -1;
}

/* --only, --skip. */
static int set_groups(void *target, const struct opt_spec *s, const char *val, char *err,
                      size_t err_len)
{
    struct bench_opts *o = target;
    if (parse_groups(val, strcmp(s->name, "only") == 0 ? &o->only : &o->skip) == 0) return 0;
    snprintf(err, err_len, "--%s: expected a list of execute,start,streams,rest; got '%s'", s->name,
             val);
    return -1;
}

/* --header and its kin: the same as a conformance run (request_headers.h). */
static int set_header(void *target, const struct opt_spec *s, const char *val, char *err,
                      size_t err_len)
{
    char name[32];
    snprintf(name, sizeof name, "--%s", s->name);
    return request_headers_option(&((struct bench_opts *)target)->headers, name, val, err,
                                  err_len) < 0
               ? -1
               : 0;
}

/* --compare OLD.json NEW.json is read before the table (bench_main.c): here
 * it is anywhere else on a command line. */
static int refuse_compare(void *target, const struct opt_spec *s, const char *val, char *err,
                          size_t err_len)
{
    (void)target, (void)s, (void)val;
    snprintf(err, err_len,
             "--compare takes two bench --json files and no other option: bench "
             "--compare OLD.json NEW.json");
    return -1;
}

static const struct opt_group groups[] = {
    {"target", "\nTarget (as for the conformance run):\n", 0},
    {"headers", "\nRequest headers (a runtime behind a router or a gateway), as for the run:\n", 0},
    {"sizes", "\nSizes, counts, durations:\n", 0},
    {"compare",
     "\nTwo runtimes side by side (B; A is the target above). Their figures are\n"
     "measured interleaved, group by group, in alternating order, so both see the same\n"
     "machine; each figure is printed for both with the ratio B/A next to the floors:\n",
     0},
    {"saved", "\nSaved results:\n", 0},
    {"selection", "\nSelection and output:\n", 0},
};

static const struct opt_spec opts[] = {
    /* target */
    {.name = "grpc",
     .arg = "ADDR",
     .group = "target",
     STR(grpc_addr),
     .help = "attach: gRPC endpoint (host:port, [v6]:port, unix:/path)"},
    {.name = "rest",
     .arg = "ADDR",
     .group = "target",
     STR(rest_addr),
     .help = "attach: REST endpoint (https://HOST:PORT on either: TLS)"},
    {.name = "tls",
     .group = "target",
     FLAG(tls_both),
     .label = "--tls, --cacert FILE, --cert FILE --key FILE, --insecure, --authority NAME",
     .help = "TLS to the attached runtime, as for the conformance run"},
    {.name = "cacert", .arg = "FILE", .group = "target", STR(tls_cacert)},
    {.name = "cert", .arg = "FILE", .group = "target", STR(tls_cert)},
    {.name = "key", .arg = "FILE", .group = "target", STR(tls_key)},
    {.name = "insecure", .group = "target", FLAG(tls_insecure)},
    {.name = "authority", .arg = "NAME", .group = "target", STR(tls_authority)},
    {.name = "pid",
     .arg = "PID",
     .group = "target",
     CALL(set_pid),
     .help = "attach: the runtime's PID, for the memory figures"},
    {.name = "launch",
     .arg = "CMD",
     .group = "target",
     STR(launch_cmd),
     .label = "--launch 'CMD'",
     .help = "launch: start CMD with {grpc_port} {rest_port} {root}\n"
             "{host} substituted"},
    {.name = "launch-bundled",
     .arg = "PATH",
     .group = "target",
     STR(bundled),
     .help = "launch: the sandboxd-ref binary at PATH with its\n"
             "standard flags (default: the sandboxd-ref built next to\n"
             "this suite)"},
    {.name = "launch-env",
     .arg = "NAME=VALUE",
     .flags = OPT_REPEATABLE,
     .group = "target",
     CALL(set_launch_env),
     .help = "launch: add a variable to the runtime's environment"},
    {.name = "startup-timeout",
     .arg = "S",
     .group = "target",
     CALL(set_duration),
     .help = "launch: how long to wait for the runtime's health (20)"},
    /* request headers */
    {.name = "header",
     .arg = "'Name: value'",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(set_header),
     .help = "on every REST request and gRPC call (repeatable)"},
    {.name = "rest-header",
     .arg = "'Name: value'",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(set_header),
     .label = "--rest-header 'Name: value', --grpc-header 'Name: value'",
     .help = "one surface only"},
    {.name = "grpc-header",
     .arg = "'Name: value'",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(set_header)},
    {.name = "header-file",
     .arg = "FILE",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(set_header),
     .help = "one 'Name: value' per line (# comments), both surfaces"},
    {.name = "secret-header",
     .arg = "NAME",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(set_header),
     .help = "never print NAME's value (Authorization, Cookie and\n"
             "Proxy-Authorization never are)"},
    /* sizes, counts, durations */
    {.name = "size",
     .arg = "SIZE",
     .group = "sizes",
     CALL(set_size),
     .help = "big transfers: Start stream, floors, REST GET/PUT\n"
             "(default 1G)"},
    {.name = "small-size",
     .arg = "SIZE",
     .group = "sizes",
     CALL(set_size),
     .help = "small REST files (default 4K)"},
    {.name = "count",
     .arg = "N",
     .group = "sizes",
     CALL(set_count),
     .help = "at most N measured operations per figure (default 2000;\n"
             "a figure with many callers gets 250 per caller at least)"},
    {.name = "duration",
     .arg = "DUR",
     .group = "sizes",
     CALL(set_duration),
     .help = "at most DUR of measuring per figure (default 3s)"},
    {.name = "warmup",
     .arg = "N",
     .group = "sizes",
     CALL(set_count),
     .help = "unmeasured operations first, per figure and caller\n"
             "(default 5)"},
    {.name = "streams",
     .arg = "N",
     .group = "sizes",
     CALL(set_count),
     .help = "concurrent Start streams on one connection\n"
             "(default 1000)"},
    {.name = "stream-sleep",
     .arg = "SECS",
     .group = "sizes",
     CALL(set_count),
     .help = "each of those runs `sleep SECS` (default 2)"},
    {.name = "streams-timeout",
     .arg = "DUR",
     .group = "sizes",
     CALL(set_duration),
     .help = "bound on the concurrent-streams figure (default 30s)"},
    /* a second runtime */
    {.name = "compare-grpc",
     .arg = "ADDR",
     .group = "compare",
     STR(cmp_grpc),
     .label = "--compare-grpc ADDR --compare-rest ADDR [--compare-pid PID]",
     .help = "attach to B"},
    {.name = "compare-rest", .arg = "ADDR", .group = "compare", STR(cmp_rest)},
    {.name = "compare-pid", .arg = "PID", .group = "compare", CALL(set_pid)},
    {.name = "compare-launch",
     .arg = "CMD",
     .group = "compare",
     STR(cmp_launch),
     .label = "--compare-launch 'CMD'",
     .help = "launch B from a command template"},
    {.name = "compare-bundled",
     .arg = "PATH",
     .group = "compare",
     STR(cmp_bundled),
     .help = "launch B: the sandboxd-ref binary at PATH"},
    {.name = "compare-json",
     .arg = "FILE",
     .group = "compare",
     STR(cmp_json_path),
     .help = "write B's figures as JSON (A's go to --json)"},
    {.name = "rounds",
     .arg = "N",
     .group = "compare",
     CALL(set_count),
     .help = "measure every figure N times (1-9; default 1, 3 with a\n"
             "B) and keep the median; the spread (max-min)/median is\n"
             "printed and a ratio B/A beyond both spreads is flagged\n"
             "as moved"},
    /* saved results */
    {.name = "compare",
     .arg = "OLD.json",
     .group = "saved",
     CALL(refuse_compare),
     .label = "--compare OLD.json NEW.json",
     .help = "print the figures of two --json files\n"
             "side by side with NEW/OLD and flag those that moved\n"
             "beyond their spread (--rounds of those runs; 10% when a\n"
             "run has none)"},
    /* selection and output */
    {.name = "only",
     .arg = "LIST",
     .group = "selection",
     CALL(set_groups),
     .help = "measure only these groups: execute,start,streams,rest"},
    {.name = "skip",
     .arg = "LIST",
     .group = "selection",
     CALL(set_groups),
     .help = "leave these groups out (floors always run)"},
    {.name = "tmpdir",
     .arg = "DIR",
     .group = "selection",
     STR(tmpdir),
     .help = "directory for the local-copy floor's files (default:\n"
             "next to the launched runtime's root, else $TMPDIR or\n"
             "/tmp)"},
    {.name = "json",
     .arg = "FILE",
     .group = "selection",
     STR(json_path),
     .help = "also write every figure, floor, ratio and target as JSON"},
    {.name = "quiet", .group = "selection", FLAG(quiet), .help = "no progress lines on stderr"},
    {.name = "help",
     .short_name = 'h',
     .flags = OPT_STOPS,
     .group = "selection",
     FLAG(help),
     .label = "-h, --help",
     .help = "this text"},
};

const struct opt_command bench_command = {
    .name = "bench",
    .opts = opts,
    .n_opts = sizeof opts / sizeof opts[0],
    .groups = groups,
    .n_groups = sizeof groups / sizeof groups[0],
    .style = OPT_STYLE_GETOPT,
    .msg_unknown = "unknown option '%s'",
    .msg_needs_value = "option '%s' needs a value",
    .msg_positional = "unexpected argument '%s'",
    .help_head = "Usage: sandboxd-conformance bench [TARGET] [OPTIONS]\n"
                 "\n"
                 "Measures a sandboxd runtime and prints a table: for every figure the count,\n"
                 "p50/p90/p99/max and throughput, next to the same machine's floor measured in\n"
                 "the same run (posix_spawn+waitpid of `true`, a pipe copy, a local file copy, a\n"
                 "loopback TCP copy, a small file written, synced and renamed) and the ratio to\n"
                 "it; then the reference daemon's targets and whether each is reached. Warm-up\n"
                 "operations are excluded; every figure is bounded by --count operations (250\n"
                 "per caller at least) AND --duration seconds.\n",
    .help_tail = "\n"
                 "SIZE takes K, M, G suffixes (powers of 1024; KiB/MiB/GiB too); DUR takes ms, s\n"
                 "or m (plain numbers are seconds). Exit status: 0 when the run completed\n"
                 "(targets missed are information, not failure), 2 on a usage error or a missing\n"
                 "bundled runtime, 3 when the endpoint is unreachable or is not a runtime (GET\n"
                 "/v1/health does not answer 200 with a JSON health object: a router or gateway\n"
                 "answered), or a launched runtime never became healthy, 4 when the bench itself\n"
                 "failed (e.g. the JSON could not be written).\n",
    .help_col = 24,
    .help_wrap_at = 40,
};
