/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CLI_TLS_H
#define SBX_CLI_TLS_H
/* The TLS options of the command line (--tls, --cacert, --cert, --key,
 * --insecure, --authority; their table rows are in cli_options.c), checked
 * together after parsing, by the run and the bench. */
#include <stdbool.h>
#include <stddef.h>

#include "tls_options.h"

struct cli_tls {
    struct tls_options opts;
    bool both; /* --tls: both surfaces over TLS */
    /* the addresses with https:// added by --tls */
    char grpc_addr[520], rest_addr[520];
};

/* After parsing: --tls turns host:port addresses into https://; TLS
 * options without an https:// surface, --cert without --key and
 * --insecure with --require-complete are refused. *grpc and *rest may be
 * replaced. 0 or -1 with err. */
int cli_tls_finish(struct cli_tls *t, const char **grpc, const char **rest, bool attach,
                   bool require_complete, char *err, size_t err_len);

#endif
