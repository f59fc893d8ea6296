/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_CLIENT_TRANSPORT_H
#define SBX_GRPC_CLIENT_TRANSPORT_H
/* The byte pipe under a client connection. The socket implementation lives
 * in client_socket.c; unit tests plug an in-memory server in its place. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx_grpc_client.h"

struct sbx_grpc_transport_ops {
    /* Bytes written (0 = would block), or -1 on error. */
    ssize_t (*write)(void *ctx, const uint8_t *buf, size_t len);
    /* Bytes read (> 0), 0 = nothing available now, -1 = error, -2 = end of stream. */
    ssize_t (*read)(void *ctx, uint8_t *buf, size_t cap);
    /* Waits up to wait_ms for input (or for writability if want_write).
     * Returns 1 if ready, 0 on timeout, -1 on error. */
    int (*wait)(void *ctx, int wait_ms, bool want_write);
    void (*close)(void *ctx);
};

/* Creates a connection over an already-connected transport: sends the
 * HTTP/2 preface and SETTINGS. ctx is closed with ops->close when the
 * connection is closed (also on failure here). */
struct sbx_grpc_conn *sbx_grpc_conn_new(const struct sbx_grpc_transport_ops *ops, void *ctx,
                                        const char *authority,
                                        const struct sbx_grpc_conn_opts *opts, char *err,
                                        size_t err_len);

/* Monotonic clock in milliseconds. */
int64_t sbx_grpc_now_ms(void);

#endif
