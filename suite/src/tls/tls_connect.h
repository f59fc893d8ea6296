/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_TLS_CONNECT_H
#define SBX_TLS_CONNECT_H
/* TLS client connections over a connected socket, with the run's settings
 * (tls_options.h): the handshake within a time bound, what a failure means
 * in words (OpenSSL's verify error or the server's alert), and what the
 * handshake agreed on for the reports. */
#include <stdbool.h>
#include <stddef.h>

typedef struct ssl_st SSL;

/* What one surface's TLS session is, for the run table of the reports. */
struct tls_peer {
    bool tls;                /* the surface is https:// */
    bool verified;           /* the certificate and name were verified (not --insecure) */
    bool client_cert;        /* a client certificate was offered (--cert) */
    char version[16];        /* "TLSv1.3" */
    char cipher[64];         /* "TLS_AES_256_GCM_SHA384" */
    char alpn[16];           /* protocol selected by ALPN; "" when none */
    char subject[256];       /* the peer certificate's subject, one line */
    char not_after[32];      /* its expiry, "2027-12-05T08:00:00Z" */
    bool client_cert_wanted; /* the server asked for a client certificate and none was given */
};

/* Handshakes on fd (connected; made non-blocking) for the surface at addr
 * ("https://HOST:PORT"), offering alpn ("h2" or "http/1.1"). With "h2" the
 * server must select it. Returns the session, or NULL with err saying why
 * (e.g. "the server's certificate does not verify: certificate has
 * expired"). fd stays the caller's either way. */
SSL *tls_handshake(int fd, const char *addr, const char *alpn, int timeout_ms, char *err,
                   size_t err_len);

/* Fills peer from an established session. */
void tls_describe(SSL *ssl, struct tls_peer *peer);

/* Called from the context's client-certificate callback; read back with
 * tls_cert_was_requested. */
void tls_note_cert_requested(SSL *ssl);
bool tls_cert_was_requested(SSL *ssl);

/* Explains why SSL_read/SSL_write returned ret <= 0 (an alert of the
 * server, a reset, a plain close). */
void tls_explain_io(SSL *ssl, int ret, char *err, size_t err_len);

/* Waits up to timeout_ms until ssl has input (decrypted bytes already held
 * count) or, with want_write, fd is writable. 1 ready, 0 timeout, -1 error. */
int tls_wait(SSL *ssl, int fd, bool want_write, int timeout_ms);

/* Closes the session (close_notify, best effort) and frees it; not fd. */
void tls_close(SSL *ssl);

#endif
