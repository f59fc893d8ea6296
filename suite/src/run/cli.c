/* SPDX-License-Identifier: Apache-2.0 */
/* Option parsing and --help. Long options only, "--name value" or
 * "--name=value". */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_tls.h"
#include "endpoint.h"

void cli_print_help(FILE *f)
{
    fputs(
        "Usage: sandboxd-conformance [TARGET] [SELECTION] [REPORTS] [OPTIONS]\n"
        "       sandboxd-conformance bench [OPTIONS]      (measure a runtime; bench --help)\n"
        "       sandboxd-conformance summary DIR...       (a fleet's bundles in one report)\n"
        "\n"
        "Checks a sandboxd runtime (gRPC process.v1.ProcessService + REST /v1) against the\n"
        "sandboxd runtime contract, case by case, and reports a verdict: full conformant,\n"
        "core conformant, not conformant, or incomplete.\n"
        "\n"
        "Subcommands:\n"
        "  sandboxd-conformance compare RESULTS.json...   compare runs case by case, gate on\n"
        "                            regressions (--base), keep baselines (see compare --help)\n"
        "  sandboxd-conformance bench [...]               measure a runtime, or two side by\n"
        "                            side (see bench --help)\n"
        "  sandboxd-conformance explore [...]             random operation sequences judged by\n"
        "                            a model of the contract, shrunk (see explore --help)\n"
        "\n"
        "Target (one of):\n"
        "  --grpc ADDR --rest ADDR   attach to a running runtime; ADDR is host:port,\n"
        "                            [v6]:port or unix:/path. [launch] cases are skipped.\n"
        "  --launch 'COMMAND'        start the runtime: the suite picks free loopback ports and\n"
        "                            a fresh root and substitutes {grpc_port} {rest_port} {root}\n"
        "                            {host}; plants a controlled environment (SANDBOX_* names,\n"
        "                            some with credential markers, and others), waits for\n"
        "                            /v1/health, runs, then stops it with SIGTERM.\n"
        "  --launch-bundled PATH     launch mode on a sandboxd-ref binary at PATH.\n"
        "  (none)                    launch mode on the bundled sandboxd-ref (next to this\n"
        "                            binary's build tree, or on PATH).\n"
        "  --launch-env NAME=VALUE   add a variable to the launched runtime's environment\n"
        "                            (repeatable).\n"
        "  --startup-timeout S       how long to wait for a launched runtime's health (20).\n"
        "  --confine-runtime         launch the runtime (and every private instance) in a\n"
        "                            private mount namespace where all of the host's file\n"
        "                            systems are read-only except the runtime's own directory\n"
        "                            (the sandbox root and its parent, where canaries go), a\n"
        "                            private /tmp and /dev/shm: a runtime whose confinement\n"
        "                            is broken cannot change the host's files. The runtime\n"
        "                            sees an empty /tmp and cannot write anywhere else\n"
        "                            (caches in HOME included: HOME is its own directory).\n"
        "                            Needs root (CAP_SYS_ADMIN).\n"
        "\n"
        "TLS (attach mode; each surface independently):\n"
        "  --grpc https://HOST:PORT  the gRPC surface over TLS (ALPN h2); the same for\n"
        "  --rest https://HOST:PORT  REST. Plain host:port stays cleartext.\n"
        "  --tls                     both surfaces over TLS (host:port become https://).\n"
        "  --cacert FILE             PEM CA certificates the server's certificate is\n"
        "                            verified against (default: the system's store).\n"
        "  --cert FILE --key FILE    mutual TLS: the client certificate and its key (PEM).\n"
        "  --insecure                no verification of the server's certificate or name;\n"
        "                            the verdict says \"TLS not verified\" and\n"
        "                            --require-complete refuses it.\n"
        "  --authority NAME          the name the runtime is reached by: gRPC :authority,\n"
        "                            REST Host, TLS SNI and the name verified.\n"
        "\n"
        "Request headers (a runtime behind a router, a gateway or an authenticating proxy):\n"
        "  --header 'Name: value'    send this header on every REST request and as gRPC\n"
        "                            metadata (name in lower case) on every call the run\n"
        "                            makes: cases, probes, health checks, workspace set-up\n"
        "                            and clean-up (repeatable). A header a case sets itself\n"
        "                            is never replaced.\n"
        "  --rest-header 'Name: value'  the same, REST only (repeatable).\n"
        "  --grpc-header 'Name: value'  the same, gRPC only (repeatable).\n"
        "  --header-file FILE        headers from FILE, one 'Name: value' per line (blank\n"
        "                            lines and # comments allowed), for both surfaces: keeps\n"
        "                            secrets out of the process list and shell history.\n"
        "  --secret-header NAME      treat NAME's value as a secret (repeatable). Values of\n"
        "                            Authorization, Cookie, Proxy-Authorization and secret\n"
        "                            headers are never written to a report, log or bundle\n"
        "                            (the command line recorded there included): they read\n"
        "                            'Name: <redacted>'. Host, Content-Length, Content-Type,\n"
        "                            TE, Connection, Transfer-Encoding, Keep-Alive, Upgrade,\n"
        "                            Expect, Trailer, grpc-* and pseudo-headers are refused.\n"
        "\n"
        "Catalog:\n"
        "  --list                    print the (selected) cases: ID, level, clauses, tags,\n"
        "                            needs, timeout, title; then exit.\n"
        "  --explain ID              print a case's purpose, its clauses' text, what it\n"
        "                            catches and how it decides; then exit.\n"
        "\n"
        "Selection:\n"
        "  --focus REGEX             run only cases whose \"ID title clauses tags\" matches\n"
        "                            (POSIX extended regex).\n"
        "  --skip REGEX              leave out cases that match.\n"
        "  --tags a,b                run only cases with one of these tags (process, pty,\n"
        "                            grpc, files, traversal, concurrency, metadata, health,\n"
        "                            errors, lifecycle, transport).\n"
        "  --level core|full         core: MUST cases only; full: MUST and SHOULD (default).\n"
        "  --profile transport       add the transport profile (T clauses, as MUST): point\n"
        "                            --grpc/--rest at a proxy in front of a runtime (one\n"
        "                            address for both, or split). A proxy that answers\n"
        "                            HTTP/1.1 on the gRPC address is reported, not\n"
        "                            refused: T1-T3 fail, cases needing gRPC are skipped.\n"
        "  --rerun-failed FILE       run only the cases that failed, timed out or errored in\n"
        "                            an earlier results.json.\n"
        "\n"
        "Running:\n"
        "  --jobs N                  cases in parallel (default: number of cores); cases\n"
        "                            that must run alone are run after, one at a time.\n"
        "  --seed N                  seed for randomised and race cases (default: random;\n"
        "                            always printed, so a run can be reproduced).\n"
        "  --timeout-scale X         multiply every case timeout (slow hosts, sanitizers).\n"
        "  --max-output SIZE         bytes a case may take from the runtime: its Start\n"
        "                            output in all, and each response body (default 512M;\n"
        "                            K, M, G suffixes). Beyond it the case fails with\n"
        "                            \"output exceeds N MiB\" and the stream is stopped.\n"
        "  --unresponsive-after N    circuit breaker: after N consecutive cases timed out\n"
        "                            or could not connect, and health or one Execute then\n"
        "                            fails too, the cases not finished are reported\n"
        "                            \"error: runtime unresponsive\" at once (default 3;\n"
        "                            0 = never).\n"
        "  --baseline FILE           known deviations (YAML list of id/reason/link): their\n"
        "                            failures are expected-fail and do not fail the run;\n"
        "                            when one passes it is reported as unexpected-pass.\n"
        "                            An entry naming a case this suite does not have is\n"
        "                            an error (exit 2) before anything runs.\n"
        "  --openapi FILE            the OpenAPI 3.0 document responses are validated\n"
        "                            against (default: $SBX_OPENAPI, else\n"
        "                            openapi/sandboxd.yaml of the data directory); paths\n"
        "                            are taken under its servers' base paths. What the\n"
        "                            contract requires and the document does not describe\n"
        "                            is judged by the contract and listed as a document\n"
        "                            finding.\n"
        "  --data-dir DIR            the suite's data: OpenAPI document, traversal vectors,\n"
        "                            contract (default: $SBX_DATA_DIR, else\n"
        "                            ../share/sandboxd-conformance beside this binary, else\n"
        "                            the source tree it was built from).\n"
        "\n"
        "Reports (any combination):\n"
        "  --json FILE               results, versioned schema (reports/results-schema.json)\n"
        "  --junit FILE              JUnit XML, one testcase per case, classname = group\n"
        "  --tap FILE                TAP version 13\n"
        "  --markdown FILE           summary for a pull-request comment or CI job summary\n"
        "  --html FILE               self-contained conformance report by clause\n"
        "  --bundle DIR              certification bundle: results.json, junit.xml, reports,\n"
        "                            the full log, runtime identity, parameters, suite version\n"
        "  --log FILE                also keep the full log here\n"
        "  --color auto|always|never console colour (auto: on a TTY unless NO_COLOR is set)\n"
        "  --quiet                   console: no per-case lines, only the summary\n"
        "\n"
        "Verdict:\n"
        "  --require-complete        exit 1 also when the verdict is incomplete (for\n"
        "                            certification: nothing of the level may be missing).\n"
        "\n"
        "Exit status:\n"
        "  0  no selected case failed, timed out or errored (baseline expected failures\n"
        "     excepted)\n"
        "  1  a selected case failed, timed out or errored; or --require-complete and the\n"
        "     verdict is incomplete\n"
        "  2  usage error\n"
        "  3  the endpoint is unreachable, or is not a runtime: GET /v1/health does not\n"
        "     answer 200 with a JSON health object (a router or gateway answering 400,\n"
        "     401, 403, 404, 502 or an HTML page; HTTP/1.x on the gRPC address), or a\n"
        "     launched runtime never became healthy; the reports asked for are written\n"
        "     all the same, with what answered and what to try\n"
        "  4  the suite itself failed (broken catalog, cannot write a report, interrupted)\n"
        "\n"
        "Examples:\n"
        "  sandboxd-conformance                                   # bundled sandboxd-ref\n"
        "  sandboxd-conformance --grpc 10.0.0.7:9090 --rest 10.0.0.7:8080 --junit junit.xml\n"
        "  sandboxd-conformance --launch './my-runtime --grpc-port {grpc_port} \\\n"
        "        --rest-port {rest_port} --root-dir {root}' --html report.html\n"
        "  sandboxd-conformance --grpc ... --rest ... --baseline known.yaml --json r.json\n"
        "  sandboxd-conformance --grpc ... --rest ... --rerun-failed r.json --seed 1234\n"
        "\n"
        "  --help, --version\n",
        f);
}

