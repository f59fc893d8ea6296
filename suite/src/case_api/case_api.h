/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASE_API_H
#define SBX_CASE_API_H
/* What a conformance case sees: its catalog entry, its context (endpoints,
 * its own workspace directory, a seed) and the calls that record outcomes.
 *
 * A case is a function plus one registration line:
 *
 *   static void exec_stdout_stderr(struct case_ctx *ctx) { ... }
 *   SBX_CASE(exec_stdout_stderr,
 *            .id = "P1-001", .title = "Execute returns stdout and stderr apart",
 *            .clauses = "P1", .level = LEVEL_MUST, .tags = "process",
 *            .catches = "stderr merged into stdout; bytes lost or re-encoded",
 *            .how = "runs sh -c 'printf out; printf err >&2' and compares both buffers");
 *
 * Each case runs in its own forked worker process with a timeout, so a case
 * may block on the endpoint; it never needs to guard against hanging forever
 * beyond sensible per-request timeouts. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum case_level { LEVEL_MUST = 0, LEVEL_SHOULD = 1 };

/* What a case needs from the run; unmet needs make it "skipped" with a reason. */
enum case_needs {
    NEEDS_LAUNCH = 1u << 0,    /* the suite started the runtime ([launch] clauses) */
    NEEDS_PROCFS = 1u << 1,    /* /proc readable inside the runtime's process view */
    NEEDS_PTY = 1u << 2,       /* the runtime's host offers pseudo-terminals */
    NEEDS_ALONE = 1u << 3,     /* must not run in parallel with other cases (load, lifecycle) */
    NEEDS_TRANSPORT = 1u << 4, /* part of the optional transport profile (T clauses) */
};

struct case_ctx;
typedef void (*case_fn)(struct case_ctx *ctx);

struct case_def {
    const char *id;      /* stable ID: clause group + number, e.g. "P1-001", "S1-012" */
    const char *title;   /* one line */
    const char *clauses; /* comma-separated clause IDs checked, e.g. "P1,P2" */
    enum case_level level;
    const char *tags;    /* comma-separated: process, pty, grpc, files, traversal, concurrency,
                            metadata, health, errors, lifecycle, transport */
    unsigned needs;      /* enum case_needs bits */
    unsigned timeout_s;  /* 0 = default (30 s) */
    const char *catches; /* the broken runtime behaviour this case catches */
    const char *how;     /* how it decides (shown by --explain) */
    case_fn fn;
    const char *file; /* where the case is written (set by SBX_CASE; --list, --explain) */
    unsigned line;
};

/* Registration: places the definition in the "sbx_cases" linker section,
 * which the catalog walks; no central list to edit. The file and line are
 * the registration's (relative to the source tree: the suite is built with
 * -fmacro-prefix-map). */
#define SBX_CASE(fn_, ...)                                                                         \
    static const struct case_def sbx_case_##fn_                                                    \
        __attribute__((used, section("sbx_cases"), aligned(sizeof(void *)))) = {                   \
            .fn = fn_, .file = __FILE__, .line = __LINE__, __VA_ARGS__}

/* ---- Context ---------------------------------------------------------- */

/* The case's own fresh directory, relative to the sandbox root, without a
 * leading slash (e.g. "sbxc-3f9a1c/P1-001"). Created before the case runs
 * and removed (recursively, over REST) after it, whatever the outcome. */
const char *case_dir(const struct case_ctx *ctx);

/* The sandbox root's absolute path as the runtime's processes see it
 * (known in launch mode; otherwise discovered once with Execute `pwd`).
 * NULL if it could not be determined. */
const char *case_root_path(struct case_ctx *ctx);

/* Endpoint addresses as given (host:port, [v6]:port or unix:/path). */
const char *case_grpc_addr(const struct case_ctx *ctx);
const char *case_rest_addr(const struct case_ctx *ctx);

/* True when the suite launched the runtime itself. */
bool case_launch_mode(const struct case_ctx *ctx);

/* Launch mode: the environment the suite planted for the runtime it started
 * (NULL-terminated "NAME=value" list: SANDBOX_* names, some with credential
 * markers, and names without the prefix). NULL in attach mode. */
const char *const *case_planted_env(const struct case_ctx *ctx);

/* The run's seed (printed by the runner); derive all randomness from it. */
uint64_t case_seed(const struct case_ctx *ctx);
/* Deterministic pseudo-random numbers from the case's seed stream. */
uint64_t case_rand(struct case_ctx *ctx);

/* Milliseconds of monotonic time (for bounding loops). */
uint64_t case_now_ms(void);

/* Milliseconds left before the runner stops waiting for this case (its
 * timeout times --timeout-scale; UINT64_MAX when unbounded). A case whose
 * fixed amount of work may not fit on a slow runtime checks it between
 * steps and reports skipped ("could not decide in time") rather than being
 * cut off as a timeout. */
uint64_t case_time_left_ms(const struct case_ctx *ctx);

/* ---- Outcomes ----------------------------------------------------------
 * A case passes when it returns without any failure recorded. A case that
 * records a failure may go on checking (all failures are reported). */

/* The request that the next failure refers to ("PUT /v1/files/a?mode=0644",
 * "Execute {command: [sh, -c, ...]}"); shown with failures. */
