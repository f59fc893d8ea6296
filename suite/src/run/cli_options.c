/* SPDX-License-Identifier: Apache-2.0 */
/* The run's option table: parser, --help and man page rows (opt_table.h). */
#include "cli.h"

#include <stddef.h>

#include "cli_values.h"

#define STR(f) .kind = OPT_SET_STR, .offset = offsetof(struct cli_opts, f)
#define FLAG(f) .kind = OPT_SET_TRUE, .offset = offsetof(struct cli_opts, f)
#define CALL(fn) .kind = OPT_CALL, .set = fn
#define TEXT .kind = OPT_TEXT

static const struct opt_group groups[] = {
    {"target", "\nTarget (one of):\n"},
    {"tls", "\nTLS (attach mode; each surface independently):\n"},
    {"headers", "\nRequest headers (behind a router, a gateway or an authenticating proxy):\n"},
    {"catalog", "\nCatalog:\n"},
    {"selection", "\nSelection:\n"},
    {"running", "\nRunning:\n"},
    {"reports", "\nReports (any combination):\n"},
    {"verdict", "\nVerdict:\n"},
    {"meta", "\n"
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
             "  4  the suite itself failed (broken catalog, cannot write a report,\n"
             "     interrupted)\n"
             "\n"
             "Examples:\n"
             "  sandboxd-conformance                                   # bundled sandboxd-ref\n"
             "  sandboxd-conformance --grpc 10.0.0.7:9090 --rest 10.0.0.7:8080 \\\n"
             "        --junit junit.xml\n"
             "  sandboxd-conformance --launch './my-runtime --grpc-port {grpc_port} \\\n"
             "        --rest-port {rest_port} --root-dir {root}' --html report.html\n"
             "  sandboxd-conformance --grpc ... --rest ... --baseline known.yaml --json r.json\n"
             "  sandboxd-conformance --grpc ... --rest ... --rerun-failed r.json --seed 1234\n"
             "\n"},
};

