/* SPDX-License-Identifier: Apache-2.0 */
/* TLS client sessions on OpenSSL (see tls_connect.h). */
#include "tls_connect.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tls_options.h"

static const char cert_requested_mark = 1;

void tls_note_cert_requested(SSL *ssl)
{
    SSL_set_app_data(ssl, (void *)&cert_requested_mark);
}

bool tls_cert_was_requested(SSL *ssl)
{
    return SSL_get_app_data(ssl) == &cert_requested_mark;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tls_wait(SSL *ssl, int fd, bool want_write, int timeout_ms)
{
    if (SSL_has_pending(ssl)) return 1;
    struct pollfd p = {.fd = fd, .events = POLLIN | (want_write ? POLLOUT : 0)};
    int rv = poll(&p, 1, timeout_ms);
    if (rv < 0 && errno == EINTR) return 0;
    return rv < 0 ? -1 : rv > 0;
}

/* Hints for the failures a user can fix with an option. */
static const char *verify_hint(long v)
{
    switch (v) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
        return " (--cacert FILE names the CA that signed it)";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        return " (--authority NAME sets the name verified)";
    default:
        return "";
    }
}

/* Reads OpenSSL's error queue into words: the last reason is the one that
 * names the cause ("tlsv13 alert certificate required", "wrong version
 * number"). */
static void explain(SSL *ssl, int ret, const char *during, char *err, size_t err_len)
{
    int e = SSL_get_error(ssl, ret);
    unsigned long oe = ERR_peek_last_error();
    long v = SSL_get_verify_result(ssl);
    const char *client_hint = tls_cert_was_requested(ssl)
                                  ? " (the server asked for a client certificate and none was "
                                    "given: --cert FILE --key FILE)"
                                  : "";
    if (oe && ERR_GET_REASON(oe) == SSL_R_CERTIFICATE_VERIFY_FAILED && v != X509_V_OK) {
        snprintf(err, err_len, "the server's certificate does not verify: %s%s",
                 X509_verify_cert_error_string(v), verify_hint(v));
    } else if (oe) {
        const char *r = ERR_reason_error_string(oe);
        int reason = ERR_GET_REASON(oe);
        bool not_tls =
            reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_PACKET_LENGTH_TOO_LONG;
        bool no_alpn = reason == SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL;
        snprintf(err, err_len, "TLS %s failed: %s%s%s%s", during, r ? r : "unknown error",
                 not_tls ? " (the endpoint does not speak TLS: drop https:// for it?)" : "",
                 no_alpn ? " (the server does not offer the protocol asked for by ALPN; gRPC "
                           "needs h2)"
                         : "",
                 client_hint);
    } else if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0)) {
        snprintf(err, err_len, "the server closed the connection during the TLS %s%s", during,
                 client_hint);
    } else if (e == SSL_ERROR_SYSCALL) {
        snprintf(err, err_len, "TLS %s failed: %s%s", during, strerror(errno), client_hint);
    } else {
        snprintf(err, err_len, "TLS %s failed (OpenSSL error %d)%s", during, e, client_hint);
    }
    ERR_clear_error();
}

void tls_explain_io(SSL *ssl, int ret, char *err, size_t err_len)
{
    explain(ssl, ret, "session", err, err_len);
}

SSL *tls_handshake(int fd, const char *addr, const char *alpn, int timeout_ms, char *err,
                   size_t err_len)
{
    SSL_CTX *ctx = tls_client_ctx();
    SSL *ssl = ctx ? SSL_new(ctx) : NULL;
    if (!ssl) {
        snprintf(err, err_len, "cannot create a TLS session");
        return NULL;
    }
    char name[256];
    tls_server_name(addr, name, sizeof name);
    bool is_ip = strchr(name, ':') || strspn(name, "0123456789.") == strlen(name);
    /* SNI carries names only (RFC 6066 section 3); an address is verified
     * against the certificate's IP entries. */
    if (!is_ip) SSL_set_tlsext_host_name(ssl, name);
    if (!tls_options_get()->insecure) {
        if (is_ip)
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name);
        else
            SSL_set1_host(ssl, name);
    }
    unsigned char wire[32];
    size_t alen = alpn ? strlen(alpn) : 0;
    if (alen && alen < sizeof wire) {
        wire[0] = (unsigned char)alen;
        memcpy(wire + 1, alpn, alen);
        SSL_set_alpn_protos(ssl, wire, (unsigned)alen + 1);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    SSL_set_fd(ssl, fd);
    long long deadline = now_ms() + timeout_ms;
    ERR_clear_error();
    for (;;) {
        errno = 0;
        int rc = SSL_connect(ssl);
        if (rc == 1) break;
        int e = SSL_get_error(ssl, rc);
        long long left = deadline - now_ms();
        if ((e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) && left > 0) {
            struct pollfd p = {.fd = fd, .events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT};
            if (poll(&p, 1, (int)left) >= 0 || errno == EINTR) continue;
        }
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
            snprintf(err, err_len, "no TLS handshake within %d ms (is the endpoint TLS?)",
                     timeout_ms);
        else
            explain(ssl, rc, "handshake", err, err_len);
        SSL_free(ssl);
        return NULL;
    }
    if (alen && strcmp(alpn, "h2") == 0) {
        const unsigned char *sel = NULL;
        unsigned sel_len = 0;
        SSL_get0_alpn_selected(ssl, &sel, &sel_len);
        if (sel_len != 2 || memcmp(sel, "h2", 2) != 0) {
            snprintf(err, err_len,
                     "the server did not select HTTP/2 by ALPN (it selected %s%.*s%s): gRPC "
                     "needs h2 over TLS",
                     sel_len ? "\"" : "none", (int)sel_len, sel_len ? (const char *)sel : "",
                     sel_len ? "\"" : "");
            SSL_free(ssl);
            return NULL;
        }
    }
    return ssl;
}

static void asn1_time_text(const ASN1_TIME *t, char *out, size_t out_len)
{
    struct tm tm;
    if (!t || ASN1_TIME_to_tm(t, &tm) != 1) {
        snprintf(out, out_len, "?");
        return;
    }
    strftime(out, out_len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void tls_describe(SSL *ssl, struct tls_peer *peer)
{
    memset(peer, 0, sizeof *peer);
    peer->tls = true;
    peer->verified = !tls_options_get()->insecure;
    peer->client_cert = tls_options_get()->cert != NULL;
    peer->client_cert_wanted = tls_cert_was_requested(ssl);
    snprintf(peer->version, sizeof peer->version, "%s", SSL_get_version(ssl));
    snprintf(peer->cipher, sizeof peer->cipher, "%s", SSL_get_cipher_name(ssl));
    const unsigned char *sel = NULL;
    unsigned sel_len = 0;
    SSL_get0_alpn_selected(ssl, &sel, &sel_len);
    snprintf(peer->alpn, sizeof peer->alpn, "%.*s", (int)sel_len, sel ? (const char *)sel : "");
    X509 *cert = SSL_get1_peer_certificate(ssl);
    if (cert) {
        X509_NAME_oneline(X509_get_subject_name(cert), peer->subject, sizeof peer->subject);
        asn1_time_text(X509_get0_notAfter(cert), peer->not_after, sizeof peer->not_after);
        X509_free(cert);
    }
}

void tls_close(SSL *ssl)
{
    if (!ssl) return;
    SSL_shutdown(ssl);
    SSL_free(ssl);
}
