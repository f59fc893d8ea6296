/* SPDX-License-Identifier: Apache-2.0 */
/* The run's command line: defaults, the table's parser (cli_options.c), then
 * the checks that involve several options. Long options only, "--name
 * value" or "--name=value". */
#include "cli.h"

#include <string.h>
#include <unistd.h>

#include "endpoint.h"

void cli_print_help(FILE *f)
{
    opt_print_help(f, &cli_command);
}

void cli_free(struct cli_opts *o)
{
    request_headers_free(&o->headers);
}

/* What no single option decides: one target, both addresses, TLS. */
static int check_together(struct cli_opts *o, char *err, size_t err_len)
{
    int targets = (o->grpc || o->rest) + (o->launch != NULL) + (o->launch_bundled != NULL);
    if (targets > 1) {
        snprintf(err, err_len, "choose one target: --grpc/--rest, --launch or --launch-bundled");
        return -1;
    }
    if ((o->grpc != NULL) != (o->rest != NULL)) {
        snprintf(err, err_len, "attach mode needs both --grpc ADDR and --rest ADDR");
        return -1;
    }
    if (cli_tls_finish(&o->tls, &o->grpc, &o->rest, o->grpc != NULL, o->require_complete, err,
                       err_len) != 0)
        return -1;
    char why[256];
    if (o->grpc && endpoint_validate(o->grpc, why, sizeof why) != 0) {
        snprintf(err, err_len, "--grpc %s", why);
        return -1;
    }
    if (o->rest && endpoint_validate(o->rest, why, sizeof why) != 0) {
        snprintf(err, err_len, "--rest %s", why);
        return -1;
    }
    if (o->launch_env[0] && o->grpc) {
        snprintf(err, err_len, "--launch-env applies to launch mode only");
        return -1;
    }
    if (o->confine_runtime && (o->grpc || o->rest)) {
        snprintf(err, err_len, "--confine-runtime applies to launch mode only");
        return -1;
    }
    return 0;
}

int cli_parse(struct cli_opts *o, int argc, char **argv, char *err, size_t err_len)
{
    memset(o, 0, sizeof *o);
    o->color = -1;
    o->timeout_scale = 1.0;
    o->unresponsive_after = 3;
    o->startup_timeout_s = 20;
    if (opt_parse(&cli_command, o, argc, argv, NULL, err, err_len) != 0) return -1;
    if (o->help || o->version || o->man_options || o->dump_options) return 0;
    if (check_together(o, err, err_len) != 0) return -1;
    if (!o->jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n > 0 ? (unsigned)(n > 64 ? 64 : n) : 2;
    }
    return 0;
}
