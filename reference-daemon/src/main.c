/* SPDX-License-Identifier: Apache-2.0 */
/* sandboxd-ref: the reference sandboxd daemon. One process serves the gRPC
 * ProcessService (on a libuv loop on this thread) and the REST file API (on
 * its own threads) over one sandbox root. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "copy_self.h"
#include "daemon_behaviour.h"
#include "daemon_config.h"
#include "daemon_state.h"
#include "grpc_service/process_service.h"
#include "peer_cap.h"
#include "process/proc.h"
#include "rest_server.h"
#include "sbx_grpc_server.h"
#include "shutdown.h"

/* Streams per HTTP/2 connection: G6 asks for at least 100; a client may
 * keep 1,000 Start streams open on one connection. */
#define GRPC_MAX_STREAMS 4096

/* What a finished Start or Execute leaves in its process group gets SIGTERM,
 * then SIGKILL this long after (the shutdown grace of L1). */
#define END_GROUP_GRACE_MS 2000

/* Descriptors 0..2 must exist so that nothing the daemon opens lands there
 * and is then handed to a child as a standard stream. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0) continue;
        int n = open("/dev/null", O_RDWR);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
    }
}

/* Many concurrent processes need many descriptors (three or four each). */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int open_root(const struct daemon_config *cfg, char *root_abs)
{
    struct stat sb;
    if (stat(cfg->root_dir, &sb) != 0) {
        if (daemon_behaviour->create_root(cfg->root_dir) != 0) {
            fprintf(stderr, "sandboxd-ref: cannot create root directory %s: %s\n", cfg->root_dir,
                    strerror(errno));
            return -1;
        }
    }
    int fd = open(cfg->root_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "sandboxd-ref: cannot open root directory %s: %s\n", cfg->root_dir,
                strerror(errno));
        return -1;
    }
    if (!realpath(cfg->root_dir, root_abs)) {
        fprintf(stderr, "sandboxd-ref: cannot resolve root directory %s: %s\n", cfg->root_dir,
                strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* gRPC connections take at most a quarter of the descriptor table (REST
 * at most half): a flood on one port cannot starve the other or Execute. */
static size_t grpc_connection_cap(unsigned wanted)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max == RLIM_INFINITY) return wanted;
    rlim_t share = rl.rlim_max / 4 > 16 ? rl.rlim_max / 4 : 16;
    return share < wanted ? (size_t)share : wanted;
}

/* One address may hold a quarter of the gRPC connections unless told
 * otherwise: it cannot take them all and lock every other client out for
 * the idle timeout. */
static unsigned grpc_per_client_cap(const struct daemon_config *cfg, size_t total)
{
    if (cfg->grpc_max_per_client) return cfg->grpc_max_per_client;
    return total / 4 > 1 ? (unsigned)(total / 4) : 1;
}

static struct sbx_grpc_server *start_grpc(uv_loop_t *loop, struct daemon_state *st,
                                          struct peer_cap **per_client)
{
    const struct daemon_config *cfg = st->cfg;
    size_t total = grpc_connection_cap(cfg->grpc_max_connections);
    *per_client = peer_cap_new(grpc_per_client_cap(cfg, total));
    if (!*per_client) {
        fprintf(stderr, "sandboxd-ref: out of memory\n");
        return NULL;
    }
    struct sbx_grpc_server_opts o = {
        .max_concurrent_streams = GRPC_MAX_STREAMS,
        .max_connections = total,
        .admit_peer = peer_cap_admit,
        .release_peer = peer_cap_release,
        .peer_user = *per_client,
        .handshake_timeout_ms = (unsigned)cfg->grpc_handshake_timeout_ms,
        .idle_timeout_ms = (unsigned)cfg->grpc_idle_timeout_ms,
        .request_timeout_ms = (unsigned)cfg->grpc_request_timeout_ms,
        .send_stall_timeout_ms = (unsigned)cfg->grpc_stall_timeout_ms,
        /* An Execute answer carries both output buffers in one message. */
        .max_call_queue = cfg->execute_output_limit ? 2 * cfg->execute_output_limit + (1u << 20)
                                                    : (size_t)256 << 20,
    };
    daemon_behaviour->grpc_options(&o);
    struct sbx_grpc_server *srv = sbx_grpc_server_new(loop, &o);
    if (!srv) {
        fprintf(stderr, "sandboxd-ref: out of memory\n");
        return NULL;
    }
    return srv;
}

