/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_DAEMON_HARNESS_H
#define SBX_DAEMON_HARNESS_H
/* Integration-test harness: runs the real sandboxd-ref binary on ephemeral
 * loopback ports over a temporary root and talks to it with the project's
 * gRPC client. Every wait is bounded. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx_grpc_client.h"

struct daemon {
    pid_t pid;
    int grpc_port, rest_port;
    char dir[256];  /* temporary directory holding root/ and the daemon's log */
    char root[300]; /* the sandbox root */
    char target[64];
    struct sbx_grpc_conn *conn;
};

/* Starts binary (SBX_DAEMON_BIN or SBX_DAEMON_FAULTY_BIN) with the standard
 * test flags plus extra (NULL-terminated, may be NULL). Returns 0 or -1. */
int daemon_start(struct daemon *d, const char *binary, const char *const *extra);

/* SIGTERM, wait up to wait_ms; SIGKILL after that. Returns the wait status,
 * and *elapsed_ms (may be NULL) the time until exit. Removes the temp dir. */
int daemon_stop(struct daemon *d, unsigned wait_ms, unsigned *elapsed_ms);

/* Sends SIGTERM only (shutdown tests). */
void daemon_signal(struct daemon *d, int sig);
/* Waits for exit, bounded; returns the wait status or -1. */
int daemon_wait(struct daemon *d, unsigned wait_ms, unsigned *elapsed_ms);
/* Removes the temporary directory. */
void daemon_cleanup(struct daemon *d);

/* Number of open descriptors / direct children of the daemon. */
int daemon_fd_count(const struct daemon *d);
int daemon_child_count(const struct daemon *d);

/* HTTP GET on the REST port; returns the status or -1. */
int daemon_http_get(const struct daemon *d, const char *path);

uint64_t now_ms(void);

/* True when pid no longer runs: no /proc entry, or a zombie awaiting reaping. */
bool pid_gone(int pid);

/* ---- requests ------------------------------------------------------------ */

struct proc_req {
    const char *const *argv; /* NULL-terminated */
    const char *const *env;  /* key, value, key, value, ..., NULL */
    const char *cwd;         /* NULL = absent */
    bool pty;
    uint32_t cols, rows;
};

uint8_t *pack_execute(const struct proc_req *r, size_t *len);
uint8_t *pack_start(const struct proc_req *r, size_t *len);

struct exec_result {
    int code; /* gRPC status, -1 without one */
    char message[256];
    int exit_code;
    uint8_t *out, *err;
    size_t out_len, err_len;
};

/* Execute on conn; timeout_ms > 0 sends grpc-timeout. */
int h_execute(struct sbx_grpc_conn *c, const struct proc_req *r, unsigned timeout_ms,
              struct exec_result *res);
void exec_result_free(struct exec_result *res);

enum ev_kind { EV_INIT, EV_STDOUT, EV_STDERR, EV_EXIT, EV_END, EV_ERROR, EV_TIMEOUT, EV_BAD };

struct start_event {
    enum ev_kind kind;
    int32_t value; /* process id for INIT, exit code for EXIT, status for END */
    uint8_t *data; /* STDOUT/STDERR bytes (malloc'd) */
    size_t len;
};

struct sbx_grpc_call *h_start(struct sbx_grpc_conn *c, const struct proc_req *r);
/* Next event of a Start call, waiting up to wait_ms. */
int h_next(struct sbx_grpc_call *call, int wait_ms, struct start_event *ev);
void start_event_free(struct start_event *ev);

/* Reads a Start stream to its end (bounded by wait_ms overall). */
struct stream_summary {
    int inits, exits;
    bool init_first, exit_last, order_ok;
    int32_t id;
    int exit_code;
    int status; /* grpc status at the end, -1 for none */
    uint8_t *out, *err;
    size_t out_len, err_len;
    size_t max_chunk;
    size_t events;
};
void h_collect(struct sbx_grpc_call *call, unsigned wait_ms, struct stream_summary *s);
void stream_summary_free(struct stream_summary *s);

int h_write_stdin(struct sbx_grpc_conn *c, int32_t id, const void *data, size_t len, bool eof);
int h_signal(struct sbx_grpc_conn *c, int32_t id, int wire_signal);
int h_resize(struct sbx_grpc_conn *c, int32_t id, uint32_t cols, uint32_t rows);
/* Raw unary call: returns the status code, -1 without one. */
int h_raw(struct sbx_grpc_conn *c, const char *path, const void *req, size_t len);

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

#endif
