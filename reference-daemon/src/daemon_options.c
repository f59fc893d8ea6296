/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's flags: one row each (name, value, field, help and man text),
 * and the checks of each kind of value (daemon_options.h). */
#include "daemon_options.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(f) .offset = offsetof(struct daemon_config, f)

const struct daemon_option daemon_options[] = {
    {"listen-host", "HOST", DOPT_TEXT, FIELD(listen_host),
     "interface both listeners bind (default 0.0.0.0)",
     "Interface both listeners bind (default 0.0.0.0)."},
    {"grpc-port", "PORT", DOPT_PORT, FIELD(grpc_port),
     "ProcessService port (default 9090; 0 = ephemeral)", "ProcessService port (default 9090)."},
    {"rest-port", "PORT", DOPT_PORT, FIELD(rest_port), "REST port (default 8080; 0 = ephemeral)",
     "REST port (default 8080).\n"
     "A port of 0 binds an ephemeral port; the bound ports are printed on standard\n"
     "output as\n"
     ".B grpc\\-port=N\n"
     "and\n"
     ".BR rest\\-port=N ."},
    {"root-dir", "DIR", DOPT_NONEMPTY, FIELD(root_dir),
     "sandbox root, created if missing (default\n"
     "/workspace)",
     "Sandbox root, created if missing (default /workspace)."},
    {"metadata-env-prefix", "P", DOPT_TEXT, FIELD(metadata_prefix),
     "prefix served on /v1/metadata (default SANDBOX_)",
     "Prefix of the environment variables served on /v1/metadata (default\n"
     "SANDBOX_).\n"
     "Names containing credential markers (TOKEN, SECRET, PASSWORD, CREDENTIAL,\n"
     "KEY, and others) are never served."},
    {"shutdown-timeout", "D", DOPT_DURATION, FIELD(shutdown_timeout_ms),
     "bound on graceful shutdown (default 10s)", "Bound on graceful shutdown (default 10s)."},
    {"http-idle-timeout", "D", DOPT_DURATION, FIELD(http_idle_timeout_ms),
     "idle keep-alive close (default 60s)",
     "Idle keep-alive connections are closed after this (default 60s)."},
    {"http-header-timeout", "D", DOPT_DURATION, FIELD(http_header_timeout_ms),
     "a request's header block must be complete this\n"
     "long after the connection opened or its previous\n"
     "request ended, else the connection is closed\n"
     "(default 10s; 0 = no bound)",
     "A request's header block must be complete this long after the connection\n"
     "opened or its previous request ended, else the connection is closed\n"
     "(default 10s; 0 switches it off)."},
    {"http-max-connections", "N", DOPT_COUNT, FIELD(http_max_connections),
     "REST connections served at once; more are refused\n"
     "(default: the descriptor limit less gRPC's share\n"
     "and a reserve)",
     "REST connections served at once; more are refused (default: the\n"
     "descriptor limit less gRPC's share and a reserve)."},
    {"http-max-connections-per-client", "N", DOPT_COUNT, FIELD(http_max_per_client),
     "REST connections from one client address\n"
     "(default: a sixteenth of the total)",
     "REST connections from one client address (default: a sixteenth of the\n"
     "total)."},
    {"grpc-max-connections", "N", DOPT_COUNT, FIELD(grpc_max_connections),
     "gRPC connections served at once; more are closed\n"
     "at once (default 1024)",
     "gRPC connections served at once; more are closed at once (default 1024)."},
    {"grpc-max-connections-per-client", "N", DOPT_COUNT, FIELD(grpc_max_per_client),
     "gRPC connections from one client address\n"
     "(default: a quarter of the total)",
     "gRPC connections from one client address (default: a quarter of the\n"
     "total)."},
    {"grpc-handshake-timeout", "D", DOPT_TIMEOUT, FIELD(grpc_handshake_timeout_ms),
     "an HTTP/2 client must have sent its preface and\n"
     "SETTINGS this long after connecting (default 10s)",
     "An HTTP/2 client must have sent its preface and SETTINGS this long after\n"
     "connecting (default 10s)."},
    {"grpc-idle-timeout", "D", DOPT_TIMEOUT, FIELD(grpc_idle_timeout_ms),
     "a gRPC connection without an open stream this long\n"
     "gets GOAWAY and is closed (default 5m)",
     "A gRPC connection without an open stream this long gets GOAWAY and is\n"
     "closed (default 5m)."},
    {"grpc-request-timeout", "D", DOPT_TIMEOUT, FIELD(grpc_request_timeout_ms),
     "a request message must be complete this long\n"
     "after its headers, else the stream is reset\n"
     "(default 60s)",
     "A request message must be complete this long after its headers, else the\n"
     "stream is reset (default 60s)."},
    {"grpc-stall-timeout", "D", DOPT_TIMEOUT, FIELD(grpc_stall_timeout_ms),
     "a response the client takes no byte of this long\n"
     "(its flow-control window stays closed, or it does\n"
     "not read) is reset, its process terminated as on a\n"
     "cancel (default 5m)\n"
     "(0 switches any of these four off)",
     "A response of which the client takes no byte this long (its HTTP/2\n"
     "flow-control window stays closed, or it does not read the connection) is\n"
     "reset (RST_STREAM CANCEL); a Start's process group is then terminated as on\n"
     "a cancellation (default 5m). 0 switches any of the four gRPC timeouts off."},
    {"stream-chunk-size", "N", DOPT_CHUNK, FIELD(stream_chunk_size),
     "max bytes per stdout/stderr event (default 4096)",
     "Maximum bytes per stdout or stderr event of a Start stream (default 4096)."},
    {"execute-output-limit", "N", DOPT_SIZE, FIELD(execute_output_limit),
     "max bytes Execute buffers per stream; beyond it\n"
     "the call fails with RESOURCE_EXHAUSTED (default\n"
     "64Mi)",
     "Maximum bytes Execute buffers per stream; beyond it the call fails with\n"
     "RESOURCE_EXHAUSTED (default 64Mi)."},
    {"grpc-unix", "PATH", DOPT_TEXT, FIELD(grpc_unix), "also serve gRPC on a Unix socket",
     "Also serve gRPC on a Unix socket."},
    {"copy-to", "DIR", DOPT_TEXT, FIELD(copy_to),
     "copy this binary to DIR/sandboxd-ref and exit (the\n"
     "init container of an image that only holds it)",
     "Copy this binary to DIR/sandboxd\\-ref (mode 0755, through a temporary name\n"
     "and a rename) and exit: the command of an init container whose image holds\n"
     "nothing but the static binary (topology B)."},
    {"version", NULL, DOPT_VERSION, 0, "print version and exit", "Print the version and exit."},
    {"help", NULL, DOPT_HELP, 0, "print this help and exit", "Print the flags and exit."},
    {"man-options", "COMMAND:GROUP", DOPT_INTERNAL, 0, NULL, NULL},
    {"dump-options", NULL, DOPT_INTERNAL, 0, NULL, NULL},
};