static const struct opt_spec opts[] = {
    /* target */
    {.name = "grpc",
     .arg = "ADDR",
     .group = "target",
     STR(grpc),
     .label = "--grpc ADDR --rest ADDR",
     .help = "attach to a running runtime; ADDR is host:port,\n"
             "[v6]:port or unix:/path. [launch] cases are skipped.",
     .man = "Attach to a running runtime; ADDR is host:port, [v6]:port, unix:/path or\n"
            "https://host:port (TLS, see\n"
            ".BR TLS ).\n"
            "Cases of [launch] clauses are skipped, so the verdict is at best incomplete."},
    {.name = "rest", .arg = "ADDR", .group = "target", STR(rest)},
    {.name = "launch",
     .arg = "COMMAND",
     .group = "target",
     STR(launch),
     .label = "--launch 'COMMAND'",
     .help = "start the runtime: the suite picks free loopback\n"
             "ports and a fresh root and substitutes {grpc_port}\n"
             "{rest_port} {root} {host}; plants a controlled\n"
             "environment (SANDBOX_* names, some with credential\n"
             "markers, and others), waits for /v1/health, runs,\n"
             "then stops it with SIGTERM.",
     .man = "Start the runtime: the suite picks free loopback ports and a fresh root,\n"
            "substitutes {grpc_port}, {rest_port}, {root} and {host} in COMMAND, plants a\n"
            "controlled environment, waits for /v1/health, runs, then stops it with\n"
            "SIGTERM."},
    {.name = "launch-bundled",
     .arg = "PATH",
     .group = "target",
     STR(launch_bundled),
     .help = "launch mode on a sandboxd-ref binary at PATH.",
     .man = "Launch mode on a sandboxd\\-ref binary at PATH."},
    {.group = "target",
     TEXT,
     .label = "(none)",
     .help = "launch mode on the bundled sandboxd-ref (next to\n"
             "this binary's build tree, or on PATH).",
     .man = "Launch mode on the bundled\n"
            ".BR sandboxd\\-ref (1):\n"
            "the one next to this binary, or on PATH."},
    {.name = "launch-env",
     .arg = "NAME=VALUE",
     .flags = OPT_REPEATABLE,
     .group = "target",
     CALL(cli_set_launch_env),
     .help = "add a variable to the launched runtime's environment\n(repeatable).",
     .man = "Add a variable to the launched runtime's environment (repeatable)."},
    {.name = "startup-timeout",
     .arg = "S",
     .group = "target",
     CALL(cli_set_startup_timeout),
     .help = "how long to wait for a launched runtime's health\n"
             "(20).",
     .man = "How long to wait for a launched runtime's health (20)."},
    {.name = "confine-runtime",
     .group = "target",
     FLAG(confine_runtime),
     .help = "launch the runtime (and every private instance) in a\n"
             "private mount namespace where all of the host's file\n"
             "systems are read-only except the runtime's own\n"
             "directory (the sandbox root and its parent, where\n"
             "canaries go), a private /tmp and /dev/shm: a runtime\n"
             "whose confinement is broken cannot change the host's\n"
             "files. The runtime sees an empty /tmp and cannot\n"
             "write anywhere else (caches in HOME included: HOME\n"
             "is its own directory). Needs root (CAP_SYS_ADMIN).",
     .man = "Launch the runtime (and every private instance) in a private mount\n"
            "namespace where all of the host's file systems are read-only except the\n"
            "runtime's own directory (the sandbox root and its parent, where canaries\n"
            "go), a private /tmp and /dev/shm. Needs root; refused in attach mode."},
    /* TLS */
    {.group = "tls",
     TEXT,
     .label = "--grpc https://HOST:PORT",
     .help = "the gRPC surface over TLS (ALPN h2); the same for",
     .man = OPT_NO_MAN},
    {.group = "tls",
     TEXT,
     .label = "--rest https://HOST:PORT",
     .help = "REST. Plain host:port stays cleartext.",
     .man = OPT_NO_MAN},
    {.name = "tls",
     .group = "tls",
     FLAG(tls.both),
     .help = "both surfaces over TLS (host:port become https://).",
     .man = "Both surfaces over TLS: host:port addresses become https://host:port."},
    {.name = "cacert",
     .arg = "FILE",
     .group = "tls",
     CALL(cli_set_tls_file),
     .help = "PEM CA certificates the server's certificate is\n"
             "verified against (default: the system's store).",
     .man = "PEM CA certificates the server's certificate is verified against (default:\n"
            "the system's store)."},
    {.name = "cert",
     .arg = "FILE",
     .group = "tls",
     CALL(cli_set_tls_file),
     .label = "--cert FILE --key FILE",
     .help = "mutual TLS: the client certificate and its key\n"
             "(PEM).",
     .man = "Mutual TLS: the client certificate (PEM, with its chain) and its private key.\n"
            "One without the other, an unreadable file, or a key that does not match the\n"
            "certificate is a usage error (exit 2) before anything runs."},
    {.name = "key", .arg = "FILE", .group = "tls", CALL(cli_set_tls_file)},
    {.name = "insecure",
     .group = "tls",
     FLAG(tls.opts.insecure),
     .help = "no verification of the server's certificate or name;\n"
             "the verdict says \"TLS not verified\" and\n"
             "--require-complete refuses it.",
     .man = "No verification of the server's certificate or name. The verdict then says\n"
            "\"TLS not verified\", and \\-\\-require\\-complete refuses the option."},
    {.name = "authority",
     .arg = "NAME",
     .group = "tls",
     CALL(cli_set_authority),
     .help = "the name the runtime is reached by: gRPC :authority,\n"
             "REST Host, TLS SNI and the name verified.",
     .man = "The name the runtime is reached by: the gRPC :authority, the REST Host\n"
            "header (libcurl's CONNECT_TO keeps the connection on the address), the TLS\n"
            "server name (SNI) and the name verified."},
    /* request headers */
    {.name = "header",
     .arg = "'Name: value'",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(cli_set_header),
     .help = "send this header on every REST request and as gRPC\n"
             "metadata (name in lower case) on every call the run\n"
             "makes: cases, probes, health checks, workspace\n"
             "set-up and clean-up (repeatable). A header a case\n"
             "sets itself is never replaced.",
     .man = "Both surfaces (repeatable)."},
    {.name = "rest-header",
     .arg = "'Name: value'",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(cli_set_header),
     .help = "the same, REST only (repeatable).",
     .man = "REST only (repeatable)."},
    {.name = "grpc-header",
     .arg = "'Name: value'",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(cli_set_header),
     .help = "the same, gRPC only (repeatable).",
     .man = "gRPC only (repeatable)."},
    {.name = "header-file",
     .arg = "FILE",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(cli_set_header),
     .help = "headers from FILE, one 'Name: value' per line (blank\n"
             "lines and # comments allowed), for both surfaces:\n"
             "keeps secrets out of the process list and shell\n"
             "history.",
     .man = "One\n"
            ".I Name: value\n"
            "per line, blank lines and\n"
            ".B #\n"
            "comments allowed, for both surfaces: keeps secrets out of the process list\n"
            "and the shell history."},
    {.name = "secret-header",
     .arg = "NAME",
     .flags = OPT_REPEATABLE,
     .group = "headers",
     CALL(cli_set_header),
     .help = "treat NAME's value as a secret (repeatable). Values\n"
             "of Authorization, Cookie, Proxy-Authorization and\n"
             "secret headers are never written to a report, log or\n"
             "bundle (the command line recorded there included):\n"
             "they read 'Name: <redacted>'. Host, Content-Length,\n"
             "Content-Type, TE, Connection, Transfer-Encoding,\n"
             "Keep-Alive, Upgrade, Expect, Trailer, grpc-* and\n"
             "pseudo-headers are refused.",
     .man = "Treat NAME's value as a secret (repeatable). The values of Authorization,\n"
            "Cookie, Proxy\\-Authorization and secret headers are never written to a\n"
            "report, a log or the bundle, the recorded command line included: they read\n"
            ".IR \"Name: <redacted>\" ."},
    /* catalog */
    {.name = "list",
     .group = "catalog",
     FLAG(list),
     .help = "print the (selected) cases: ID, level, clauses,\n"
             "tags, needs, timeout, title; then exit.",
     .man = "Print the (selected) cases: ID, level, clauses, tags, needs, timeout, title."},
    {.name = "explain",
     .arg = "ID",
     .group = "catalog",
     STR(explain),
     .help = "print a case's purpose, its clauses' text, what it\n"
             "catches and how it decides; then exit.",
     .man = "Print a case's purpose, the contract's text of its clauses, what it catches\n"
            "and how it decides."},
    /* selection */
    {.name = "focus",
     .arg = "REGEX",
     .group = "selection",
     STR(focus),
     .help = "run only cases whose \"ID title clauses tags\" matches\n(POSIX extended regex).",
     .man = "Run only cases whose \"ID title clauses tags\" matches (POSIX extended regex)."},
    {.name = "skip",
     .arg = "REGEX",
     .group = "selection",
     STR(skip),
     .help = "leave out cases that match.",
     .man = "Leave out cases that match."},
    {.name = "tags",
     .arg = "a,b",
     .group = "selection",
     STR(tags),
     .help = "run only cases with one of these tags (process, pty,\n"
             "grpc, files, traversal, concurrency, metadata,\n"
             "health, errors, lifecycle, transport).",
     .man = "Run only cases with one of these tags (process, pty, grpc, files, traversal,\n"
            "concurrency, metadata, health, errors, lifecycle, transport)."},
    {.name = "level",
     .arg = "core|full",
     .group = "selection",
     CALL(cli_set_level),
     .help = "core: MUST cases only; full: MUST and SHOULD\n"
             "(default).",
     .man = "core: MUST cases only; full: MUST and SHOULD (default)."},
    {.name = "profile",
     .arg = "transport",
     .group = "selection",
     CALL(cli_set_profile),
     .help = "add the transport profile (T clauses, as MUST):\n"
             "point --grpc/--rest at a proxy in front of a runtime\n"
             "(one address for both, or split). A proxy that\n"
             "answers HTTP/1.1 on the gRPC address is reported,\n"
             "not refused: T1-T3 fail, cases needing gRPC are\n"
             "skipped.",
     .man = "Add the transport profile (T clauses, as MUST), for a proxy in front of a\n"
            "runtime."},
    {.name = "rerun-failed",
     .arg = "FILE",
     .group = "selection",
     STR(rerun_failed),
     .help = "run only the cases that failed, timed out or errored\n"
             "in an earlier results.json.",
     .man = "Run only the cases that failed, timed out or errored in an earlier\n"
            "results.json."},
    /* running */
    {.name = "jobs",
     .short_name = 'j',
     .arg = "N",
     .group = "running",
     CALL(cli_set_jobs),
     .help = "cases in parallel (default: number of cores); cases\n"
             "that must run alone are run after, one at a time.",
     .man = "Cases in parallel (default: the number of cores)."},
    {.name = "seed",
     .arg = "N",
     .group = "running",
     CALL(cli_set_seed),
     .help = "seed for randomised and race cases (default: random;\n"
             "always printed, so a run can be reproduced).",
     .man = "Seed for randomised and race cases (default random, always printed)."},
    {.name = "timeout-scale",
     .arg = "X",
     .group = "running",
     CALL(cli_set_timeout_scale),
     .help = "multiply every case timeout (slow hosts,\n"
             "sanitizers).",
     .man = "Multiply every case timeout."},
    {.name = "max-output",
     .arg = "SIZE",
     .group = "running",
     CALL(cli_set_max_output),
     .help = "bytes a case may take from the runtime: its Start\n"
             "output in all, and each response body (default 512M;\n"
             "K, M, G suffixes). Beyond it the case fails with\n"
             "\"output exceeds N MiB\" and the stream is stopped.",
     .man = "Bytes a case may take from the runtime: its Start output in all, and each\n"
            "response body (default 512M; K, M, G suffixes). Beyond it the case fails\n"
            "with \"output exceeds N MiB\" and the stream is stopped."},
    {.name = "unresponsive-after",
     .arg = "N",
     .group = "running",
     CALL(cli_set_unresponsive_after),
     .help = "circuit breaker: after N consecutive cases timed out\n"
             "or could not connect, and health or one Execute then\n"
             "fails too, the cases not finished are reported\n"
             "\"error: runtime unresponsive\" at once (default 3;\n"
             "0 = never).",
     .man = "Circuit breaker: after N consecutive cases timed out or could not connect,\n"
            "and health or one Execute then fails too, the cases not finished are\n"
            "reported \"error: runtime unresponsive\" at once (default 3; 0 turns it off)."},
    {.name = "baseline",
     .arg = "FILE",
     .group = "running",
     STR(baseline),
     .help = "known deviations (YAML list of id/reason/link):\n"
             "their failures are expected-fail and do not fail the\n"
             "run; when one passes it is reported as\n"
             "unexpected-pass. An entry naming a case this suite\n"
             "does not have is an error (exit 2) before anything\n"
             "runs.",
     .man = "Known deviations (YAML list of id, reason, link): their failures are\n"
            "expected and do not fail the run. An entry naming a case this suite does not\n"
            "have (renamed, removed, or a typo) is an error (exit 2) before anything runs."},
    {.name = "openapi",
     .arg = "FILE",
     .group = "running",
     STR(openapi),
     .help = "the OpenAPI 3.0 document responses are validated\n"
             "against (default: $SBX_OPENAPI, else\n"
             "openapi/sandboxd.yaml of the data directory); paths\n"
             "are taken under its servers' base paths. What the\n"
             "contract requires and the document does not describe\n"
             "is judged by the contract and listed as a document\n"
             "finding.",
     .man = "The OpenAPI document JSON responses are validated against (default\n"
            "$SBX_OPENAPI, else openapi/sandboxd.yaml of the data directory)."},
    {.name = "data-dir",
     .arg = "DIR",
     .group = "running",
     STR(data_dir),
     .help = "the suite's data: OpenAPI document, traversal\n"
             "vectors, contract (default: $SBX_DATA_DIR, else\n"
             "../share/sandboxd-conformance beside this binary,\n"
             "else the source tree it was built from).",
     .man = "The suite's run-time data: the OpenAPI document, the traversal vectors, the\n"
            "contract (default $SBX_DATA_DIR, else ../share/sandboxd\\-conformance beside\n"
            "the binary, else the source tree it was built from)."},
    /* reports */
    {.name = "json",
     .arg = "FILE",
     .group = "reports",
     STR(json),
     .help = "results, versioned schema\n"
             "(reports/results-schema.json)",
     .man = "Results in a versioned schema\n"
            ".RI ( /usr/share/sandboxd\\-conformance/reports/results\\-schema.json )."},
    {.name = "junit",
     .arg = "FILE",
     .group = "reports",
     STR(junit),
     .help = "JUnit XML, one testcase per case, classname = group",
     .man = "JUnit XML, one testcase per case."},
    {.name = "tap",
     .arg = "FILE",
     .group = "reports",
     STR(tap),
     .help = "TAP version 13",
     .man = "TAP version 13."},
    {.name = "markdown",
     .arg = "FILE",
     .group = "reports",
     STR(markdown),
     .help = "summary for a pull-request comment or CI job summary",
     .man = "Summary for a pull-request comment or a CI job summary."},
    {.name = "html",
     .arg = "FILE",
     .group = "reports",
     STR(html),
     .help = "self-contained conformance report by clause",
     .man = "Self-contained report by clause."},
    {.name = "bundle",
     .arg = "DIR",
     .group = "reports",
     STR(bundle),
     .help = "certification bundle: results.json, junit.xml,\n"
             "reports, the full log, runtime identity, parameters,\n"
             "suite version",
     .man = "Certification bundle: all of the above, the full log, the runtime's\n"
            "identity and the run parameters."},
    {.name = "log",
     .arg = "FILE",
     .group = "reports",
     STR(log),
     .help = "also keep the full log here",
     .man = "Also keep the full log here."},
    {.name = "color",
     .arg = "auto|always|never",
     .group = "reports",
     CALL(cli_set_color),
     .help = "console colour (auto: on a TTY unless NO_COLOR is\n"
             "set)",
     .man = "Console colour (auto: on a terminal unless NO_COLOR is set)."},
    {.name = "colour",
     .arg = "auto|always|never",
     .flags = OPT_ALIAS,
     .group = "reports",
     CALL(cli_set_color)},
    {.name = "quiet",
     .group = "reports",
     FLAG(quiet),
     .help = "console: no per-case lines, only the summary",
     .man = "Console: only the summary."},
    /* verdict */
    {.name = "require-complete",
     .group = "verdict",
     FLAG(require_complete),
     .help = "exit 1 also when the verdict is incomplete (for\n"
             "certification: nothing of the level may be missing).",
     .man = "Exit 1 also when the verdict is incomplete (for certification)."},
    /* meta */
    {.name = "help",
     .short_name = 'h',
     .group = "meta",
     FLAG(help),
     .label = "--help, --version",
     .help = "",
     .man = "Print the options, or the version and the data directory, and exit."},
    {.name = "version", .group = "meta", FLAG(version)},
    {.name = "man-options",
     .arg = "COMMAND[:GROUP]",
     .flags = OPT_INTERNAL,
     .group = "meta",
     STR(man_options)},
    {.name = "dump-options", .flags = OPT_INTERNAL, .group = "meta", FLAG(dump_options)},
};

