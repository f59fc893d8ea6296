/* SPDX-License-Identifier: Apache-2.0 */
/* The TLS part of reaching an attached runtime (see tls_reach.h). */
#include "tls_reach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"
#include "grpc_dial.h"
#include "runner_probe.h"
#include "text_util.h"
#include "tls_options.h"

#define NO_CERT_HINT                                                                               \
    "the server asked for a client certificate and none was given (--cert FILE --key FILE)"

int tls_reach_grpc(const char *addr, const struct tls_peer *peer, char *err, size_t err_len)
{
    if (!peer->tls || !peer->client_cert_wanted) return 0;
    char why[300] = "";
    struct sbx_grpc_conn_opts co = {.connect_timeout_ms = RUNNER_REACH_TIMEOUT_MS};
    struct sbx_grpc_conn *c = grpc_dial(addr, &co, why, sizeof why);
    if (!c) {
        snprintf(err, err_len, "gRPC endpoint %s: %s; %s", addr, why, NO_CERT_HINT);
        return -1;
    }
    struct sbx_grpc_call_opts call = {.wait_ms = RUNNER_REACH_TIMEOUT_MS};
    struct sbx_grpc_result r = {0};
    sbx_grpc_unary(c, "/sandboxd.conformance.Reach/Probe", "", 0, &call, &r);
    int rc = 0;
    if (r.http_status != 200) {
        snprintf(err, err_len, "gRPC endpoint %s refused a call (HTTP status %d): %s", addr,
                 r.http_status, NO_CERT_HINT);
        rc = -1;
    }
    sbx_grpc_result_free(&r);
    sbx_grpc_conn_close(c);
    return rc;
}

int tls_reach_rest(const char *addr, struct tls_peer *peer, char *err, size_t err_len)
{
    if (!tls_addr_is_https(addr)) return 0;
    char why[500];
    if (endpoint_tls_probe(addr, "http/1.1", RUNNER_REACH_TIMEOUT_MS, peer, why, sizeof why) != 0) {
        snprintf(err, err_len, "REST endpoint %s", why);
        return -1;
    }
    return 0;
}

int tls_reach_rest_answer(const char *addr, const struct tls_peer *peer, long status,
                          const char *body, char *err, size_t err_len)
{
    if (!peer->tls || !peer->client_cert_wanted || status == 200) return 0;
    char *shown = body ? text_sanitize(body, strlen(body), 120, false) : NULL;
    snprintf(err, err_len, "REST endpoint %s answered GET /v1/health with %ld (%s): %s", addr,
             status, shown ? shown : "no body", NO_CERT_HINT);
    free(shown);
    return -1;
}

void tls_reach_print(FILE *f, const char *surface, const struct tls_peer *peer)
{
    if (!peer->tls) return;
    fprintf(f, "TLS %s: %s %s%s%s, server certificate %s (expires %s), %s%s\n", surface,
            peer->version, peer->cipher, peer->alpn[0] ? ", ALPN " : "", peer->alpn,
            peer->subject[0] ? peer->subject : "(none)", peer->not_after[0] ? peer->not_after : "?",
            peer->verified ? "verified" : "NOT VERIFIED (--insecure)",
            peer->client_cert ? ", client certificate sent" : "");
}
