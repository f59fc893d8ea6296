/* SPDX-License-Identifier: Apache-2.0 */
/* The run's TLS settings and the client context built from them. */
#include "tls_options.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tls_connect.h"

static struct tls_options settings;
static SSL_CTX *client_ctx;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

bool tls_addr_is_https(const char *addr)
{
    return addr && strncmp(addr, TLS_SCHEME, strlen(TLS_SCHEME)) == 0;
}

const char *tls_addr_hostport(const char *addr)
{
    return tls_addr_is_https(addr) ? addr + strlen(TLS_SCHEME) : addr;
}

const struct tls_options *tls_options_get(void)
{
    return &settings;
}

/* OpenSSL's last reason, e.g. "no start line" or "key values mismatch". */
static const char *ssl_reason(void)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    ERR_clear_error();
    return r ? r : "unknown OpenSSL error";
}

static int readable(const char *opt, const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "%s %s: cannot read it: %s", opt, path, strerror(errno));
        return -1;
    }
    fclose(f);
    return 0;
}

/* The server asked for a client certificate and none is configured: noted
 * on the connection so that a refusal later can name the cause. */
static int no_client_cert(SSL *ssl, X509 **x509, EVP_PKEY **pkey)
{
    (void)x509;
    (void)pkey;
    tls_note_cert_requested(ssl);
    return 0;
}

static SSL_CTX *build_ctx(const struct tls_options *o, char *err, size_t err_len)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        snprintf(err, err_len, "cannot create a TLS context: %s", ssl_reason());
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    if (o->cacert) {
        if (SSL_CTX_load_verify_locations(ctx, o->cacert, NULL) != 1) {
            snprintf(err, err_len, "--cacert %s: no usable PEM certificate in it (%s)", o->cacert,
                     ssl_reason());
            goto fail;
        }
    } else {
        SSL_CTX_set_default_verify_paths(ctx);
    }
    if (o->cert) {
        if (SSL_CTX_use_certificate_chain_file(ctx, o->cert) != 1) {
            snprintf(err, err_len, "--cert %s: not a PEM certificate (%s)", o->cert, ssl_reason());
            goto fail;
        }
        if (SSL_CTX_use_PrivateKey_file(ctx, o->key, SSL_FILETYPE_PEM) != 1) {
            /* OpenSSL compares the key with the certificate while loading it. */
            int r = ERR_GET_REASON(ERR_peek_last_error());
            if (r == X509_R_KEY_VALUES_MISMATCH || r == X509_R_KEY_TYPE_MISMATCH)
                snprintf(err, err_len, "--key %s does not match the certificate in --cert %s (%s)",
                         o->key, o->cert, ssl_reason());
            else
                snprintf(err, err_len, "--key %s: not a PEM private key (%s)", o->key,
                         ssl_reason());
            goto fail;
        }
        if (SSL_CTX_check_private_key(ctx) != 1) {
            snprintf(err, err_len, "--key %s does not match the certificate in --cert %s (%s)",
                     o->key, o->cert, ssl_reason());
            goto fail;
        }
    } else {
        SSL_CTX_set_client_cert_cb(ctx, no_client_cert);
    }
    SSL_CTX_set_verify(ctx, o->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

int tls_options_set(const struct tls_options *o, char *err, size_t err_len)
{
    if ((o->cert != NULL) != (o->key != NULL)) {
        snprintf(err, err_len, "%s: mutual TLS needs both --cert FILE and --key FILE",
                 o->cert ? "--cert without --key" : "--key without --cert");
        return -1;
    }
    if ((o->cacert && readable("--cacert", o->cacert, err, err_len) != 0) ||
        (o->cert && readable("--cert", o->cert, err, err_len) != 0) ||
        (o->key && readable("--key", o->key, err, err_len) != 0))
        return -1;
    SSL_CTX *ctx = build_ctx(o, err, err_len);
    if (!ctx) return -1;
    pthread_mutex_lock(&ctx_lock);
    SSL_CTX_free(client_ctx);
    client_ctx = ctx;
    settings = *o;
    pthread_mutex_unlock(&ctx_lock);
    return 0;
}

SSL_CTX *tls_client_ctx(void)
{
    pthread_mutex_lock(&ctx_lock);
    if (!client_ctx) {
        char ignored[256];
        client_ctx = build_ctx(&settings, ignored, sizeof ignored);
    }
    SSL_CTX *ctx = client_ctx;
    pthread_mutex_unlock(&ctx_lock);
    return ctx;
}

void tls_server_name(const char *addr, char *out, size_t out_len)
{
    const char *from = settings.authority ? settings.authority : tls_addr_hostport(addr);
    const char *end;
    if (from[0] == '[') {
        from++;
        end = strchr(from, ']');
    } else {
        end = strrchr(from, ':');
        /* A bare v6 literal in --authority has several colons: no port. */
        if (end && strchr(from, ':') != end) end = NULL;
    }
    size_t n = end ? (size_t)(end - from) : strlen(from);
    snprintf(out, out_len, "%.*s", (int)n, from);
}