static int listen_grpc(struct sbx_grpc_server *srv, struct daemon_state *st)
{
    const struct daemon_config *cfg = st->cfg;
    char err[256];
    if (daemon_behaviour->register_reflection(srv) != 0) {
        fprintf(stderr, "sandboxd-ref: cannot register gRPC reflection\n");
        return -1;
    }
    if (daemon_behaviour->listen_grpc_tcp(srv, cfg->listen_host, cfg->grpc_port,
                                          &st->bound_grpc_port, err, sizeof(err)) != 0) {
        fprintf(stderr, "sandboxd-ref: gRPC listener on %s:%d: %s\n", cfg->listen_host,
                cfg->grpc_port, err);
        return -1;
    }
    if (cfg->grpc_unix && sbx_grpc_server_listen_unix(srv, cfg->grpc_unix, err, sizeof(err)) != 0) {
        fprintf(stderr, "sandboxd-ref: gRPC listener on %s: %s\n", cfg->grpc_unix, err);
        return -1;
    }
    return 0;
}

static void drain_loop(uv_loop_t *loop)
{
    /* Close callbacks of handles closed during the last turn. */
    for (int i = 0; i < 16 && uv_loop_alive(loop); i++)
        uv_run(loop, UV_RUN_NOWAIT);
}

int main(int argc, char **argv)
{
    struct daemon_config cfg;
    int rc = daemon_config_parse(&cfg, argc, argv);
    if (rc != 0) return rc > 0 ? 0 : 2;
    if (cfg.copy_to) return copy_self_to(cfg.copy_to) == 0 ? 0 : 1;
    rc = daemon_behaviour->configured(&cfg, argc, argv);
    if (rc >= 0) return rc;
    ensure_std_fds();
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit();

    static char root_abs[PATH_MAX];
    struct daemon_state st = {.cfg = &cfg, .root_fd = -1};
    clock_gettime(CLOCK_MONOTONIC, &st.started);
    atomic_init(&st.shutting_down, false);
    st.root_fd = open_root(&cfg, root_abs);
    if (st.root_fd < 0) return 1;

    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0) {
        fprintf(stderr, "sandboxd-ref: cannot create the event loop\n");
        return 1;
    }
    struct proc_manager_opts pmo = {.end_group_grace_ms = END_GROUP_GRACE_MS};
    struct proc_manager *pm = proc_manager_new(&loop, &pmo);
    struct peer_cap *grpc_per_client = NULL;
    struct sbx_grpc_server *grpc = pm ? start_grpc(&loop, &st, &grpc_per_client) : NULL;
    struct process_service *svc = grpc ? process_service_new(&loop, &st, pm, grpc, root_abs) : NULL;
    if (!svc) {
        fprintf(stderr, "sandboxd-ref: cannot set up the process service\n");
        return 1;
    }
    /* Signal handlers go in before the listeners, so a SIGTERM that follows
     * readiness (ports printed, health answering) always shuts down cleanly. */
    struct daemon_shutdown sd;
    if (shutdown_init(&sd, &loop, &st, pm, grpc, svc) != 0) {
        fprintf(stderr, "sandboxd-ref: cannot install signal handlers\n");
        return 1;
    }
    /* Orphaned descendants are re-parented to the daemon and reaped. */
    if (proc_manager_adopt_orphans(pm) != 0)
        fprintf(stderr, "sandboxd-ref: warning: cannot become child subreaper\n");
    if (listen_grpc(grpc, &st) != 0) return 1;

    char err[256] = "";
    struct rest_server *rest = rest_server_start(&st, err, sizeof(err));
    if (!rest) {
        fprintf(stderr, "sandboxd-ref: REST listener on %s:%d: %s\n", cfg.listen_host,
                cfg.rest_port, err);
        return 1;
    }
    if (cfg.grpc_port == 0) printf("grpc-port=%d\n", st.bound_grpc_port);
    if (cfg.rest_port == 0) printf("rest-port=%d\n", st.bound_rest_port);
    fflush(stdout);
    fprintf(stderr, "sandboxd-ref %s: gRPC on %s:%d, REST on %s:%d, root %s\n", SBX_VERSION,
            cfg.listen_host, st.bound_grpc_port, cfg.listen_host, st.bound_rest_port, root_abs);

    uv_run(&loop, UV_RUN_DEFAULT);

    /* The loop ends once shutdown closed the server and the processes. */
    rest_server_stop(rest);
    drain_loop(&loop);
    sbx_grpc_server_free(grpc);
    peer_cap_free(grpc_per_client); /* after the server released every connection */
    process_service_free(svc);
    drain_loop(&loop);
    if (uv_loop_close(&loop) != 0)
        fprintf(stderr, "sandboxd-ref: warning: event loop still had handles at exit\n");
    close(st.root_fd);
    return 0;
}
