/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_TLS_OPTIONS_H
#define SBX_TLS_OPTIONS_H
/* The TLS settings of a run (--cacert, --cert, --key, --insecure,
 * --authority), checked once before anything runs and then read by every
 * client: the gRPC dialer, the REST client, the raw HTTP helper and the
 * endpoint checks. A surface uses TLS when its address is "https://HOST:PORT";
 * any other address is used exactly as before. */
#include <stdbool.h>
#include <stddef.h>

typedef struct ssl_ctx_st SSL_CTX;

struct tls_options {
    const char *cacert;    /* PEM CA bundle; NULL = the system's store */
    const char *cert;      /* PEM client certificate (chain) for mutual TLS */
    const char *key;       /* PEM private key of cert */
    const char *authority; /* gRPC :authority, REST Host, SNI and the name verified */
    bool insecure;         /* no verification of the peer at all */
};

#define TLS_SCHEME "https://"

/* True for "https://..." addresses. */
bool tls_addr_is_https(const char *addr);
/* The address without its scheme: "HOST:PORT" (for sockets and Host). */
const char *tls_addr_hostport(const char *addr);

/* Checks the files (readable, PEM, key matching its certificate) and keeps
 * the settings and a client SSL_CTX for the process (forked workers inherit
 * them). 0, or -1 with a message naming the option and the cause. */
int tls_options_set(const struct tls_options *o, char *err, size_t err_len);

/* The settings in force (all NULL/false when none were given). */
const struct tls_options *tls_options_get(void);

/* The client context built by tls_options_set (built on first use with
 * default settings if it was never called); NULL only when OpenSSL fails. */
SSL_CTX *tls_client_ctx(void);

/* The host name a surface is known by: the host part of --authority, else
 * the host of addr (brackets of a v6 literal removed). */
void tls_server_name(const char *addr, char *out, size_t out_len);

#endif
