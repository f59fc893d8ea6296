/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_PROC_UTIL_H
#define SBX_CASES_PROC_UTIL_H
/* Helpers shared by the process, PTY and gRPC cases: shell runs in the
 * case directory, liveness checks through pidfiles, and Start streams read
 * with the P7 event grammar checked on every event. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case_api.h"
#include "process_client.h"

/* A NULL-terminated argv literal. */
#define PU_ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Enum values of process.v1.Signal. */
#define PU_SIGINT 2
#define PU_SIGKILL 9
#define PU_SIGTERM 15

/* Printable rendering of bytes (escapes, truncated to max), malloc'd. */
char *pu_preview(const void *data, size_t len, size_t max);

/* A printf(1) format that writes exactly these bytes (each as an octal
 * escape), malloc'd: how binary test data reaches a process's output. */
char *pu_octal_format(const uint8_t *b, size_t n);

/* Execute `sh -c script` in the case directory for set-up or inspection:
 * records a failure naming `purpose` unless the call succeeds with exit 0.
 * r may be NULL when the output is not needed. */
bool pu_sh_ok(struct case_ctx *ctx, const char *script, const char *purpose, struct rpc_result *r);

/* "<root>/<case_dir>/<rel>" as the runtime's processes see it (rel may be
 * "" for the directory itself), malloc'd; NULL with case_error() recorded
 * when the root path is unknown. */
char *pu_case_abs(struct case_ctx *ctx, const char *rel);

/* Whether a path relative to the case directory exists (Execute `test -e`).
 * -1 (failure recorded) if the check itself failed. */
int pu_exists(struct case_ctx *ctx, const char *rel);

/* Liveness of the processes whose pids a pidfile (relative to the case
 * directory, one pid per line) lists. Zombies count as gone. UNKNOWN: a pid
 * still answers kill -0 but its state cannot be read (no /proc in the
 * runtime, or another user's process), so a zombie cannot be told from a
 * live process; cases skip rather than guess. */
enum pu_pid_state {
    PU_PIDS_GONE = 0,
    PU_PIDS_ALIVE = 1,
    PU_PIDS_NOFILE = 2,
    PU_PIDS_UNKNOWN = 3,
    PU_PIDS_ERROR = -1
};
int pu_pidfile_state(struct case_ctx *ctx, const char *pidfile);

/* Polls until the pidfile exists with content; false on timeout. */
bool pu_wait_pidfile(struct case_ctx *ctx, const char *pidfile, unsigned timeout_ms);

/* Polls until every pid of the pidfile is gone. Returns PU_PIDS_GONE, or
 * the last state seen when timeout_ms passed (PU_PIDS_ALIVE or
 * PU_PIDS_UNKNOWN), or PU_PIDS_ERROR (failure recorded). */
int pu_wait_pids_gone(struct case_ctx *ctx, const char *pidfile, unsigned timeout_ms);

/* Records the outcome of pu_wait_pids_gone for a check named `expected`:
 * true when gone; a failure (observed: what_alive) when alive; a skip when
 * the state cannot be told and nothing else failed. Kills what is left. */
bool pu_expect_pids_gone(struct case_ctx *ctx, const char *pidfile, int state, const char *expected,
                         const char *what_alive);

/* Kills (SIGKILL from inside the sandbox) the pids of a pidfile; cleanup of
 * processes a faulty runtime left behind. */
void pu_kill_pidfile(struct case_ctx *ctx, const char *pidfile);

/* ---- Start streams with the P7 grammar checked --------------------------- */

struct pu_stream;
typedef void (*pu_sink)(struct pu_stream *ps, bool is_stderr, const uint8_t *data, size_t len,
                        void *ud);

struct pu_stream {
    struct case_ctx *ctx;
    struct rpc_stream *s;
    const char *label;
    struct sbx_grpc_conn *conn; /* set before pu_begin: start on this connection (NULL = the
                                   case's shared one); control calls still use the shared one */
    bool have_init, have_exit, ended, broken;
    int32_t pid;
    int32_t exit_code;
    int end_code;
    char end_msg[256];
    /* Output kept unless a sink is set (then the sink sees every chunk). */
    uint8_t *out, *err;
    size_t out_len, err_len;
    size_t out_events, err_events;
    pu_sink sink;
    void *sink_ud;
};

/* Starts the stream and waits up to init_ms for its first event, which must
 * be the InitEvent. False (failure recorded) otherwise. */
bool pu_start(struct case_ctx *ctx, struct pu_stream *ps, const struct rpc_spec *spec,
              const uint32_t *pty_cols_rows, unsigned init_ms);

/* Starts the stream without waiting (pu_start = pu_begin + pu_wait_init). */
bool pu_begin(struct case_ctx *ctx, struct pu_stream *ps, const struct rpc_spec *spec,
              const uint32_t *pty_cols_rows);
bool pu_wait_init(struct pu_stream *ps, unsigned init_ms);

/* Reads one event (waiting up to wait_ms), checks it against the grammar,
 * keeps output; returns its kind. Grammar violations are recorded once. */
int pu_pump(struct pu_stream *ps, unsigned wait_ms);

/* Reads until the kept stdout (or stderr) contains needle; false (failure
 * recorded, naming `what`) on timeout or end of stream. */
bool pu_wait_output(struct pu_stream *ps, bool is_stderr, const char *needle, unsigned timeout_ms,
                    const char *what);

/* Reads until the call ends; checks that an ExitEvent came and the status
 * is OK. False (failure recorded) otherwise. */
bool pu_finish(struct pu_stream *ps, unsigned timeout_ms);

/* Ends what is left: SIGKILL if the process has not exited, then frees. */
void pu_free(struct pu_stream *ps);

#endif
