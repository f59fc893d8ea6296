/* SPDX-License-Identifier: Apache-2.0 */
/* Argument parsing and --help of the bench subcommand. */
#include "bench_text.h"
#include "bench_opts.h"
#include "request_headers.h"

#define BENCH_MAX_ROUNDS_OPT 9 /* BENCH_MAX_ROUNDS of bench_results.h */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void bench_usage(FILE *out)
{
    fputs("Usage: sandboxd-conformance bench [TARGET] [OPTIONS]\n"
          "\n"
          "Measures a sandboxd runtime and prints a table: for every figure the count,\n"
          "p50/p90/p99/max and throughput, next to the same machine's floor measured in\n"
          "the same run (posix_spawn+waitpid of `true`, a pipe copy, a local file copy, a\n"
          "loopback TCP copy) and the ratio to it; then the reference daemon's targets\n"
          "and whether each is reached. Warm-up operations are excluded; every figure is\n"
          "bounded by --count operations AND --duration seconds.\n"
          "\n"
          "Target (as for the conformance run):\n"
          "  --grpc ADDR           attach: gRPC endpoint (host:port, [v6]:port, unix:/path)\n"
          "  --rest ADDR           attach: REST endpoint (https://HOST:PORT on either: TLS)\n"
          "  --tls, --cacert FILE, --cert FILE --key FILE, --insecure, --authority NAME\n"
          "                        TLS to the attached runtime, as for the conformance run\n"
          "  --pid PID             attach: the runtime's PID, for the memory figures\n"
          "  --launch 'CMD'        launch: start CMD with {grpc_port} {rest_port} {root} {host}\n"
          "                        substituted\n"
          "  --launch-bundled PATH launch: the sandboxd-ref binary at PATH with its standard\n"
          "                        flags (default: the sandboxd-ref built next to this suite)\n"
          "  --launch-env NAME=VALUE  launch: add a variable to the runtime's environment\n"
          "  --startup-timeout S   launch: how long to wait for the runtime's health (20)\n"
          "\n"
          "Request headers (a runtime behind a router or a gateway), as for the run:\n"
          "  --header 'Name: value'   on every REST request and gRPC call (repeatable)\n"
          "  --rest-header 'Name: value', --grpc-header 'Name: value'   one surface only\n"
          "  --header-file FILE    one 'Name: value' per line (# comments), both surfaces\n"
          "  --secret-header NAME  never print NAME's value (Authorization, Cookie and\n"
          "                        Proxy-Authorization never are)\n"
          "\n"
          "Sizes, counts, durations:\n"
          "  --size SIZE           big transfers: Start stream, floors, REST GET/PUT (default 1G)\n"
          "  --small-size SIZE     small REST files (default 4K)\n"
          "  --count N             at most N measured operations per figure (default 2000)\n"
          "  --duration DUR        at most DUR of measuring per figure (default 3s)\n"
          "  --warmup N            unmeasured operations first, per figure and caller (default 5)\n"
          "  --streams N           concurrent Start streams on one connection (default 1000)\n"
          "  --stream-sleep SECS   each of those runs `sleep SECS` (default 2)\n"
          "  --streams-timeout DUR bound on the concurrent-streams figure (default 30s)\n"
          "\n"
          "Two runtimes side by side (B; A is the target above). Their figures are\n"
          "measured interleaved, group by group, in alternating order, so both see the same\n"
          "machine; each figure is printed for both with the ratio B/A next to the floors:\n"
          "  --compare-grpc ADDR --compare-rest ADDR [--compare-pid PID]   attach to B\n"
          "  --compare-launch 'CMD' launch B from a command template\n"
          "  --compare-bundled PATH launch B: the sandboxd-ref binary at PATH\n"
          "  --compare-json FILE   write B's figures as JSON (A's go to --json)\n"
          "  --rounds N            measure every figure N times (1-9; default 1, 3 with a B)\n"
          "                        and keep the median; the spread (max-min)/median is printed\n"
          "                        and a ratio B/A beyond both spreads is flagged as moved\n"
          "\n"
          "Saved results:\n"
          "  --compare OLD.json NEW.json  print the figures of two --json files side by side\n"
          "                        with NEW/OLD and flag those that moved beyond their spread\n"
          "                        (--rounds of those runs; 10% when a run has none)\n"
          "\n"
          "Selection and output:\n"
          "  --only LIST           measure only these groups: execute,start,streams,rest\n"
          "  --skip LIST           leave these groups out (floors always run)\n"
          "  --tmpdir DIR          directory for the local-copy floor's files (default: next to\n"
          "                        the launched runtime's root, else $TMPDIR or /tmp)\n"
          "  --json FILE           also write every figure, floor, ratio and target as JSON\n"
          "  --quiet               no progress lines on stderr\n"
          "  -h, --help            this text\n"
          "\n"
          "SIZE takes K, M, G suffixes (powers of 1024; KiB/MiB/GiB too); DUR takes ms, s or\n"
          "m (plain numbers are seconds). Exit status: 0 when the run completed (targets\n"
          "missed are information, not failure), 2 on a usage error or a missing bundled\n"
          "runtime, 3 when the endpoint is unreachable or is not a runtime (GET /v1/health\n"
          "does not answer 200 with a JSON health object: a router or gateway answered), or a\n"
          "launched runtime never became healthy, 4 when the bench itself failed (e.g. the\n"
          "JSON could not be written).\n",
          out);
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

enum {
    OPT_GRPC = 256,
    OPT_REST,
    OPT_PID,
    OPT_LAUNCH,
    OPT_BUNDLED,
    OPT_HEALTH,
    OPT_ENV,
    OPT_JSON,
    OPT_TMPDIR,
    OPT_SIZE,
    OPT_SMALL,
    OPT_COUNT,
    OPT_DURATION,
    OPT_WARMUP,
    OPT_STREAMS,
    OPT_SLEEP,
    OPT_STREAMS_TIMEOUT,
    OPT_ONLY,
    OPT_SKIP,
    OPT_QUIET,
    OPT_CMP_GRPC,
    OPT_CMP_REST,
    OPT_CMP_PID,
    OPT_CMP_LAUNCH,
    OPT_CMP_BUNDLED,
    OPT_CMP_JSON,
    OPT_ROUNDS,
    OPT_HEADER,
    OPT_REST_HEADER,
    OPT_GRPC_HEADER,
    OPT_HEADER_FILE,
    OPT_SECRET_HEADER,
    OPT_TLS,
    OPT_INSECURE,
    OPT_CACERT,
    OPT_CERT,
    OPT_KEY,
    OPT_AUTHORITY,
};

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

    static const struct option longopts[] = {
        {"grpc", required_argument, NULL, OPT_GRPC},
        {"rest", required_argument, NULL, OPT_REST},
        {"pid", required_argument, NULL, OPT_PID},
        {"launch", required_argument, NULL, OPT_LAUNCH},
        {"launch-bundled", required_argument, NULL, OPT_BUNDLED},
        {"startup-timeout", required_argument, NULL, OPT_HEALTH},
        {"launch-env", required_argument, NULL, OPT_ENV},
        {"json", required_argument, NULL, OPT_JSON},
        {"tmpdir", required_argument, NULL, OPT_TMPDIR},
        {"size", required_argument, NULL, OPT_SIZE},
        {"small-size", required_argument, NULL, OPT_SMALL},
        {"count", required_argument, NULL, OPT_COUNT},
        {"duration", required_argument, NULL, OPT_DURATION},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"streams", required_argument, NULL, OPT_STREAMS},
        {"stream-sleep", required_argument, NULL, OPT_SLEEP},
        {"streams-timeout", required_argument, NULL, OPT_STREAMS_TIMEOUT},
        {"only", required_argument, NULL, OPT_ONLY},
        {"skip", required_argument, NULL, OPT_SKIP},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"compare-grpc", required_argument, NULL, OPT_CMP_GRPC},
        {"compare-rest", required_argument, NULL, OPT_CMP_REST},
        {"compare-pid", required_argument, NULL, OPT_CMP_PID},
        {"compare-launch", required_argument, NULL, OPT_CMP_LAUNCH},
        {"compare-bundled", required_argument, NULL, OPT_CMP_BUNDLED},
        {"compare-json", required_argument, NULL, OPT_CMP_JSON},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"header", required_argument, NULL, OPT_HEADER},
        {"rest-header", required_argument, NULL, OPT_REST_HEADER},
        {"grpc-header", required_argument, NULL, OPT_GRPC_HEADER},
        {"header-file", required_argument, NULL, OPT_HEADER_FILE},
        {"secret-header", required_argument, NULL, OPT_SECRET_HEADER},
        {"tls", no_argument, NULL, OPT_TLS},
        {"insecure", no_argument, NULL, OPT_INSECURE},
        {"cacert", required_argument, NULL, OPT_CACERT},
        {"cert", required_argument, NULL, OPT_CERT},
        {"key", required_argument, NULL, OPT_KEY},
        {"authority", required_argument, NULL, OPT_AUTHORITY},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };

    optind = 1;
    opterr = 0;
    int ch;
    unsigned only = 0, skip = 0, nenv = 0;
    int longindex = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, &longindex)) != -1) {
        double d;
        unsigned u;
        switch (ch) {
        case 'h':
            bench_usage(stdout);
            return 1;
        case OPT_GRPC:
            o->grpc_addr = optarg;
            break;
        case OPT_REST:
            o->rest_addr = optarg;
            break;
        case OPT_PID:
            if (parse_uint(optarg, 1, 0x7fffffff, &u) != 0)
                return usage_error("--pid: not a process ID: '%s'", optarg);
            o->pid = (int)u;
            break;
        case OPT_LAUNCH:
            o->launch_cmd = optarg;
            break;
        case OPT_BUNDLED:
            o->bundled = optarg;
            break;
        case OPT_HEALTH:
            if (bench_parse_duration(optarg, &d) != 0)
                return usage_error("--startup-timeout: not a duration: '%s'", optarg);
            o->health_timeout_ms = (unsigned)(d * 1000.0);
            break;
        case OPT_ENV:
            if (!strchr(optarg, '=') || optarg[0] == '=')
                return usage_error("--launch-env wants NAME=VALUE, got '%s'", optarg);
            if (nenv == BENCH_MAX_ENV)
                return usage_error("at most %d --launch-env options", BENCH_MAX_ENV);
            o->launch_env[nenv++] = optarg;
            break;
        case OPT_JSON:
            o->json_path = optarg;
            break;
        case OPT_TMPDIR:
            o->tmpdir = optarg;
            break;
        case OPT_SIZE:
            if (bench_parse_size(optarg, &o->size) != 0)
                return usage_error("--size: not a size: '%s' (e.g. 1G, 64M, 4096)", optarg);
            break;
        case OPT_SMALL:
            if (bench_parse_size(optarg, &o->small_size) != 0)
                return usage_error("--small-size: not a size: '%s' (e.g. 4K)", optarg);
            break;
        case OPT_COUNT:
            if (parse_uint(optarg, 1, 10000000, &o->count) != 0)
                return usage_error("--count: expected 1..10000000, got '%s'", optarg);
            break;
        case OPT_DURATION:
            if (bench_parse_duration(optarg, &o->duration) != 0)
                return usage_error("--duration: not a duration: '%s' (e.g. 3s, 500ms)", optarg);
            break;
        case OPT_WARMUP:
            if (parse_uint(optarg, 0, 100000, &o->warmup) != 0)
                return usage_error("--warmup: expected 0..100000, got '%s'", optarg);
            break;
        case OPT_STREAMS:
            if (parse_uint(optarg, 1, 100000, &o->streams) != 0)
                return usage_error("--streams: expected 1..100000, got '%s'", optarg);
            break;
        case OPT_SLEEP:
            if (parse_uint(optarg, 0, 3600, &o->stream_sleep) != 0)
                return usage_error("--stream-sleep: expected 0..3600 seconds, got '%s'", optarg);
            break;
        case OPT_STREAMS_TIMEOUT:
            if (bench_parse_duration(optarg, &o->streams_timeout) != 0)
                return usage_error("--streams-timeout: not a duration: '%s'", optarg);
            break;
        case OPT_ONLY:
            if (parse_groups(optarg, &only) != 0)
                return usage_error("--only: expected a list of execute,start,streams,rest; "
                                   "got '%s'",
                                   optarg);
            break;
        case OPT_SKIP:
            if (parse_groups(optarg, &skip) != 0)
                return usage_error("--skip: expected a list of execute,start,streams,rest; "
                                   "got '%s'",
                                   optarg);
            break;
        case OPT_TLS:
            o->tls_both = true;
            break;
        case OPT_INSECURE:
            o->tls_insecure = true;
            break;
        case OPT_CACERT:
            o->tls_cacert = optarg;
            break;
        case OPT_CERT:
            o->tls_cert = optarg;
            break;
        case OPT_KEY:
            o->tls_key = optarg;
            break;
        case OPT_AUTHORITY:
            o->tls_authority = optarg;
            break;
        case OPT_QUIET:
            o->quiet = true;
            break;
        case OPT_CMP_GRPC:
            o->cmp_grpc = optarg;
            break;
        case OPT_CMP_REST:
            o->cmp_rest = optarg;
            break;
        case OPT_CMP_PID:
            if (parse_uint(optarg, 1, 0x7fffffff, &u) != 0)
                return usage_error("--compare-pid: not a process ID: '%s'", optarg);
            o->cmp_pid = (int)u;
            break;
        case OPT_CMP_LAUNCH:
            o->cmp_launch = optarg;
            break;
        case OPT_CMP_BUNDLED:
            o->cmp_bundled = optarg;
            break;
        case OPT_CMP_JSON:
            o->cmp_json_path = optarg;
            break;
        case OPT_ROUNDS:
            if (parse_uint(optarg, 1, BENCH_MAX_ROUNDS_OPT, &o->rounds) != 0)
                return usage_error("--rounds: expected 1..%d, got '%s'", BENCH_MAX_ROUNDS_OPT,
                                   optarg);
            break;
        case OPT_HEADER:
        case OPT_REST_HEADER:
        case OPT_GRPC_HEADER:
        case OPT_HEADER_FILE:
        case OPT_SECRET_HEADER: {
            /* The same options as a conformance run (request_headers.h). */
            char opt[32], why[600];
            snprintf(opt, sizeof opt, "--%s", longopts[longindex].name);
            if (request_headers_option(&o->headers, opt, optarg, why, sizeof why) < 0)
                return usage_error("%s", why);
            break;
        }
        case ':':
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);
    if (only) o->groups = only;
    o->groups &= ~skip;
    if (!o->groups) return usage_error("%s", "--only/--skip leave nothing to measure");
    if (!o->grpc_addr != !o->rest_addr)
        return usage_error("%s", "attach mode needs both --grpc and --rest");
    if (o->grpc_addr && (o->launch_cmd || o->bundled))
        return usage_error("%s", "--launch/--launch-bundled and --grpc/--rest exclude each other");
    if (o->launch_cmd && o->bundled)
        return usage_error("%s", "--launch and --launch-bundled exclude each other");
    if (nenv && o->grpc_addr) return usage_error("%s", "--launch-env applies to launch mode only");
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
