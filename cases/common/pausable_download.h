/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_PAUSABLE_DOWNLOAD_H
#define SBX_CASES_PAUSABLE_DOWNLOAD_H
/* A GET on its own thread whose client stops reading after a given number
 * of bytes: its write callback blocks, so TCP backpressure holds the server
 * mid-transfer, until the case thread resumes it (or a bound runs out).
 * Cases use the pause to change the world under a download in progress:
 * delete the file (C4), change its tail on disk (T4), time other requests
 * while a client is stalled (C5). Uses only the endpoint address, never the
 * case context, so the worker thread is safe. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Receives every body byte in order (off: bytes received before this
 * piece). Returns false to abort the transfer. Runs on the download's
 * thread. */
typedef bool (*pd_sink_fn)(void *ud, const char *buf, size_t n, uint64_t off);

struct pd_opts {
    const char *addr;      /* REST endpoint (host:port, [v6]:port, unix:/path) */
    const char *target;    /* request target, e.g. "/v1/files/dir/big.bin" */
    uint64_t pause_at;     /* stop reading once this many bytes have arrived */
    unsigned max_pause_ms; /* the reader resumes by itself after this long */
    unsigned timeout_ms;   /* bound on the whole request */
    pd_sink_fn sink;       /* may be NULL */
    void *sink_ud;
};

struct pd_result {
    long status;                      /* HTTP status, 0 when no response arrived */
    uint64_t received;                /* body bytes delivered */
    uint64_t start_ms, first_byte_ms; /* case_now_ms() clock; first_byte_ms 0 if none */
    char error[256];                  /* transport error text, "" when none */
};

struct pausable_download;

/* Starts the download thread; NULL when it cannot be started. */
struct pausable_download *pd_start(const struct pd_opts *opts);

/* Waits up to wait_ms for the reader to pause. True when it is paused with
 * the transfer still in progress; false when it ended first (too short,
 * error status, refused) or never got there. */
bool pd_wait_paused(struct pausable_download *d, unsigned wait_ms);

/* Lets the reader go on (idempotent). */
void pd_resume(struct pausable_download *d);

/* Resumes if needed, waits for the transfer to end, stores its outcome in
 * *out and frees d. */
void pd_finish(struct pausable_download *d, struct pd_result *out);

#endif