const size_t daemon_n_options = sizeof daemon_options / sizeof daemon_options[0];

const struct daemon_option *daemon_option_find(const char *name)
{
    if (strncmp(name, "--", 2) != 0) return NULL;
    for (size_t i = 0; i < daemon_n_options; i++)
        if (strcmp(daemon_options[i].name, name + 2) == 0) return &daemon_options[i];
    return NULL;
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

/* A whole number in [min, max]. */
static int parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int daemon_option_set(struct daemon_config *cfg, const struct daemon_option *o, const char *val)
{
    void *at = (char *)cfg + o->offset;
    long l;
    switch (o->kind) {
    case DOPT_NONEMPTY:
    case DOPT_TEXT:
        memcpy(at, &val, sizeof val);
        return o->kind == DOPT_NONEMPTY && !*val ? -1 : 0;
    case DOPT_PORT:
        if (parse_long(val, 0, 65535, &l) != 0) return -1;
        *(int *)at = (int)l;
        return 0;
    case DOPT_COUNT:
        if (parse_long(val, 1, 1000000, &l) != 0) return -1;
        *(unsigned *)at = (unsigned)l;
        return 0;
    case DOPT_DURATION:
        return daemon_parse_duration(val, at);
    case DOPT_TIMEOUT:
        /* The gRPC server keeps it in 32-bit milliseconds (24 days). */
        return daemon_parse_duration(val, at) || *(uint64_t *)at > UINT32_MAX ? -1 : 0;
    case DOPT_SIZE:
        return parse_size(val, at);
    case DOPT_CHUNK:
        return parse_size(val, at) || *(size_t *)at == 0 || *(size_t *)at > (4u << 20) ? -1 : 0;
    case DOPT_HELP:
    case DOPT_VERSION:
    case DOPT_INTERNAL:
        break;
    }
    return -1;
}