void cli_free(struct cli_opts *o)
{
    request_headers_free(&o->headers);
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    if (!s || !*s || strspn(s, "0123456789") != strlen(s)) return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > max) return -1;
    *out = v;
    return 0;
}

/* "512M", "2G", "1048576": at least 1 MiB, at most 1 TiB. */
static int parse_size(const char *s, size_t *out)
{
    size_t digits = strspn(s, "0123456789");
    if (digits == 0) return -1;
    unsigned long long mult = 1;
    const char *suffix = s + digits;
    if (strcmp(suffix, "K") == 0 || strcmp(suffix, "Ki") == 0)
        mult = 1ULL << 10;
    else if (strcmp(suffix, "M") == 0 || strcmp(suffix, "Mi") == 0)
        mult = 1ULL << 20;
    else if (strcmp(suffix, "G") == 0 || strcmp(suffix, "Gi") == 0)
        mult = 1ULL << 30;
    else if (*suffix)
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > (1ULL << 40) / mult || v * mult < (1ULL << 20)) return -1;
    *out = (size_t)(v * mult);
    return 0;
}

int cli_parse(struct cli_opts *o, int argc, char **argv, char *err, size_t err_len)
{
    memset(o, 0, sizeof *o);
    o->color = -1;
    o->timeout_scale = 1.0;
    o->unresponsive_after = 3;
    o->startup_timeout_s = 20;
    size_t nenv = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char name[64];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        /* TLS options (cli_tls.c). */
        bool tls_valued;
        int tls = cli_tls_option(&o->tls, name, val, &tls_valued, err, err_len);
        if (tls < 0) return -1;
        if (tls > 0) {
            if (tls_valued && !val) {
                if (i + 1 >= argc) {
                    snprintf(err, err_len, "%s needs a value", name);
                    return -1;
                }
                if (cli_tls_option(&o->tls, name, argv[++i], &tls_valued, err, err_len) < 0)
                    return -1;
            }
            continue;
        }
        /* Flags without a value. */
        static const char *const flags[] = {"--list",
                                            "--help",
                                            "-h",
                                            "--version",
                                            "--require-complete",
                                            "--quiet",
                                            "--confine-runtime",
                                            NULL};
        bool is_flag = false;
        for (const char *const *fl = flags; *fl; fl++)
            is_flag |= strcmp(name, *fl) == 0;
        if (is_flag) {
            if (val) {
                snprintf(err, err_len, "%s takes no value", name);
                return -1;
            }
            if (strcmp(name, "--list") == 0)
                o->list = true;
            else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
                o->help = true;
            else if (strcmp(name, "--version") == 0)
                o->version = true;
            else if (strcmp(name, "--require-complete") == 0)
                o->require_complete = true;
            else if (strcmp(name, "--confine-runtime") == 0)
                o->confine_runtime = true;
            else
                o->quiet = true;
            continue;
        }
        if (strncmp(name, "-", 1) != 0) {
            snprintf(err, err_len, "unexpected argument '%s' (options start with --)", a);
            return -1;
        }
        /* Options that take a value; anything else is unknown, whether or not
         * a word follows it. */
        static const char *const valued[] = {"--grpc",
                                             "--rest",
                                             "--launch",
                                             "--launch-bundled",
                                             "--launch-env",
                                             "--startup-timeout",
                                             "--explain",
                                             "--focus",
                                             "--skip",
                                             "--tags",
                                             "--level",
                                             "--profile",
                                             "--rerun-failed",
                                             "--jobs",
                                             "-j",
                                             "--seed",
                                             "--timeout-scale",
                                             "--baseline",
                                             "--openapi",
                                             "--json",
                                             "--junit",
                                             "--tap",
                                             "--markdown",
                                             "--html",
                                             "--bundle",
                                             "--log",
                                             "--color",
                                             "--colour",
                                             "--data-dir",
                                             "--max-output",
                                             "--unresponsive-after",
                                             NULL};
        bool known = request_headers_is_option(name);
        for (const char *const *vn = valued; *vn; vn++)
            known |= strcmp(name, *vn) == 0;
        if (!known) {
            snprintf(err, err_len, "unknown option '%s' (see --help)", name);
            return -1;
        }
        if (!val) {
            if (i + 1 >= argc) {
                snprintf(err, err_len, "%s needs a value", name);
                return -1;
            }
            val = argv[++i];
        }
        /* Request headers (request_headers.h). */
        int hdr = request_headers_option(&o->headers, name, val, err, err_len);
        if (hdr < 0) return -1;
        if (hdr > 0) continue;
        unsigned long long u;
        if (strcmp(name, "--grpc") == 0)
            o->grpc = val;
        else if (strcmp(name, "--rest") == 0)
            o->rest = val;
        else if (strcmp(name, "--launch") == 0)
            o->launch = val;
        else if (strcmp(name, "--launch-bundled") == 0)
            o->launch_bundled = val;
        else if (strcmp(name, "--launch-env") == 0) {
            if (!strchr(val, '=') || val[0] == '=') {
                snprintf(err, err_len, "--launch-env wants NAME=VALUE, got '%s'", val);
                return -1;
            }
            if (nenv >= CLI_MAX_ENV) {
                snprintf(err, err_len, "at most %d --launch-env options", CLI_MAX_ENV);
                return -1;
            }
            o->launch_env[nenv++] = val;
        } else if (strcmp(name, "--startup-timeout") == 0) {
            if (parse_uint(val, 3600, &u) != 0 || u == 0) {
                snprintf(err, err_len, "--startup-timeout wants seconds (1-3600), got '%s'", val);
                return -1;
            }
            o->startup_timeout_s = (unsigned)u;
        } else if (strcmp(name, "--explain") == 0)
            o->explain = val;
        else if (strcmp(name, "--focus") == 0)
            o->focus = val;
        else if (strcmp(name, "--skip") == 0)
            o->skip = val;
        else if (strcmp(name, "--tags") == 0)
            o->tags = val;
        else if (strcmp(name, "--level") == 0) {
            if (strcmp(val, "core") != 0 && strcmp(val, "full") != 0) {
                snprintf(err, err_len, "--level wants core or full, got '%s'", val);
                return -1;
            }
            o->core_only = strcmp(val, "core") == 0;
        } else if (strcmp(name, "--profile") == 0) {
            if (strcmp(val, "transport") != 0) {
                snprintf(err, err_len, "--profile: the only profile is 'transport', got '%s'", val);
                return -1;
            }
            o->transport = true;
        } else if (strcmp(name, "--rerun-failed") == 0)
            o->rerun_failed = val;
        else if (strcmp(name, "--jobs") == 0 || strcmp(name, "-j") == 0) {
            if (parse_uint(val, 256, &u) != 0 || u == 0) {
                snprintf(err, err_len, "--jobs wants 1-256, got '%s'", val);
                return -1;
            }
            o->jobs = (unsigned)u;
        } else if (strcmp(name, "--seed") == 0) {
            if (parse_uint(val, (unsigned long long)INT64_MAX, &u) != 0) {
                snprintf(err, err_len, "--seed wants a non-negative integer, got '%s'", val);
                return -1;
            }
            o->seed = u;
            o->seed_set = true;
        } else if (strcmp(name, "--timeout-scale") == 0) {
            char *end;
            double d = strtod(val, &end);
            if (*end || !(d >= 0.1 && d <= 100)) {
                snprintf(err, err_len, "--timeout-scale wants 0.1-100, got '%s'", val);
                return -1;
            }
            o->timeout_scale = d;
        } else if (strcmp(name, "--max-output") == 0) {
            if (parse_size(val, &o->max_output) != 0) {
                snprintf(err, err_len,
                         "--max-output wants a size of 1M or more (e.g. 512M, 2G), "
                         "got '%s'",
                         val);
                return -1;
            }
        } else if (strcmp(name, "--unresponsive-after") == 0) {
            if (parse_uint(val, 10000, &u) != 0) {
                snprintf(err, err_len, "--unresponsive-after wants 0-10000, got '%s'", val);
                return -1;
            }
            o->unresponsive_after = (unsigned)u;
        } else if (strcmp(name, "--baseline") == 0)
            o->baseline = val;
        else if (strcmp(name, "--openapi") == 0)
            o->openapi = val;
        else if (strcmp(name, "--data-dir") == 0)
            o->data_dir = val;
        else if (strcmp(name, "--json") == 0)
            o->json = val;
        else if (strcmp(name, "--junit") == 0)
            o->junit = val;
        else if (strcmp(name, "--tap") == 0)
            o->tap = val;
        else if (strcmp(name, "--markdown") == 0)
            o->markdown = val;
        else if (strcmp(name, "--html") == 0)
            o->html = val;
        else if (strcmp(name, "--bundle") == 0)
            o->bundle = val;
        else if (strcmp(name, "--log") == 0)
            o->log = val;
        else if (strcmp(name, "--color") == 0 || strcmp(name, "--colour") == 0) {
            if (strcmp(val, "auto") == 0)
                o->color = -1;
            else if (strcmp(val, "always") == 0)
                o->color = 1;
            else if (strcmp(val, "never") == 0)
                o->color = 0;
            else {
                snprintf(err, err_len, "--color wants auto, always or never, got '%s'", val);
                return -1;
            }
        } else {
            snprintf(err, err_len, "unknown option '%s' (see --help)", name);
            return -1;
        }
    }
    if (o->help || o->version) return 0;
    int targets = (o->grpc || o->rest) + (o->launch != NULL) + (o->launch_bundled != NULL);
    if (targets > 1) {
        snprintf(err, err_len, "choose one target: --grpc/--rest, --launch or --launch-bundled");
        return -1;
    }
    if ((o->grpc != NULL) != (o->rest != NULL)) {
        snprintf(err, err_len, "attach mode needs both --grpc ADDR and --rest ADDR");
        return -1;
    }
    if (cli_tls_finish(&o->tls, &o->grpc, &o->rest, o->grpc != NULL, o->require_complete, err,
                       err_len) != 0)
        return -1;
    char why[256];
    if (o->grpc && endpoint_validate(o->grpc, why, sizeof why) != 0) {
        snprintf(err, err_len, "--grpc %s", why);
        return -1;
    }
    if (o->rest && endpoint_validate(o->rest, why, sizeof why) != 0) {
        snprintf(err, err_len, "--rest %s", why);
        return -1;
    }
    if (o->launch_env[0] && o->grpc) {
        snprintf(err, err_len, "--launch-env applies to launch mode only");
        return -1;
    }
    if (o->confine_runtime && (o->grpc || o->rest)) {
        snprintf(err, err_len, "--confine-runtime applies to launch mode only");
        return -1;
    }
    if (!o->jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n > 0 ? (unsigned)(n > 64 ? 64 : n) : 2;
    }
    return 0;
}
