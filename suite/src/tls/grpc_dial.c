/* SPDX-License-Identifier: Apache-2.0 */
/* gRPC over TLS: a transport for the sans-I/O client session whose read and
 * write go through an OpenSSL session instead of the socket. */
#include "grpc_dial.h"

#include <errno.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "client_transport.h"
#include "endpoint.h"
#include "request_headers.h"
#include "tls_connect.h"
#include "tls_options.h"

#define CONNECT_TIMEOUT_MS 5000

struct tls_pipe {
    int fd;
    SSL *ssl;
};

static ssize_t pipe_write(void *ctx, const uint8_t *buf, size_t len)
{
    struct tls_pipe *p = ctx;
    size_t done = 0;
    int rc = SSL_write_ex(p->ssl, buf, len, &done);
    if (rc == 1) return (ssize_t)done;
    int e = SSL_get_error(p->ssl, rc);
    if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) return 0;
    errno = e == SSL_ERROR_SYSCALL && errno ? errno : EPROTO;
    return -1;
}

static ssize_t pipe_read(void *ctx, uint8_t *buf, size_t cap)
{
    struct tls_pipe *p = ctx;
    size_t got = 0;
    int rc = SSL_read_ex(p->ssl, buf, cap, &got);
    if (rc == 1) return (ssize_t)got;
    int e = SSL_get_error(p->ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
    if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0)) return -2;
    errno = e == SSL_ERROR_SYSCALL && errno ? errno : EPROTO;
    return -1;
}

static int pipe_wait(void *ctx, int wait_ms, bool want_write)
{
    struct tls_pipe *p = ctx;
    return tls_wait(p->ssl, p->fd, want_write, wait_ms);
}

static void pipe_close(void *ctx)
{
    struct tls_pipe *p = ctx;
    tls_close(p->ssl);
    close(p->fd);
    free(p);
}

static const struct sbx_grpc_transport_ops tls_pipe_ops = {
    .write = pipe_write, .read = pipe_read, .wait = pipe_wait, .close = pipe_close};

struct sbx_grpc_conn *grpc_dial(const char *addr, const struct sbx_grpc_conn_opts *opts, char *err,
                                size_t err_len)
{
    struct sbx_grpc_conn_opts o = {0};
    if (opts) o = *opts;
    if (!o.authority) o.authority = tls_options_get()->authority;
    /* The user's headers (a router's, a gateway's token) on every call of
     * every connection: this is the one place they are all opened. */
    if (!o.extra_headers) request_headers_grpc_opts(&o);
    if (!tls_addr_is_https(addr)) return sbx_grpc_connect(addr, &o, err, err_len);

    const char *hostport = tls_addr_hostport(addr);
    unsigned timeout = o.connect_timeout_ms ? o.connect_timeout_ms : CONNECT_TIMEOUT_MS;
    int fd = endpoint_connect(hostport, timeout, err, err_len);
    if (fd < 0) return NULL;
    char why[400];
    SSL *ssl = tls_handshake(fd, addr, "h2", (int)timeout, why, sizeof why);
    if (!ssl) {
        snprintf(err, err_len, "%s: %s", addr, why);
        close(fd);
        return NULL;
    }
    struct tls_pipe *p = malloc(sizeof *p);
    if (!p) {
        tls_close(ssl);
        close(fd);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    p->fd = fd;
    p->ssl = ssl;
    return sbx_grpc_conn_new(&tls_pipe_ops, p, hostport, &o, err, err_len);
}
