/* L6: the command line of contract section 4 on private instances:
 * --listen-host binds both listeners there (and nowhere else), and the
 * duration flags take values with units. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher.h"
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
    struct proc_spec spec = {.argv = argv, .timeout_ms = 10000};
    struct proc_result r = {0};
    int code = proc_execute(ctx, &spec, &r);
    proc_result_free(&r);
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

static void duration_flags(struct case_ctx *ctx)
{
    static const char *const args[] = {"--shutdown-timeout", "5s", "--http-idle-timeout", "30s",
                                       NULL};
    struct private_runtime_opts o = {
        .extra_args = args,
        .must_start = "the runtime starting with `--shutdown-timeout 5s --http-idle-timeout 30s`"};
    struct private_runtime *rt = case_runtime_start(ctx, &o);
    if (!rt) return;
    private_runtime_signal(rt, SIGTERM);
    int status = 0;
    /* Nothing runs, so the exit is due well within the 5 s given; 3 s more
     * cover a loaded machine. */
    bool exited = private_runtime_wait(rt, 8000, &status) == 0;
    CASE_CHECK(ctx, exited, "the daemon exiting after SIGTERM within its --shutdown-timeout 5s",
               "still running 8 s after SIGTERM");
    private_runtime_stop(rt);
}
SBX_CASE(duration_flags, .id = "L6-002",
         .title = "Duration flags take values with units (--shutdown-timeout 5s)",
         .clauses = "L6,L1", .level = LEVEL_SHOULD, .tags = "lifecycle", .needs = NEEDS_LAUNCH,
         .timeout_s = 40, .catches = "duration flags refused, or taken only as plain numbers",
         .how = "a private instance with `--shutdown-timeout 5s --http-idle-timeout 30s` must "
                "start and become healthy, and exit after SIGTERM within 5 s (8 s allowed)");
