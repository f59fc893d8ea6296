/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line parsing for sandboxd-ref: the reference sandboxd's flags with
 * the same defaults (contract section 4), in both `--flag value` and
 * `--flag=value` forms, plus a few documented extensions; the flags
 * themselves are rows of daemon_options.c. */
#include "daemon_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_behaviour.h"
#include "daemon_options.h"

int daemon_parse_duration(const char *s, uint64_t *out_ms)
{
    if (!s || !*s) return -1;
    uint64_t total = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || v < 0) return -1;
        double mult;
        if (strncmp(end, "ms", 2) == 0) {
            mult = 1;
            end += 2;
        } else if (*end == 's') {
            mult = 1000;
            end++;
        } else if (*end == 'm') {
            mult = 60000;
            end++;
        } else if (*end == 'h') {
            mult = 3600000;
            end++;
        } else {
            return -1;
        }
        double ms = v * mult;
        if (ms > 1e15) return -1;
        total += (uint64_t)ms;
        p = end;
    }
    *out_ms = total;
    return 0;
}

static void set_defaults(struct daemon_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->listen_host = "0.0.0.0";
    cfg->grpc_port = 9090;
    cfg->rest_port = 8080;
    cfg->root_dir = "/workspace";
    cfg->metadata_prefix = "SANDBOX_";
    cfg->shutdown_timeout_ms = 10000;
    cfg->http_idle_timeout_ms = 60000;
    cfg->http_header_timeout_ms = 10000;
    /* http_max_connections and http_max_per_client: 0, sized from the
     * descriptor limit by the REST server. */
    cfg->grpc_max_connections = 1024;
    cfg->grpc_handshake_timeout_ms = 10000;
    cfg->grpc_idle_timeout_ms = 300000;
    cfg->grpc_request_timeout_ms = 60000;
    cfg->grpc_stall_timeout_ms = 300000;
    cfg->stream_chunk_size = 4096;
    cfg->execute_output_limit = 64u << 20;
}

/* --help, --version, --dump-options: flags without a value, in any of the
 * spellings Go's flag package takes (-h, -help, --help). 1 when arg is one
 * (it has been acted on), 0 when not. */
static int exact_flag(const char *arg)
{
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "-help") == 0 || strcmp(arg, "--help") == 0) {
        daemon_options_help(stdout);
        return 1;
    }
    if (strcmp(arg, "-version") == 0 || strcmp(arg, "--version") == 0) {
        printf("sandboxd-ref %s (%s)\n", SBX_VERSION, SBX_GIT_COMMIT);
        return 1;
    }
    if (strcmp(arg, "--dump-options") == 0) {
        daemon_options_dump(stdout);
        return 1;
    }
    return 0;
}

/* --man-options daemon:flags: the man page's OPTIONS rows, for the build. */
static int man_options(const char *what)
{
    if (strcmp(what, "daemon:flags") != 0) {
        fprintf(stderr, "sandboxd-ref: --man-options: no command or group '%s'\n", what);
        return -1;
    }
    daemon_options_man(stdout);
    return 1;
}

int daemon_config_parse(struct daemon_config *cfg, int argc, char **argv)
{
    set_defaults(cfg);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (exact_flag(arg)) return 1;
        if (arg[0] != '-' || arg[1] == '\0') {
            fprintf(stderr, "sandboxd-ref: unexpected argument '%s' (see --help)\n", arg);
            return -1;
        }
        /* Accept -flag as Go's flag package does, and --flag=value; the
         * name is kept in its --flag spelling. */
        const char *bare = arg + (arg[1] == '-' ? 2 : 1);
        char name[64] = "--";
        const char *value = NULL;
        const char *eq = strchr(bare, '=');
        size_t nlen = eq ? (size_t)(eq - bare) : strlen(bare);
        if (nlen + 3 > sizeof(name)) {
            fprintf(stderr, "sandboxd-ref: unknown flag '%s' (see --help)\n", arg);
            return -1;
        }
        memcpy(name + 2, bare, nlen);
        name[nlen + 2] = '\0';
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            fprintf(stderr, "sandboxd-ref: flag %s needs a value\n", name);
            return -1;
        }
        const struct daemon_option *o = daemon_option_find(name);
        if (o && o->kind == DOPT_INTERNAL && o->arg) return man_options(value);
        if (!o || !o->arg) {
            /* Not ours: a flag of the fault-injection build, or unknown. */
            if (daemon_behaviour->take_flag(name, value)) continue;
            fprintf(stderr, "sandboxd-ref: unknown flag '%s' (see --help)\n", name);
            return -1;
        }
        if (daemon_option_set(cfg, o, value) != 0) {
            fprintf(stderr, "sandboxd-ref: invalid value '%s' for %s\n", value, name);
            return -1;
        }
    }
    if (cfg->grpc_port != 0 && cfg->grpc_port == cfg->rest_port) {
        fprintf(stderr, "sandboxd-ref: --grpc-port and --rest-port must differ\n");
        return -1;
    }
    return 0;
}
