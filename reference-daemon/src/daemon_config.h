/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_DAEMON_CONFIG_H
#define SBX_DAEMON_CONFIG_H
/* The daemon's command line (contract section 4), parsed once at start-up. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct daemon_config {
    const char *listen_host;       /* --listen-host, default 0.0.0.0 */
    int grpc_port;                 /* --grpc-port, default 9090; 0 = ephemeral (extension) */
    int rest_port;                 /* --rest-port, default 8080; 0 = ephemeral (extension) */
    const char *grpc_unix;         /* --grpc-unix PATH: also listen on a Unix socket (extension) */
    const char *root_dir;          /* --root-dir, default /workspace */
    const char *metadata_prefix;   /* --metadata-env-prefix, default SANDBOX_ */
    uint64_t shutdown_timeout_ms;  /* --shutdown-timeout, default 10s */
    uint64_t http_idle_timeout_ms; /* --http-idle-timeout, default 60s */
    uint64_t http_header_timeout_ms; /* --http-header-timeout, default 10s; 0 = none (extension) */
    unsigned http_max_connections;   /* --http-max-connections; 0: from the fd limit */
    unsigned http_max_per_client;    /* --http-max-connections-per-client; 0: total/16 */
    unsigned grpc_max_connections;   /* --grpc-max-connections, default 1024 (extension) */
    unsigned grpc_max_per_client;    /* --grpc-max-connections-per-client; 0: a quarter */
    uint64_t grpc_handshake_timeout_ms; /* --grpc-handshake-timeout, default 10s (extension) */
    uint64_t grpc_idle_timeout_ms;      /* --grpc-idle-timeout, default 5m (extension) */
    uint64_t grpc_request_timeout_ms;   /* --grpc-request-timeout, default 60s (extension) */
    uint64_t grpc_stall_timeout_ms;     /* --grpc-stall-timeout, default 5m (extension) */
    size_t stream_chunk_size;           /* --stream-chunk-size, default 4096 */
    size_t execute_output_limit;        /* --execute-output-limit, default 64 MiB per stream */
    const char *copy_to; /* --copy-to DIR: copy the binary there and exit (extension) */
};

/* Parses argv into cfg. Returns 0 to run, 1 when it printed --help/--version
 * (exit 0), -1 on a usage error (message already on stderr, exit 2). */
int daemon_config_parse(struct daemon_config *cfg, int argc, char **argv);

/* Parses a Go-style duration ("10s", "1500ms", "2m", "1m30s") into ms. */
int daemon_parse_duration(const char *s, uint64_t *out_ms);

#endif
