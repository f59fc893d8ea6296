/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing explore's options. */
#include "explore_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void explore_usage(FILE *out)
{
    fputs("usage: sandboxd-conformance explore [TARGET] [options]\n"
          "\n"
          "Generates random sequences of operations on both surfaces inside a private\n"
          "workspace directory (sbx-explore-PID-TIME/ under the sandbox root, removed at\n"
          "the end), judges every answer against an executable model of the contract,\n"
          "and shrinks a failing sequence to a minimal reproduction: a replay file, a\n"
          "report entry naming the clause, and a draft of a case.\n"
          "\n"
          "Operations: REST PUT (octet-stream, multipart, with and without mode), GET\n"
          "(whole, ranged, listings), HEAD, DELETE (plain, recursive), health, metadata;\n"
          "Execute (mkdir, ln -s, mkfifo, cat, stat, env, missing and empty commands),\n"
          "Start (cwd, PTY), WriteStdin (input, eof), SendSignal, ResizeTTY. Names come\n"
          "from a grammar of hard cases (percent escapes, '+', spaces, UTF-8, dots, long\n"
          "names, '?', '#', backslashes, trailing slashes, %00). Where the contract leaves\n"
          "an answer open, any allowed answer passes and the model stops predicting what\n"
          "the operation touched.\n"
          "\n"
          "TARGET (as for a run):\n"
          "  --grpc ADDR --rest ADDR     attach to a running runtime\n"
          "  --launch 'CMD'              launch a runtime ({grpc_port} {rest_port} {root} {host})\n"
          "  --launch-bundled PATH       launch this sandboxd-ref\n"
          "  (nothing)                   launch the bundled sandboxd-ref\n"
          "  --launch-env NAME=VALUE     extra environment for launched runtimes\n"
          "  --confine-runtime           launched runtimes get a private, read-only host view\n"
          "  --startup-timeout S         how long a launch waits for health (default 20)\n"
          "\n"
          "Differential mode (a second runtime, given as bench --compare-* gives it):\n"
          "  --against-launch 'CMD' | --against-bundled PATH |\n"
          "  --against-grpc ADDR --against-rest ADDR\n"
          "      the same sequence runs against both; an answer the model refuses is\n"
          "      reported with both answers and the side that deviates; answers that\n"
          "      differ where the contract leaves them open are counted, not failed\n"
          "\n"
          "Options:\n"
          "  --seed N            seed of the run (default: from the clock; always printed);\n"
          "                      the same seed gives the same sequences on any machine\n"
          "  --ops N             operations per sequence (default 150)\n"
          "  --duration D        run sequences (seed, then derived seeds) for D (\"30s\",\n"
          "                      \"2m\"); default one sequence\n"
          "  --jobs N            N concurrent jobs, one connection each: each runs its own\n"
          "                      sequence in its own directory and, between its operations,\n"
          "                      PUTs and GETs of shared files; their history is checked\n"
          "                      as a register (C1, C2): a read must return a complete\n"
          "                      version some order of the overlapping operations explains.\n"
          "                      With --against-*, the same jobs run against each runtime in\n"
          "                      turn, each judged on its own (concurrent answers of two\n"
          "                      runtimes are never compared). A register finding is shrunk\n"
          "                      as a round (fewer jobs, then fewer operations) and saved as\n"
          "                      a concurrent replay file\n"
          "  --replay FILE       run the operations of a replay file instead; a concurrent\n"
          "                      one (or a plain one with --jobs N, on N connections) runs\n"
          "                      as a round, repeated up to 3 times until something shows\n"
          "  --json FILE         write the report as JSON\n"
          "  --junit FILE        JUnit XML: a testcase per operation kind, a failing one per\n"
          "                      finding (clause, answers, minimal reproduction, seed)\n"
          "  --html FILE         self-contained page: the run, coverage, every finding\n"
          "  --bundle DIR        every format, the console report and each finding's\n"
          "                      replay file and case draft\n"
          "  --save DIR          write each finding's replay file and case draft in DIR\n"
          "  --no-shrink         report findings without shrinking them\n"
          "  --shrink-time S     bound on shrinking one finding (default 60)\n"
          "  --quiet             no progress lines\n"
          "  --help              this text\n"
          "\n"
          "Exit status: 0 no finding, 1 findings, 2 usage, 3 a runtime unreachable,\n"
          "4 internal error (as for a run).\n",
          out);
}

static int parse_u(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!s[0] || *end || errno || v > max || s[0] == '-') return -1;
    *out = v;
    return 0;
}

static int parse_duration(const char *s, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || v <= 0) return -1;
    if (!strcmp(end, "ms"))
        v /= 1000;
    else if (!strcmp(end, "m"))
        v *= 60;
    else if (!strcmp(end, "h"))
        v *= 3600;
    else if (*end && strcmp(end, "s") != 0)
        return -1;
    *out = v;
    return 0;
}

