/* SPDX-License-Identifier: Apache-2.0 */
/* The TLS options checked together after parsing (see cli_tls.h). */
#include "cli_tls.h"

#include <stdio.h>
#include <string.h>

static int add_scheme(const char *addr, char *out, size_t out_len, const char *opt, char *err,
                      size_t err_len)
{
    if (tls_addr_is_https(addr)) {
        snprintf(out, out_len, "%s", addr);
        return 0;
    }
    if (strncmp(addr, "unix:", 5) == 0) {
        snprintf(err, err_len, "--tls: %s %s is a unix socket; TLS is for host:port addresses", opt,
                 addr);
        return -1;
    }
    snprintf(out, out_len, "%s%s", TLS_SCHEME, addr);
    return 0;
}

int cli_tls_finish(struct cli_tls *t, const char **grpc, const char **rest, bool attach,
                   bool require_complete, char *err, size_t err_len)
{
    const struct tls_options *o = &t->opts;
    bool any_option = t->both || o->cacert || o->cert || o->key || o->insecure;
    if (!attach) {
        if (any_option || o->authority) {
            snprintf(err, err_len,
                     "the TLS options (--tls, --cacert, --cert, --key, --insecure, "
                     "--authority) apply to --grpc/--rest only");
            return -1;
        }
        return 0;
    }
    if (t->both) {
        if (add_scheme(*grpc, t->grpc_addr, sizeof t->grpc_addr, "--grpc", err, err_len) != 0 ||
            add_scheme(*rest, t->rest_addr, sizeof t->rest_addr, "--rest", err, err_len) != 0)
            return -1;
        *grpc = t->grpc_addr;
        *rest = t->rest_addr;
    }
    if ((o->cert != NULL) != (o->key != NULL)) {
        snprintf(err, err_len, "%s: mutual TLS needs both --cert FILE and --key FILE",
                 o->cert ? "--cert without --key" : "--key without --cert");
        return -1;
    }
    if (any_option && !tls_addr_is_https(*grpc) && !tls_addr_is_https(*rest)) {
        snprintf(err, err_len,
                 "TLS options given but neither surface is TLS: write --grpc/--rest as "
                 "https://HOST:PORT, or add --tls");
        return -1;
    }
    if (o->insecure && require_complete) {
        snprintf(err, err_len,
                 "--insecure does not verify whom the suite talks to, so such a run cannot "
                 "certify: --require-complete refuses it");
        return -1;
    }
    return 0;
}
