/* SPDX-License-Identifier: Apache-2.0 */
/* The gRPC server's faults and variants (see daemon_grpc_server.h). */
#include "daemon_grpc_server.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon_behaviour.h"
#include "fault.h"

/* unknown-method-internal: unregistered paths answer INTERNAL. */
static int unknown_method_internal(const char *path, void *user)
{
    (void)path;
    (void)user;
    return SBX_GRPC_INTERNAL;
}

void fault_grpc_options(struct sbx_grpc_server_opts *o)
{
    daemon_real.grpc_options(o);
    if (fault_active(FAULT_MAX_STREAMS_16))
        o->max_concurrent_streams = 16;
    else if (fault_active(FAULT_VARIANT_MAX_STREAMS_100))
        o->max_concurrent_streams = 100;
    if (fault_active(FAULT_UNKNOWN_METHOD_INTERNAL))
        o->unknown_method_status = unknown_method_internal;
    if (fault_active(FAULT_VARIANT_ERRORS_WITH_HEADERS)) o->never_trailers_only = true;
    if (fault_active(FAULT_VARIANT_NO_GRPC_MESSAGE)) o->omit_status_message = true;
    if (fault_active(FAULT_VARIANT_CONTENT_TYPE_PROTO)) o->content_type = "application/grpc+proto";
    if (fault_active(FAULT_VARIANT_DEADLINE_RST)) o->deadline_resets_stream = true;
}

int fault_register_reflection(struct sbx_grpc_server *srv)
{
    return fault_active(FAULT_NO_REFLECTION) ? 0 : daemon_real.register_reflection(srv);
}

/* sweep-grpc-silent: the gRPC port completes TCP handshakes in the
 * kernel's backlog but nothing ever accepts or answers. */
static int listen_silent(const char *host, int port, char *err, size_t err_len)
{
    char service[16];
    snprintf(service, sizeof(service), "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE},
                    *ai = NULL;
    if (getaddrinfo(host, service, &hints, &ai) != 0) {
        snprintf(err, err_len, "cannot resolve %s", host);
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
                    bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 4096) != 0)) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0) snprintf(err, err_len, "cannot listen");
    return fd < 0 ? -1 : 0; /* kept open, never accepted from, until the daemon exits */
}

int fault_listen_grpc_tcp(struct sbx_grpc_server *srv, const char *host, int port, int *bound_port,
                          char *err, size_t err_len)
{
    if (fault_active(FAULT_SWEEP_GRPC_SILENT)) {
        *bound_port = port;
        return listen_silent(host, port, err, err_len);
    }
    /* grpc-listen-any: the gRPC listener ignores --listen-host. */
    if (fault_active(FAULT_GRPC_LISTEN_ANY)) host = "0.0.0.0";
    return daemon_real.listen_grpc_tcp(srv, host, port, bound_port, err, err_len);
}