int explore_parse_args(int argc, char **argv, struct explore_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ops = 150;
    o->jobs = 1;
    o->shrink = true;
    o->shrink_seconds = 60;
    o->shrink_runs = 400;
    unsigned n_env = 0;
    unsigned long long u;
    unsigned startup = 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE                                                                                \
    do {                                                                                           \
        if (!v) {                                                                                  \
            fprintf(stderr, "sandboxd-conformance explore: %s needs a value\n", a);                \
            return 2;                                                                              \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            explore_usage(stdout);
            return 1;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = true;
        } else if (!strcmp(a, "--no-shrink")) {
            o->shrink = false;
        } else if (!strcmp(a, "--confine-runtime")) {
            o->a.confine = o->b.confine = true;
        } else if (!strcmp(a, "--grpc")) {
            NEEDS_VALUE;
            o->a.grpc = v;
        } else if (!strcmp(a, "--rest")) {
            NEEDS_VALUE;
            o->a.rest = v;
        } else if (!strcmp(a, "--launch")) {
            NEEDS_VALUE;
            o->a.launch = v;
        } else if (!strcmp(a, "--launch-bundled")) {
            NEEDS_VALUE;
            o->a.bundled = v;
        } else if (!strcmp(a, "--against-grpc")) {
            NEEDS_VALUE;
            o->b.grpc = v;
            o->against = true;
        } else if (!strcmp(a, "--against-rest")) {
            NEEDS_VALUE;
            o->b.rest = v;
            o->against = true;
        } else if (!strcmp(a, "--against-launch")) {
            NEEDS_VALUE;
            o->b.launch = v;
            o->against = true;
        } else if (!strcmp(a, "--against-bundled")) {
            NEEDS_VALUE;
            o->b.bundled = v;
            o->against = true;
        } else if (!strcmp(a, "--launch-env")) {
            NEEDS_VALUE;
            if (n_env >= EXPLORE_MAX_ENV || !strchr(v, '=')) {
                fprintf(stderr,
                        "sandboxd-conformance explore: --launch-env NAME=VALUE (at most "
                        "%d)\n",
                        EXPLORE_MAX_ENV);
                return 2;
            }
            o->launch_env[n_env++] = v;
        } else if (!strcmp(a, "--startup-timeout")) {
            NEEDS_VALUE;
            if (parse_u(v, 3600, &u) || u == 0) goto bad;
            startup = (unsigned)u;
        } else if (!strcmp(a, "--seed")) {
            NEEDS_VALUE;
            if (parse_u(v, UINT64_MAX, &u)) goto bad;
            o->seed = u;
            o->seed_set = true;
        } else if (!strcmp(a, "--ops")) {
            NEEDS_VALUE;
            if (parse_u(v, 100000, &u) || u == 0) goto bad;
            o->ops = (unsigned)u;
        } else if (!strcmp(a, "--duration")) {
            NEEDS_VALUE;
            if (parse_duration(v, &o->duration)) goto bad;
        } else if (!strcmp(a, "--shrink-time")) {
            NEEDS_VALUE;
            if (parse_duration(v, &o->shrink_seconds)) goto bad;
        } else if (!strcmp(a, "--jobs")) {
            NEEDS_VALUE;
            if (parse_u(v, 64, &u) || u == 0) goto bad;
            o->jobs = (unsigned)u;
        } else if (!strcmp(a, "--json")) {
            NEEDS_VALUE;
            o->json_path = v;
        } else if (!strcmp(a, "--replay")) {
            NEEDS_VALUE;
            o->replay_path = v;
        } else if (!strcmp(a, "--save")) {
            NEEDS_VALUE;
            o->save_dir = v;
        }
        /* Report formats besides console and JSON (the options of a run). */
        else if (!strcmp(a, "--junit")) {
            NEEDS_VALUE;
            o->junit_path = v;
        } else if (!strcmp(a, "--html")) {
            NEEDS_VALUE;
            o->html_path = v;
        } else if (!strcmp(a, "--bundle")) {
            NEEDS_VALUE;
            o->bundle_dir = v;
        }
        /* End of the report formats. */
        else {
            fprintf(stderr, "sandboxd-conformance explore: unknown option %s (see --help)\n", a);
            return 2;
        }
        continue;
    bad:
        fprintf(stderr, "sandboxd-conformance explore: bad value for %s: %s\n", a, v);
        return 2;
#undef NEEDS_VALUE
    }
    int targets = (o->a.grpc || o->a.rest) + (o->a.launch != NULL) + (o->a.bundled != NULL);
    int others = (o->b.grpc || o->b.rest) + (o->b.launch != NULL) + (o->b.bundled != NULL);
    if (targets > 1 || others > 1) {
        fputs("sandboxd-conformance explore: give one target (--grpc/--rest, --launch or "
              "--launch-bundled) and at most one --against-* runtime\n",
              stderr);
        return 2;
    }
    if ((o->a.grpc != NULL) != (o->a.rest != NULL) || (o->b.grpc != NULL) != (o->b.rest != NULL)) {
        fputs("sandboxd-conformance explore: attach mode needs both addresses (--grpc and "
              "--rest, --against-grpc and --against-rest)\n",
              stderr);
        return 2;
    }
    if (!o->seed_set) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        o->seed = ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec;
        o->seed %= 1000000000000ull;
    }
    o->a.launch_env = o->b.launch_env = o->launch_env;
    o->a.health_timeout_ms = o->b.health_timeout_ms = startup * 1000u;
    return 0;
}
