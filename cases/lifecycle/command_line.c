/* SPDX-License-Identifier: Apache-2.0 */
/* L6: the command line of contract section 4 on private instances:
 * --listen-host binds both listeners there (and nowhere else), and the
 * duration flags take values with units and are honoured. */
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/conf_util.h"
#include "grpc_dial.h"
#include "launcher.h"
#include "sbx_grpc_client.h"
#include "lifecycle/lc_util.h"

/* Whether this host can listen on addr at all (127.0.0.2 needs the usual
 * loopback /8, ::1 needs IPv6). */
static bool can_bind(const char *addr)
{
    struct sockaddr_storage ss = {0};
    socklen_t len;
    int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
    if (family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        if (inet_pton(AF_INET6, addr, &a->sin6_addr) != 1) return false;
        len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        if (inet_pton(AF_INET, addr, &a->sin_addr) != 1) return false;
        len = sizeof *a;
    }
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&ss, len) == 0;
    if (fd >= 0) close(fd);
    return ok;
}

static int port_of(const char *addr)
{
    const char *colon = strrchr(addr, ':');
    return colon ? atoi(colon + 1) : -1;
}

/* One instance on host: it must answer over both surfaces there, and
 * neither port may accept on 127.0.0.1. */
static void check_host(struct case_ctx *ctx, const char *host)
{
    const char *args[] = {"--listen-host", host, NULL};
    char expect[160];
    snprintf(expect, sizeof expect,
             "the runtime starting with --listen-host %s and answering there", host);
    struct private_runtime_opts o = {.extra_args = args, .host = host, .must_start = expect};
    struct private_runtime *rt = case_runtime_start(ctx, &o);
    if (!rt) return;
    case_use_runtime(ctx, rt);
    const char *argv[] = {"true", NULL};
    struct rpc_spec spec = {.argv = argv, .timeout_ms = 10000};
    struct rpc_result r = {0};
    int code = rpc_execute(ctx, &spec, &r);
    rpc_result_free(&r);
    CASE_CHECK(ctx, code == 0, "Execute answered on the gRPC listener at --listen-host",
               "%s: status %d", private_runtime_grpc_addr(rt), code);
    int gport = port_of(private_runtime_grpc_addr(rt)),
        rport = port_of(private_runtime_rest_addr(rt));
    CASE_CHECK(ctx, !launcher_tcp_accepts("127.0.0.1", gport),
               "the gRPC listener bound to --listen-host only",
               "127.0.0.1:%d accepts connections too (--listen-host %s)", gport, host);
    CASE_CHECK(ctx, !launcher_tcp_accepts("127.0.0.1", rport),
               "the REST listener bound to --listen-host only",
               "127.0.0.1:%d accepts connections too (--listen-host %s)", rport, host);
    case_use_shared_runtime(ctx);
    private_runtime_stop(rt);
}

static void listen_host(struct case_ctx *ctx)
{
    static const char *const hosts[] = {"127.0.0.2", "::1"};
    int checked = 0;
    char unusable[200] = "";
    for (size_t i = 0; i < 2 && !case_failed(ctx); i++) {
        if (!can_bind(hosts[i])) {
            size_t n = strlen(unusable);
            snprintf(unusable + n, sizeof unusable - n, "%s%s", n ? ", " : "", hosts[i]);
            continue;
        }
        check_host(ctx, hosts[i]);
        checked++;
    }
    if (!checked && !case_failed(ctx))
        case_skip(ctx, "this host cannot listen on %s", unusable);
    else if (unusable[0])
        case_note(ctx, "not checked, this host cannot listen there: %s", unusable);
}
SBX_CASE(listen_host, .id = "L6-001",
         .title = "Both listeners bind the interface --listen-host names", .clauses = "L6",
         .level = LEVEL_SHOULD, .tags = "lifecycle", .needs = NEEDS_LAUNCH, .timeout_s = 60,
         .catches = "a listener that ignores --listen-host (binds all interfaces or 127.0.0.1), "
                    "an IPv6 address refused",
         .how = "private instances with `--listen-host 127.0.0.2` and `--listen-host ::1` (each "
                "skipped where this host cannot listen there): health and Execute must answer "
                "at that address, and neither port may accept a connection on 127.0.0.1");

/* The shorter shutdown timeout L6-002 gives, and how long after SIGTERM
 * the exit may come: the timeout plus slack for a loaded machine, and still
 * well before the 10 s default would end the shutdown. */
#define SHORT_TIMEOUT "1s"
#define SHORT_TIMEOUT_EXIT_MS 6000u

/* A process that ignores SIGTERM and writes to its Start stream without
 * end. The suite stops reading the stream, so neither its output nor its
 * ExitEvent can leave once the window is full: the shutdown's wait for
 * them ends only with the shutdown timeout (the grace's SIGKILL alone ends
 * the process, not the wait). A sleep in its group, which ignores SIGTERM
 * too and never writes (so no broken pipe ends it when the daemon exits),
 * shows whether the group was killed. */
#define FLOOD_UNREAD                                                                               \
    "trap '' TERM; sleep 300 & echo $! > flood.pids; echo $$ >> flood.pids; echo ready; "          \
    "exec cat /dev/zero"
#define FLOOD_PIDS 2

