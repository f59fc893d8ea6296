/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line parsing for sandboxd-ref: the reference sandboxd's flags with
 * the same defaults (contract section 4), in both `--flag value` and
 * `--flag=value` forms, plus a few documented extensions. */
#include "daemon_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_behaviour.h"

static const char usage[] =
    "Usage: sandboxd-ref [flags]\n"
    "\n"
    "The sandboxd runtime daemon (reference implementation in C): gRPC\n"
    "process.v1.ProcessService and the REST /v1 file API over one sandbox root.\n"
    "\n"
    "Flags:\n"
    "  --listen-host HOST          interface both listeners bind (default 0.0.0.0)\n"
    "  --grpc-port PORT            ProcessService port (default 9090; 0 = ephemeral)\n"
    "  --rest-port PORT            REST port (default 8080; 0 = ephemeral)\n"
    "  --root-dir DIR              sandbox root, created if missing (default /workspace)\n"
    "  --metadata-env-prefix P     prefix served on /v1/metadata (default SANDBOX_)\n"
    "  --shutdown-timeout D        bound on graceful shutdown (default 10s)\n"
    "  --http-idle-timeout D       idle keep-alive close (default 60s)\n"
    "  --http-header-timeout D     a request's header block must be complete this long\n"
    "                              after the connection opened or its previous request\n"
    "                              ended, else the connection is closed (default 10s;\n"
    "                              0 = no bound)\n"
    "  --http-max-connections N    REST connections served at once; more are refused\n"
    "                              (default: the descriptor limit less gRPC's share\n"
    "                              and a reserve)\n"
    "  --http-max-connections-per-client N\n"
    "                              REST connections from one client address\n"
    "                              (default: a sixteenth of the total)\n"
    "  --grpc-max-connections N    gRPC connections served at once; more are closed\n"
    "                              at once (default 1024)\n"
    "  --grpc-max-connections-per-client N\n"
    "                              gRPC connections from one client address\n"
    "                              (default: a quarter of the total)\n"
    "  --grpc-handshake-timeout D  an HTTP/2 client must have sent its preface and\n"
    "                              SETTINGS this long after connecting (default 10s)\n"
    "  --grpc-idle-timeout D       a gRPC connection without an open stream this long\n"
    "                              gets GOAWAY and is closed (default 5m)\n"
    "  --grpc-request-timeout D    a request message must be complete this long after\n"
    "                              its headers, else the stream is reset (default 60s)\n"
    "  --grpc-stall-timeout D      a response the client takes no byte of this long\n"
    "                              (its flow-control window stays closed, or it does\n"
    "                              not read) is reset, its process terminated as on a\n"
    "                              cancel (default 5m)\n"
    "                              (0 switches any of these four off)\n"
    "  --stream-chunk-size N       max bytes per stdout/stderr event (default 4096)\n"
    "  --execute-output-limit N    max bytes Execute buffers per stream; beyond it\n"
    "                              the call fails with RESOURCE_EXHAUSTED (default 64Mi)\n"
    "  --grpc-unix PATH            also serve gRPC on a Unix socket\n"
    "  --copy-to DIR               copy this binary to DIR/sandboxd-ref and exit (the\n"
    "                              init container of an image that only holds it)\n"
    "  --version                   print version and exit\n"
    "  --help                      print this help and exit\n"
    "\n"
    "Durations: 500ms, 10s, 2m, 1m30s. Sizes: bytes, or with a Ki/Mi/Gi suffix.\n"
    "With a port of 0 the bound ports are printed on stdout as\n"
    "  grpc-port=N\n  rest-port=N\n";

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

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-') return -1;
    unsigned long long mult = 1;
    if (strcmp(end, "Ki") == 0)
        mult = 1ULL << 10;
    else if (strcmp(end, "Mi") == 0)
        mult = 1ULL << 20;
    else if (strcmp(end, "Gi") == 0)
        mult = 1ULL << 30;
    else if (*end)
        return -1;
    if (v > SIZE_MAX / mult) return -1;
    *out = (size_t)(v * mult);
    return 0;
}

