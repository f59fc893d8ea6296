/* SPDX-License-Identifier: Apache-2.0 */
/* What the runner learns of the runtime before the cases run: the bundled
 * binary's version, /v1/metadata, and a capability probe (one Execute). */
#include "runner_probe.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "case_context.h"
#include "child_answer.h"
#include "die_with_parent.h"
#include "process_client.h"
#include "rest_client.h"

enum { PROBE_TIMEOUT_S = 30 };

/* `PATH --version`, first line, bounded in time. */
char *runner_binary_version(const char *path)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        execl(path, path, "--version", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return NULL;
    }
    char buf[512];
    int st;
    size_t got = child_answer_read(p[0], pid, buf, sizeof buf, 5, NULL, &st);
    buf[strcspn(buf, "\n")] = '\0';
    return got && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? strdup(buf) : NULL;
}

/* What the runtime says about itself on /v1/metadata (its identity in
 * attach mode); NULL when it does not answer 200. */
char *runner_fetch_metadata(const char *rest_addr)
{
    struct http_request req = {.method = "GET",
                               .target = "/v1/metadata",
                               .timeout_ms = RUNNER_REACH_TIMEOUT_MS,
                               .max_body = 64 * 1024};
    struct http_response resp;
    char *body = NULL;
    if (rest_do_at(rest_addr, &req, &resp) == 0 && resp.status == 200 && !resp.body_truncated)
        body = strndup(resp.body, resp.body_len);
    http_response_free(&resp);
    return body;
}

/* One Execute in a forked child (bounded in time, a hanging runtime cannot
 * stall the run): the root as processes see it, /proc and /dev/ptmx. */
void runner_probe_runtime(const struct run_target *t, struct runtime_identity *ri, int log_fd,
                          volatile sig_atomic_t *interrupted)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return;
    fflush(NULL);
    pid_t runner = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (!die_with_parent(runner, SIGKILL)) _exit(1);
        setpgid(0, 0);
        close(p[0]);
        struct case_ctx ctx;
        case_ctx_init(&ctx, NULL, t, 0, -1);
        const char *argv[] = {"sh", "-c",
                              "pwd -P; test -r /proc/self/status && echo procfs; "
                              "test -c /dev/ptmx && echo pty; true",
                              NULL};
        struct rpc_spec spec = {.argv = argv, .timeout_ms = 15000};
        struct rpc_result r = {0};
        int code = rpc_execute(&ctx, &spec, &r);
        if (code == 0 && r.out)
            (void)!write(p[1], r.out, r.out_len > 4000 ? 4000 : r.out_len);
        else
            dprintf(p[1], "!status %d %s", code, r.message ? r.message : "");
        rpc_result_free(&r);
        case_ctx_release(&ctx);
        _exit(0);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return;
    }
    char buf[4096];
    /* A signal ends the wait: the reports are due, not the probe. */
    size_t got = child_answer_read(p[0], pid, buf, sizeof buf, PROBE_TIMEOUT_S, interrupted, NULL);
    if (got == 0 || buf[0] != '/') {
        /* Unknown capabilities: the cases run and report what they find. */
        ri->procfs = ri->pty = true;
        if (log_fd >= 0)
            dprintf(log_fd, "capability probe (Execute sh -c ...) failed: %s\n",
                    got ? buf : "no answer");
        fprintf(stderr,
                "sandboxd-conformance: warning: the capability probe (one Execute) failed: %s\n",
                got ? buf : "no answer within 30 s");
        return;
    }
    ri->probed = true;
    char *nl = strchr(buf, '\n');
    if (nl) *nl = '\0';
    if (!ri->root_path) ri->root_path = strdup(buf);
    const char *rest = nl ? nl + 1 : "";
    ri->procfs = strstr(rest, "procfs") != NULL;
    ri->pty = strstr(rest, "pty") != NULL;
}