const struct opt_command cli_command = {
    .name = "run",
    .opts = opts,
    .n_opts = sizeof opts / sizeof opts[0],
    .groups = groups,
    .n_groups = sizeof groups / sizeof groups[0],
    .style = OPT_STYLE_EXACT,
    .allow_eq = true,
    .msg_unknown = "unknown option '%s' (see --help)",
    .msg_needs_value = "%s needs a value",
    .msg_no_value = "%s takes no value",
    .msg_positional = "unexpected argument '%s' (options start with --)",
    .help_head =
        "Usage: sandboxd-conformance [TARGET] [SELECTION] [REPORTS] [OPTIONS]\n"
        "       sandboxd-conformance bench [OPTIONS]    (measure a runtime; bench --help)\n"
        "       sandboxd-conformance summary DIR...     (a fleet's bundles in one report)\n"
        "\n"
        "Checks a sandboxd runtime (gRPC process.v1.ProcessService + REST /v1) against\n"
        "the sandboxd runtime contract, case by case, and reports a verdict: full\n"
        "conformant, core conformant, not conformant, or incomplete.\n"
        "\n"
        "Subcommands:\n"
        "  sandboxd-conformance compare RESULTS.json...\n"
        "                            compare runs case by case, gate on regressions\n"
        "                            (--base), keep baselines (see compare --help)\n"
        "  sandboxd-conformance bench [...]\n"
        "                            measure a runtime, or two side by side (see\n"
        "                            bench --help)\n"
        "  sandboxd-conformance explore [...]\n"
        "                            random operation sequences judged by a model of\n"
        "                            the contract, shrunk (see explore --help)\n",
    .help_tail = "",
    .help_col = 28,
};
