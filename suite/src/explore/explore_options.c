/* SPDX-License-Identifier: Apache-2.0 */
/* The option table of `sandboxd-conformance explore` (opt_table.h) and the
 * handlers of the options whose values it checks. */
#include "explore_opts.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define STR(f) .kind = OPT_SET_STR, .offset = offsetof(struct explore_opts, f)
#define FLAG(f) .kind = OPT_SET_TRUE, .offset = offsetof(struct explore_opts, f)
#define CALL(fn) .kind = OPT_CALL, .set = fn

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

static int bad_value(const struct opt_spec *s, const char *val, char *err, size_t err_len)
{
    snprintf(err, err_len, "bad value for --%s: %s", s->name, val);
    return -1;
}

/* --seed, --ops, --jobs, --startup-timeout: whole numbers in range. */
static int set_number(void *target, const struct opt_spec *s, const char *val, char *err,
                      size_t err_len)
{
    struct explore_opts *o = target;
    unsigned long long u;
    if (strcmp(s->name, "seed") == 0) {
        if (parse_u(val, UINT64_MAX, &u)) return bad_value(s, val, err, err_len);
        o->seed = u;
        o->seed_set = true;
        return 0;
    }
    unsigned long long max = strcmp(s->name, "ops") == 0    ? 100000
                             : strcmp(s->name, "jobs") == 0 ? 64
                                                            : 3600;
    if (parse_u(val, max, &u) || u == 0) return bad_value(s, val, err, err_len);
    *(strcmp(s->name, "ops") == 0    ? &o->ops
      : strcmp(s->name, "jobs") == 0 ? &o->jobs
                                     : &o->startup_s) = (unsigned)u;
    return 0;
}

/* --duration, --shrink-time. */
static int set_duration(void *target, const struct opt_spec *s, const char *val, char *err,
                        size_t err_len)
{
    struct explore_opts *o = target;
    double *at = strcmp(s->name, "duration") == 0 ? &o->duration : &o->shrink_seconds;
    return parse_duration(val, at) ? bad_value(s, val, err, err_len) : 0;
}

static int set_launch_env(void *target, const struct opt_spec *s, const char *val, char *err,
                          size_t err_len)
{
    (void)s;
    struct explore_opts *o = target;
    size_t n = 0;
    while (o->launch_env[n])
        n++;
    if (n >= EXPLORE_MAX_ENV || !strchr(val, '=')) {
        snprintf(err, err_len, "--launch-env NAME=VALUE (at most %d)", EXPLORE_MAX_ENV);
        return -1;
    }
    o->launch_env[n] = val;
    return 0;
}

/* --against-*: the second runtime. */
static int set_against(void *target, const struct opt_spec *s, const char *val, char *err,
                       size_t err_len)
{
    (void)err, (void)err_len;
    struct explore_opts *o = target;
    const char *what = s->name + strlen("against-");
    *(strcmp(what, "grpc") == 0     ? &o->b.grpc
      : strcmp(what, "rest") == 0   ? &o->b.rest
      : strcmp(what, "launch") == 0 ? &o->b.launch
                                    : &o->b.bundled) = val;
    o->against = true;
    return 0;
}

static int set_confine(void *target, const struct opt_spec *s, const char *val, char *err,
                       size_t err_len)
{
    (void)s, (void)val, (void)err, (void)err_len;
    struct explore_opts *o = target;
    o->a.confine = o->b.confine = true;
    return 0;
}

static int set_no_shrink(void *target, const struct opt_spec *s, const char *val, char *err,
                         size_t err_len)
{
    (void)s, (void)val, (void)err, (void)err_len;
    ((struct explore_opts *)target)->shrink = false;
    return 0;
}

static const struct opt_group groups[] = {
    {"target", "\nTARGET (as for a run):\n", 30},
    {"against", "\nDifferential mode (a second runtime, given as bench --compare-* gives it):\n",
     6},
    {"options", "\nOptions:\n", 22},
};

