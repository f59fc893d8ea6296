/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROCESS_CLIENT_H
#define SBX_PROCESS_CLIENT_H
/* ProcessService calls for cases, on the wire layer's gRPC client
 * (proto/grpc) and the generated process.v1 code. Every call records itself
 * with case_request(); every Start registers its process with
 * case_track_process() so the runner can kill it if the case fails. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx_grpc_status.h" /* the codes in rpc_result.code */

struct case_ctx;

struct rpc_spec {
    const char *const *argv; /* NULL-terminated; NULL = no config at all (P5) */
    const char *const *env;  /* NULL-terminated "NAME=value" list, or NULL */
    const char *cwd;         /* NULL = field absent; "" = present but empty */
    unsigned timeout_ms;     /* sent as grpc-timeout; 0 = no deadline (client waits 60 s) */
    unsigned wait_ms;        /* local bound on the call, after which it is cancelled
                                (RST_STREAM CANCEL) and ends with code -1; 0 = timeout_ms +
                                5 s with a deadline, else 60 s (Execute) or 120 s (Start) */
};

struct rpc_result {
    int code;          /* gRPC status code (0 = OK), or -1 on a transport error */
    char *message;     /* grpc-message, decoded; malloc'd or NULL */
    int32_t exit_code; /* Execute only */
    uint8_t *out;      /* stdout bytes (Execute) */
    size_t out_len;
    uint8_t *err; /* stderr bytes (Execute) */
    size_t err_len;
};

void rpc_result_free(struct rpc_result *r);

/* Execute. Returns r->code. */
int rpc_execute(struct case_ctx *ctx, const struct rpc_spec *spec, struct rpc_result *r);

/* Execute of argv that must succeed: 0 for status OK and exit code 0;
 * otherwise -1 with the status or the exit code and stderr in why. */
int rpc_execute_ok(struct case_ctx *ctx, const char *const *argv, unsigned timeout_ms, char *why,
                   size_t why_len);

/* Execute `sh -c script` with cwd = case_dir(ctx). Returns r->code. */
int rpc_sh(struct case_ctx *ctx, const char *script, struct rpc_result *r);

/* Start streams. */
struct rpc_stream;

enum rpc_event_kind {
    PEV_INIT,    /* ev->process_id */
    PEV_STDOUT,  /* ev->data, ev->len */
    PEV_STDERR,  /* ev->data, ev->len */
    PEV_EXIT,    /* ev->exit_code */
    PEV_OTHER,   /* a StartResponse with no event set (unknown oneof) */
    PEV_END,     /* the call ended: ev->code, ev->message (status) */
    PEV_TIMEOUT, /* nothing arrived within the wait */
    PEV_ERROR,   /* transport or decoding failure: ev->message */
};

struct rpc_event {
    enum rpc_event_kind kind;
    int32_t process_id;
    int32_t exit_code;
    const uint8_t *data; /* valid until the next rpc_next() */
    size_t len;
    int code;
    const char *message;
};

/* Opens a Start stream on the case's shared connection (pty: NULL = none). */
struct rpc_stream *rpc_start(struct case_ctx *ctx, const struct rpc_spec *spec,
                             const uint32_t *pty_cols_rows);

struct sbx_grpc_conn;

/* The same on a connection the case opened itself (e.g. to keep the shared
 * one free for control calls while many streams are open); NULL = shared. */
struct rpc_stream *rpc_start_on(struct case_ctx *ctx, struct sbx_grpc_conn *conn,
                                const struct rpc_spec *spec, const uint32_t *pty_cols_rows);

/* Waits up to timeout_ms for the next event. */
int rpc_next(struct rpc_stream *s, unsigned timeout_ms, struct rpc_event *ev);
/* Reads events until PEV_END (or timeout_ms), collecting stdout/stderr and
 * checking nothing; for cases that only need the totals. Returns 0 on END. */
int rpc_collect(struct rpc_stream *s, unsigned timeout_ms, struct rpc_result *r,
                int32_t *process_id);
/* Cancels the call (RST_STREAM CANCEL). */
void rpc_cancel(struct rpc_stream *s);
void rpc_stream_free(struct rpc_stream *s);

/* Unary control calls; each returns the gRPC status code (-1 transport). */
int rpc_write_stdin(struct case_ctx *ctx, int32_t process_id, const void *data, size_t len);
int rpc_close_stdin(struct case_ctx *ctx, int32_t process_id);
int rpc_signal(struct case_ctx *ctx, int32_t process_id, int signal_enum_value);
int rpc_resize(struct case_ctx *ctx, int32_t process_id, uint32_t cols, uint32_t rows);

/* ---- Lower level, for protocol cases ------------------------------------ */

/* The case's shared connection to case_grpc_addr(ctx), opened on first use
 * (and again if it broke); owned by the case (closed when it ends). NULL
 * with the reason in *why (static text) if no connection could be made. */
struct sbx_grpc_conn *rpc_conn(struct case_ctx *ctx, const char **why);

/* False, with the case recorded as skipped (it needs gRPC), when the run's
 * gRPC endpoint cannot carry gRPC (transport profile through a proxy that
 * answers HTTP/1.x there); every call of this client checks it first. */
bool rpc_grpc_usable(struct case_ctx *ctx);

/* Serialized ExecuteRequest / StartRequest for spec (malloc'd, *len set). */
uint8_t *rpc_pack_execute(const struct rpc_spec *spec, size_t *len);
uint8_t *rpc_pack_start(const struct rpc_spec *spec, const uint32_t *pty_cols_rows, size_t *len);

/* Decodes an ExecuteResponse into r (exit_code, out, err); 0 or -1. */
int rpc_unpack_execute(const uint8_t *msg, size_t len, struct rpc_result *r);

/* One-line rendering of a spec for case_request(), malloc'd. */
char *rpc_render_spec(const char *rpc, const struct rpc_spec *spec);

/* The gRPC paths of the service. */
#define PROC_PATH_START "/process.v1.ProcessService/Start"
#define PROC_PATH_EXECUTE "/process.v1.ProcessService/Execute"
#define PROC_PATH_WRITE_STDIN "/process.v1.ProcessService/WriteStdin"
#define PROC_PATH_SEND_SIGNAL "/process.v1.ProcessService/SendSignal"
#define PROC_PATH_RESIZE_TTY "/process.v1.ProcessService/ResizeTTY"

#endif