void case_request(struct case_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The request set last on this thread, copied into buf ("" when none). A
 * helper that sends probes of its own between a request and the checks of
 * its answer (e.g. an Execute that looks outside the root) saves it first and
 * sets it back afterwards, so those checks still name the request. */
void case_request_copy(const struct case_ctx *ctx, char *buf, size_t len);

/* Records a failure: what was expected and what was observed. */
void case_fail(struct case_ctx *ctx, const char *expected, const char *observed_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The case cannot be checked here (e.g. no /proc): it is reported as skipped
 * with this reason, even if failures were recorded before. */
void case_skip(struct case_ctx *ctx, const char *reason_fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The suite itself could not run the case (setup failed for reasons that are
 * not the runtime's fault, e.g. local resource exhaustion). */
void case_error(struct case_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Informational line kept in the report (e.g. "signal death reported as -1"). */
void case_note(struct case_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A document finding: the OpenAPI document the run validates against
 * (--openapi) does not describe something the contract requires (a HEAD
 * operation, a 206, an error status), so the case judged that response by
 * the contract instead. Listed in every report apart from failures; it
 * never fails the case. Repeats of the same text in one case are kept once. */
void case_doc_finding(struct case_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* True once a failure, skip or error has been recorded. */
bool case_failed(const struct case_ctx *ctx);

/* Convenience: record a failure unless cond holds; evaluates to cond. */
#define CASE_CHECK(ctx, cond, expected, ...)                                                       \
    ((cond) ? true : (case_fail((ctx), (expected), __VA_ARGS__), false))

/* ---- Process cleanup ---------------------------------------------------
 * Every process a case starts through the process API is registered here;
 * after the case (also on failure or timeout) the runner sends SIGKILL to
 * each one still registered. */
void case_track_process(struct case_ctx *ctx, int32_t process_id);
void case_untrack_process(struct case_ctx *ctx, int32_t process_id);

/* The runtime could not be reached (no connection, or no answer at all):
 * the scheduler's circuit breaker counts cases that saw this. Client
 * libraries call it; what says why goes into the run's log. */
void case_report_unreachable(struct case_ctx *ctx, const char *what);

/* ---- Per-case state for client libraries -------------------------------
 * A client library keeps state that lives as long as one case here (e.g. the
 * process client's shared gRPC connection); `destroy` runs when the case
 * ends. Returns NULL when nothing is stored under key. */
void *case_client_state(struct case_ctx *ctx, const char *key);
/* Stores state under key (replacing and destroying an older value); returns 0,
 * or -1 when all slots are taken. */
int case_set_client_state(struct case_ctx *ctx, const char *key, void *state,
                          void (*destroy)(void *state));

/* ---- Private runtime instances (launch mode only) ----------------------
 * Lifecycle and [launch] cases start their own instance of the runtime under
 * test, with extra flags and environment, so they can signal it. */
struct private_runtime;

struct private_runtime_opts {
    const char *const *extra_env;  /* NULL-terminated "NAME=value" list, added to the planted set */
    const char *const *extra_args; /* NULL-terminated extra argv words appended to the command */
    bool missing_root;             /* pass a root path that does not exist yet (L2) */
    bool no_planted_env;           /* start without the planted variables (only PATH, HOME...) */
    const char *host;              /* numeric address the instance listens on ({host}; the case
                                      passes the flag that says so); NULL = 127.0.0.1 */
    const char *must_start;        /* a start failure is a failure of the case with this
                                      expectation (not an error of the suite) */
};

/* Starts an instance (fresh root and ports), waits for /v1/health. NULL with
 * case_error()/case_skip() recorded when impossible (attach mode: skip). */
struct private_runtime *case_runtime_start(struct case_ctx *ctx,
                                           const struct private_runtime_opts *opts);
const char *private_runtime_grpc_addr(const struct private_runtime *rt);
const char *private_runtime_rest_addr(const struct private_runtime *rt);
const char *private_runtime_root(const struct private_runtime *rt);
int private_runtime_pid(const struct private_runtime *rt);
/* The environment planted for the instance (NULL-terminated "NAME=value"). */
const char *const *private_runtime_env(const struct private_runtime *rt);
/* Sends a signal to the runtime process. */
int private_runtime_signal(struct private_runtime *rt, int sig);
/* Waits up to timeout_ms for exit; returns 0 and sets *status (waitpid
 * status) if it exited, -1 on timeout. */
int private_runtime_wait(struct private_runtime *rt, unsigned timeout_ms, int *status);
/* Kills (if still running), reaps, removes its root. Safe on NULL. */
void private_runtime_stop(struct private_runtime *rt);

/* Points the case at a private instance: from now on case_grpc_addr(),
 * case_rest_addr(), rest_do() and the process client talk to rt. Client
 * state bound to the previous endpoint (e.g. the process client's
 * connection) is set aside, and given back by case_use_shared_runtime(),
 * which the runner also calls when the case ends. Call it before stopping
 * rt. */
void case_use_runtime(struct case_ctx *ctx, const struct private_runtime *rt);
void case_use_shared_runtime(struct case_ctx *ctx);

#endif