/* The pids of <root>/flood.pids (the sleep, the flood): how many were read. */
static int flood_pids(const char *root, pid_t pids[FLOOD_PIDS])
{
    char path[700], line[32];
    snprintf(path, sizeof path, "%s/flood.pids", root);
    FILE *f = fopen(path, "r");
    int n = 0;
    long v;
    /* Only real process ids: 0 or -1 given to kill() below would signal
     * the suite's own group or every process it may signal. */
    while (f && n < FLOOD_PIDS && fgets(line, sizeof line, f) &&
           conf_parse_longs(line, ' ', &v, 1) && v > 1 && v <= INT_MAX)
        pids[n++] = (pid_t)v;
    if (f) fclose(f);
    return n;
}

/* SIGTERM with the stalled flood running; true when the daemon exited in
 * time (a failure is recorded otherwise). */
static bool exits_within_short_timeout(struct case_ctx *ctx, struct private_runtime *rt)
{
    uint64_t t0 = case_now_ms();
    case_request(ctx, "SIGTERM to the runtime (pid %d), the flood's stream unread",
                 private_runtime_pid(rt));
    private_runtime_signal(rt, SIGTERM);
    int status = 0;
    bool exited = private_runtime_wait(rt, SHORT_TIMEOUT_EXIT_MS, &status) == 0;
    uint64_t took = case_now_ms() - t0;
    CASE_CHECK(ctx, exited,
               "the daemon exiting after SIGTERM within its --shutdown-timeout " SHORT_TIMEOUT
               " (6 s allowed; the default 10 s must not apply)",
               "still running %llu ms after SIGTERM", (unsigned long long)took);
    if (exited)
        case_note(ctx, "runtime exited %llu ms after SIGTERM (status 0x%x)",
                  (unsigned long long)took, (unsigned)status);
    return exited;
}

static void duration_flags(struct case_ctx *ctx)
{
    static const char *const args[] = {"--shutdown-timeout", SHORT_TIMEOUT, "--http-idle-timeout",
                                       "30s", NULL};
    struct private_runtime_opts o = {
        .extra_args = args,
        .must_start = "the runtime starting with `--shutdown-timeout " SHORT_TIMEOUT
                      " --http-idle-timeout 30s`"};
    struct private_runtime *rt = case_runtime_start(ctx, &o);
    if (!rt) return;
    case_use_runtime(ctx, rt);
    /* The flood's stream on a connection of its own with small windows,
     * which the suite stops reading after "ready". */
    char err[256] = "";
    struct sbx_grpc_conn_opts co = {.initial_stream_window = 65535, .initial_conn_window = 65535};
    bool usable = rpc_grpc_usable(ctx); /* a skip recorded otherwise */
    struct sbx_grpc_conn *conn =
        usable ? grpc_dial(case_grpc_addr(ctx), &co, err, sizeof err) : NULL;
    struct pu_stream flood = {.conn = conn};
    pid_t pids[FLOOD_PIDS] = {0};
    int npids = 0;
    if (usable && !conn)
        case_fail(ctx, "a gRPC connection (h2c) to the private instance", "%s", err);
    else if (conn &&
             lc_start_ready(ctx, &flood, FLOOD_UNREAD, "process flooding an unread stream")) {
        npids = flood_pids(private_runtime_root(rt), pids);
        if (npids < FLOOD_PIDS)
            case_error(ctx,
                       "cannot read the pids from %s/flood.pids (launch mode runs on this host)",
                       private_runtime_root(rt));
        else if (exits_within_short_timeout(ctx, rt))
            for (int i = 0; i < npids; i++) {
                uint64_t t1 = case_now_ms();
                while (!lc_pid_gone(pids[i]) && case_now_ms() - t1 < 2000)
                    usleep(50 * 1000);
                CASE_CHECK(ctx, lc_pid_gone(pids[i]),
                           "the process group ignoring SIGTERM gone once the daemon exited",
                           "pid %d still alive", (int)pids[i]);
            }
    }
    /* Whatever the outcome, leave nothing behind. */
    for (int i = 0; i < npids; i++)
        if (!lc_pid_gone(pids[i])) kill(pids[i], SIGKILL);
    if (flood.have_init) case_untrack_process(ctx, flood.pid);
    case_use_shared_runtime(ctx);
    private_runtime_stop(rt);
    pu_free(&flood);
    if (conn) sbx_grpc_conn_close(conn);
}
SBX_CASE(duration_flags, .id = "L6-002",
         .title = "Duration flags take values with units and are honoured (--shutdown-timeout "
                  "1s bounds the exit)",
         .clauses = "L6,L1", .level = LEVEL_SHOULD, .tags = "lifecycle",
         .needs = NEEDS_LAUNCH | NEEDS_ALONE, .timeout_s = 40,
         .catches = "duration flags refused, or taken only as plain numbers; a shorter "
                    "--shutdown-timeout ignored (the default 10 s used); the process group left "
                    "running at the exit",
         .how = "a private instance with `--shutdown-timeout 1s --http-idle-timeout 30s` must "
                "start and become healthy; it runs a process that ignores SIGTERM and writes "
                "to its Start stream without end, on a connection with 64 KiB windows that "
                "the suite stops reading, so only the shutdown timeout can end the daemon's "
                "wait for the stream (the grace's SIGKILL ends the process, not the wait); "
                "after SIGTERM the daemon must exit within 6 s, well before the 10 s default, "
                "and the process and a sleep in its group (pids from the root) must be gone");