/* A positive count of at most 1,000,000. */
static int parse_count(const char *s, unsigned *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > 1000000) return -1;
    *out = (unsigned)v;
    return 0;
}

/* A duration the gRPC server keeps in 32-bit milliseconds (24 days). */
static int parse_timeout(const char *s, uint64_t *out_ms)
{
    return daemon_parse_duration(s, out_ms) || *out_ms > UINT32_MAX ? -1 : 0;
}

static int parse_port(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 0 || v > 65535) return -1;
    *out = (int)v;
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

int daemon_config_parse(struct daemon_config *cfg, int argc, char **argv)
{
    set_defaults(cfg);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return 1;
        }
        if (strcmp(arg, "--version") == 0 || strcmp(arg, "-version") == 0) {
            printf("sandboxd-ref %s (%s)\n", SBX_VERSION, SBX_GIT_COMMIT);
            return 1;
        }
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

        int bad = 0;
        if (strcmp(name, "--listen-host") == 0)
            cfg->listen_host = value;
        else if (strcmp(name, "--grpc-port") == 0)
            bad = parse_port(value, &cfg->grpc_port);
        else if (strcmp(name, "--rest-port") == 0)
            bad = parse_port(value, &cfg->rest_port);
        else if (strcmp(name, "--grpc-unix") == 0)
            cfg->grpc_unix = value;
        else if (strcmp(name, "--copy-to") == 0)
            cfg->copy_to = value;
        else if (strcmp(name, "--root-dir") == 0) {
            cfg->root_dir = value;
            bad = *value ? 0 : -1;
        } else if (strcmp(name, "--metadata-env-prefix") == 0)
            cfg->metadata_prefix = value;
        else if (strcmp(name, "--shutdown-timeout") == 0)
            bad = daemon_parse_duration(value, &cfg->shutdown_timeout_ms);
        else if (strcmp(name, "--http-idle-timeout") == 0)
            bad = daemon_parse_duration(value, &cfg->http_idle_timeout_ms);
        else if (strcmp(name, "--http-header-timeout") == 0)
            bad = daemon_parse_duration(value, &cfg->http_header_timeout_ms);
        else if (strcmp(name, "--http-max-connections") == 0)
            bad = parse_count(value, &cfg->http_max_connections);
        else if (strcmp(name, "--http-max-connections-per-client") == 0)
            bad = parse_count(value, &cfg->http_max_per_client);
        else if (strcmp(name, "--grpc-max-connections") == 0)
            bad = parse_count(value, &cfg->grpc_max_connections);
        else if (strcmp(name, "--grpc-max-connections-per-client") == 0)
            bad = parse_count(value, &cfg->grpc_max_per_client);
        else if (strcmp(name, "--grpc-handshake-timeout") == 0)
            bad = parse_timeout(value, &cfg->grpc_handshake_timeout_ms);
        else if (strcmp(name, "--grpc-idle-timeout") == 0)
            bad = parse_timeout(value, &cfg->grpc_idle_timeout_ms);
        else if (strcmp(name, "--grpc-request-timeout") == 0)
            bad = parse_timeout(value, &cfg->grpc_request_timeout_ms);
        else if (strcmp(name, "--grpc-stall-timeout") == 0)
            bad = parse_timeout(value, &cfg->grpc_stall_timeout_ms);
        else if (strcmp(name, "--stream-chunk-size") == 0)
            bad = parse_size(value, &cfg->stream_chunk_size) || cfg->stream_chunk_size == 0 ||
                  cfg->stream_chunk_size > (4u << 20);
        else if (strcmp(name, "--execute-output-limit") == 0)
            bad = parse_size(value, &cfg->execute_output_limit);
        else if (!daemon_behaviour->take_flag(name, value)) {
            fprintf(stderr, "sandboxd-ref: unknown flag '%s' (see --help)\n", name);
            return -1;
        }
        if (bad) {
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