static const struct opt_spec opts[] = {
    /* target */
    {.name = "grpc",
     .arg = "ADDR",
     .group = "target",
     STR(a.grpc),
     .label = "--grpc ADDR --rest ADDR",
     .help = "attach to a running runtime"},
    {.name = "rest", .arg = "ADDR", .group = "target", STR(a.rest)},
    {.name = "launch",
     .arg = "CMD",
     .group = "target",
     STR(a.launch),
     .label = "--launch 'CMD'",
     .help = "launch a runtime, substituting {grpc_port}\n"
             "{rest_port} {root} {host}"},
    {.name = "launch-bundled",
     .arg = "PATH",
     .group = "target",
     STR(a.bundled),
     .help = "launch this sandboxd-ref"},
    {.group = "target",
     .kind = OPT_TEXT,
     .label = "(nothing)",
     .help = "launch the bundled sandboxd-ref"},
    {.name = "launch-env",
     .arg = "NAME=VALUE",
     .flags = OPT_REPEATABLE,
     .group = "target",
     CALL(set_launch_env),
     .help = "extra environment for launched runtimes"},
    {.name = "confine-runtime",
     .group = "target",
     CALL(set_confine),
     .help = "launched runtimes see a private, read-only host"},
    {.name = "startup-timeout",
     .arg = "S",
     .group = "target",
     CALL(set_number),
     .help = "how long a launch waits for health (default 20)"},
    /* against */
    {.group = "against",
     .kind = OPT_TEXT,
     .label = "--against-launch 'CMD' | --against-bundled PATH |\n"
              "  --against-grpc ADDR --against-rest ADDR",
     .help = "the same sequence runs against both; an answer the model refuses is\n"
             "reported with both answers and the side that deviates; answers that\n"
             "differ where the contract leaves them open are counted, not failed",
     .man = OPT_NO_MAN},
    {.name = "against-launch",
     .arg = "CMD",
     .group = "against",
     CALL(set_against),
     .man = "Launch the second runtime from a command template, as \\-\\-launch."},
    {.name = "against-bundled",
     .arg = "PATH",
     .group = "against",
     CALL(set_against),
     .man = "Launch the second runtime: the sandboxd\\-ref binary at PATH."},
    {.name = "against-grpc",
     .arg = "ADDR",
     .group = "against",
     CALL(set_against),
     .label = "--against-grpc ADDR --against-rest ADDR",
     .man = "Attach to the second runtime. The same sequence runs against both; an\n"
            "answer the model refuses is reported with both answers and the side that\n"
            "deviates; answers that differ where the contract leaves them open are\n"
            "counted, not failed."},
    {.name = "against-rest", .arg = "ADDR", .group = "against", CALL(set_against)},
    /* options */
    {.name = "seed",
     .arg = "N",
     .group = "options",
     CALL(set_number),
     .help = "seed of the run (default: from the clock; always printed);\n"
             "the same seed gives the same sequences on any machine"},
    {.name = "ops",
     .arg = "N",
     .group = "options",
     CALL(set_number),
     .help = "operations per sequence (default 150)"},
    {.name = "duration",
     .arg = "D",
     .group = "options",
     CALL(set_duration),
     .help = "run sequences (seed, then derived seeds) for D (\"30s\",\n"
             "\"2m\"); default one sequence"},
    {.name = "jobs",
     .arg = "N",
     .group = "options",
     CALL(set_number),
     .help = "N concurrent jobs, one connection each: each runs its own\n"
             "sequence in its own directory and, between its operations,\n"
             "PUTs and GETs of shared files; their history is checked as\n"
             "a register (C1, C2): a read must return a complete version\n"
             "some order of the overlapping operations explains. With\n"
             "--against-*, the same jobs run against each runtime in\n"
             "turn, each judged on its own (concurrent answers of two\n"
             "runtimes are never compared). A register finding is shrunk\n"
             "as a round (fewer jobs, then fewer operations) and saved\n"
             "as a concurrent replay file"},
    {.name = "replay",
     .arg = "FILE",
     .group = "options",
     STR(replay_path),
     .help = "run the operations of a replay file instead; a concurrent\n"
             "one (or a plain one with --jobs N, on N connections) runs\n"
             "as a round, repeated up to 30 times until something shows"},
    {.name = "json",
     .arg = "FILE",
     .group = "options",
     STR(json_path),
     .help = "write the report as JSON"},
    {.name = "junit",
     .arg = "FILE",
     .group = "options",
     STR(junit_path),
     .help = "JUnit XML: a testcase per operation kind, a failing one\n"
             "per finding (clause, answers, minimal reproduction, seed)"},
    {.name = "html",
     .arg = "FILE",
     .group = "options",
     STR(html_path),
     .help = "self-contained page: the run, coverage, every finding"},
    {.name = "bundle",
     .arg = "DIR",
     .group = "options",
     STR(bundle_dir),
     .help = "every format, the console report and each finding's\n"
             "replay file and case draft"},
    {.name = "save",
     .arg = "DIR",
     .group = "options",
     STR(save_dir),
     .help = "write each finding's replay file and case draft in DIR"},
    {.name = "no-shrink",
     .group = "options",
     CALL(set_no_shrink),
     .help = "report findings without shrinking them"},
    {.name = "shrink-time",
     .arg = "S",
     .group = "options",
     CALL(set_duration),
     .help = "bound on shrinking one finding (default 60)"},
    {.name = "quiet", .group = "options", FLAG(quiet), .help = "no progress lines"},
    {.name = "help",
     .short_name = 'h',
     .flags = OPT_STOPS,
     .group = "options",
     FLAG(help),
     .help = "this text"},
};

/* Exact names in order, no --name=value; a word is an unknown option. */
const struct opt_command explore_command = {
    .name = "explore",
    .opts = opts,
    .n_opts = sizeof opts / sizeof opts[0],
    .groups = groups,
    .n_groups = sizeof groups / sizeof groups[0],
    .style = OPT_STYLE_EXACT,
    .msg_unknown = "unknown option %s (see --help)",
    .msg_needs_value = "%s needs a value",
    .msg_no_value = "%s takes no value",
    .msg_positional = "unknown option %s (see --help)",
    .help_head = "usage: sandboxd-conformance explore [TARGET] [options]\n"
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
                 "the operation touched.\n",
    .help_tail = "\n"
                 "Exit status: 0 no finding, 1 findings, 2 usage, 3 a runtime unreachable,\n"
                 "4 internal error (as for a run).\n",
    .help_col = 22,
    .help_wrap_at = 1,
};
