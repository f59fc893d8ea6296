/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime's liveness, asked from a forked child (see liveness.h). */
#include "liveness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "case_context.h"
#include "child_answer.h"
#include "process_client.h"
#include "rest_client.h"

/* Generous: on a loaded machine a live runtime may answer slowly, and
 * giving up on it is worse than waiting half a minute. */
enum { HEALTH_MS = 10000, EXECUTE_MS = 15000, PROBE_BOUND_S = 35 };

/* In the child: "ok", or what went wrong. */
static void probe(const struct run_target *t, int fd)
{
    struct http_request req = {.method = "GET", .target = "/v1/health", .timeout_ms = HEALTH_MS};
    struct http_response resp;
    int rc = rest_do_at(t->rest_addr, &req, &resp);
    if (rc != 0 || resp.status != 200) {
        if (rc != 0)
            dprintf(fd, "GET /v1/health: no answer within %d s (%s)", HEALTH_MS / 1000, resp.error);
        else
            dprintf(fd, "GET /v1/health answered HTTP %ld", resp.status);
        http_response_free(&resp);
        return;
    }
    http_response_free(&resp);
    struct case_ctx ctx;
    case_ctx_init(&ctx, NULL, t, 0, -1);
    const char *argv[] = {"true", NULL};
    struct rpc_spec spec = {.argv = argv, .timeout_ms = EXECUTE_MS, .wait_ms = EXECUTE_MS + 2000};
    struct rpc_result r = {0};
    int code = rpc_execute(&ctx, &spec, &r);
    /* Any status is an answer: a runtime failing Execute is still alive. */
    if (code >= 0)
        dprintf(fd, "ok");
    else
        dprintf(fd, "Execute `true`: no answer within %d s (%s)", EXECUTE_MS / 1000 + 2,
                r.message ? r.message : "transport error");
    rpc_result_free(&r);
    case_ctx_release(&ctx);
}

bool liveness_probe(const struct run_target *t, char *why, size_t why_len)
{
    int p[2];
    snprintf(why, why_len, "the liveness probe could not run");
    if (pipe2(p, O_CLOEXEC) != 0) return true; /* cannot tell: do not give up on the runtime */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        close(p[0]);
        probe(t, p[1]);
        _exit(0);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return true;
    }
    char buf[400];
    size_t got = child_answer_read(p[0], pid, buf, sizeof buf, PROBE_BOUND_S, NULL, NULL);
    if (strcmp(buf, "ok") == 0) return true;
    snprintf(why, why_len, "%s", got ? buf : "the liveness probe got no answer within 35 s");
    return false;
}
