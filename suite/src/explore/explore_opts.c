/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing explore's options: defaults, the table (explore_options.c), then
 * the checks across options. */
#include "explore_opts.h"

#include <string.h>
#include <time.h>

void explore_usage(FILE *out)
{
    opt_print_help(out, &explore_command);
}

int explore_parse_args(int argc, char **argv, struct explore_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ops = 150;
    o->jobs = 1;
    o->shrink = true;
    o->shrink_seconds = 60;
    o->shrink_runs = 400;
    o->startup_s = 20;
    char err[300];
    if (opt_parse(&explore_command, o, argc, argv, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance explore: %s\n", err);
        return 2;
    }
    if (o->help) {
        explore_usage(stdout);
        return 1;
    }
    int targets = (o->a.grpc || o->a.rest) + (o->a.launch != NULL) + (o->a.bundled != NULL);
    int others = (o->b.grpc || o->b.rest) + (o->b.launch != NULL) + (o->b.bundled != NULL);
    if (targets > 1 || others > 1) {
        fputs("sandboxd-conformance explore: give one target (--grpc/--rest, --launch or "
              "--launch-bundled) and at most one --against-* runtime\n",
              stderr);
        return 2;
    }
    if ((o->a.grpc != NULL) != (o->a.rest != NULL) || (o->b.grpc != NULL) != (o->b.rest != NULL)) {
        fputs("sandboxd-conformance explore: attach mode needs both addresses (--grpc and "
              "--rest, --against-grpc and --against-rest)\n",
              stderr);
        return 2;
    }
    if (!o->seed_set) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        o->seed = ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec;
        o->seed %= 1000000000000ull;
    }
    o->a.launch_env = o->b.launch_env = o->launch_env;
    o->a.health_timeout_ms = o->b.health_timeout_ms = o->startup_s * 1000u;
    return 0;
}
