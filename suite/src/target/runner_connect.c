/* SPDX-License-Identifier: Apache-2.0 */
/* Reaching the runtime under test: attaching to --grpc/--rest, or launching
 * it (--launch, --launch-bundled or the bundled sandboxd-ref), and checking
 * that both endpoints answer before any case runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundled_runtime.h"
#include "endpoint.h"
#include "health_gate.h"
#include "runner.h"
#include "runner_probe.h"
#include "runner_state.h"
#include "text_util.h"
#include "tls_reach.h"

static int attach_target(struct run_state *st)
{
    const struct cli_opts *o = st->o;
    struct run_results *res = &st->res;
    struct run_target *target = &st->target;
    snprintf(target->grpc_addr, sizeof target->grpc_addr, "%s", o->grpc);
    snprintf(target->rest_addr, sizeof target->rest_addr, "%s", o->rest);
    res->runtime.mode = "attach";
    char e1[600] = "", e2[1200] = "";
    char *body = NULL;
    int g = endpoint_check_grpc_peer(o->grpc, RUNNER_REACH_TIMEOUT_MS, &res->runtime.grpc_tls, e1,
                                     sizeof e1);
    if (g == 0) g = tls_reach_grpc(o->grpc, &res->runtime.grpc_tls, e1, sizeof e1);
    /* A TLS handshake that fails says so in OpenSSL's words (tls_reach.h)
     * before anything is asked over it. */
    int r = tls_reach_rest(o->rest, &res->runtime.rest_tls, e2, sizeof e2);
    /* Then the REST address must be a runtime, not a router or a gateway
     * answering for it (health_gate.h); a runtime still starting is waited
     * for as long as a launched one would be. A TLS server that wanted a
     * client certificate and got none refuses in its own words: that cause
     * is named rather than "not a runtime". */
    long status = 0;
    if (r == 0) {
        r = health_gate_check(o->rest, RUNNER_REACH_TIMEOUT_MS, target->health_timeout_ms, &status,
                              &body, e2, sizeof e2);
        if (r != 0 && status != 0)
            tls_reach_rest_answer(o->rest, &res->runtime.rest_tls, status, body, e2, sizeof e2);
    }
    if (g == ENDPOINT_HTTP1 && o->transport) {
        /* Certifying a proxy that cannot carry gRPC is what the
         * transport profile is for: the run goes on, T1-T3 fail with
         * what was observed, cases that need gRPC are skipped. */
        snprintf(target->grpc_unusable, sizeof target->grpc_unusable, "%s", e1);
        if (r == 0) {
            printf("transport profile: %s\n  the run goes on: cases that need gRPC are "
                   "skipped, T1-T3 report it\n",
                   e1);
            if (st->log_fd >= 0) dprintf(st->log_fd, "gRPC endpoint cannot carry gRPC: %s\n", e1);
        }
        g = 0;
    } else if (g == ENDPOINT_HTTP1) {
        size_t l = strlen(e1);
        snprintf(e1 + l, sizeof e1 - l, "; to certify such a proxy, use --profile transport");
    }
    if (g != 0 || r != 0) {
        fprintf(stderr, "sandboxd-conformance: endpoint unreachable or not a runtime:\n");
        if (g != 0) fprintf(stderr, "  %s\n", e1);
        if (r != 0) fprintf(stderr, "  %s\n", e2);
        free(body);
        char *why =
            text_fmt("%s%s%s", g != 0 ? e1 : "", g != 0 && r != 0 ? "; " : "", r != 0 ? e2 : "");
        res->runtime.grpc_addr = o->grpc;
        res->runtime.rest_addr = o->rest;
        runner_report_unreachable(st, why);
        free(why);
        return RUNNER_UNREACHABLE;
    }
    res->runtime.health_json = body;
    printf("attach: gRPC %s, REST %s (GET /v1/health: 200)\n", o->grpc, o->rest);
    tls_reach_print(stdout, "gRPC", &res->runtime.grpc_tls);
    tls_reach_print(stdout, "REST", &res->runtime.rest_tls);
    return RUNNER_GO_ON;
}

static int launch_target(struct run_state *st)
{
    const struct cli_opts *o = st->o;
    struct run_results *res = &st->res;
    struct run_target *target = &st->target;
    char err[4096];
    const char *bin = o->launch_bundled;
    if (!o->launch && !bin) {
        st->bundled = bundled_runtime_find();
        if (!st->bundled) {
            fprintf(stderr,
                    "sandboxd-conformance: no target given and no bundled sandboxd-ref found "
                    "(next to this binary's build tree or on PATH); use --grpc/--rest, "
                    "--launch or --launch-bundled\n");
            return RUNNER_USAGE;
        }
        bin = st->bundled;
    }
    if (bin) {
        if (access(bin, X_OK) != 0) {
            fprintf(stderr, "sandboxd-conformance: --launch-bundled %s: %s\n", bin,
                    strerror(errno));
            return RUNNER_USAGE;
        }
        char *abs = realpath(bin, NULL);
        char *quoted = text_fmt("'%s' --listen-host 127.0.0.1 --grpc-port {grpc_port} "
                                "--rest-port {rest_port} --root-dir {root}",
                                abs ? abs : bin);
        res->runtime.version = runner_binary_version(abs ? abs : bin);
        free(abs);
        st->launch_template = quoted;
    } else {
        st->launch_template = strdup(o->launch);
    }
    char **words = launcher_split_words(st->launch_template, err, sizeof err);
    if (!words) {
        fprintf(stderr, "sandboxd-conformance: --launch: %s\n", err);
        return RUNNER_USAGE;
    }
    launcher_free_words(words);
    target->launch_template = st->launch_template;
    struct launch_opts lo = {.command_template = st->launch_template,
                             .work_dir = target->run_tmp,
                             .extra_env = o->launch_env,
                             .own_process_group = true,
                             .health_timeout_ms = target->health_timeout_ms,
                             .confine = target->confine_runtime};
    res->runtime.mode = "launch";
    res->runtime.command = st->launch_template;
    if (launcher_start(&lo, &st->rt, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance: cannot launch the runtime: %s\n", err);
        if (st->log_fd >= 0) dprintf(st->log_fd, "launch failed: %s\n", err);
        char *why = text_fmt("cannot launch the runtime: %s", err);
        runner_report_unreachable(st, why);
        free(why);
        launcher_release(&st->rt);
        return RUNNER_UNREACHABLE;
    }
    st->launched = true;
    snprintf(target->grpc_addr, sizeof target->grpc_addr, "%s", st->rt.grpc_addr);
    snprintf(target->rest_addr, sizeof target->rest_addr, "%s", st->rt.rest_addr);
    target->launch_mode = true;
    target->planted_env = st->rt.env;
    target->root_path = realpath(st->rt.root, NULL);
    res->runtime.mode = "launch";
    res->runtime.command = st->rt.command_line;
    res->runtime.root_path = target->root_path ? strdup(target->root_path) : NULL;
    long status = 0;
    char *body = NULL;
    char e1[600], e2[600];
    /* Healthy over REST is not enough: a gRPC port that accepts TCP but
     * never speaks HTTP/2 would make every case wait out its bounds
     * (attach mode refuses such an endpoint the same way). */
    if (endpoint_check_grpc(st->rt.grpc_addr, RUNNER_REACH_TIMEOUT_MS, e1, sizeof e1) != 0) {
        fprintf(stderr,
                "sandboxd-conformance: the launched runtime is healthy over REST but "
                "its gRPC endpoint does not answer:\n  %s\n",
                e1);
        if (st->log_fd >= 0) dprintf(st->log_fd, "launch: gRPC endpoint does not answer: %s\n", e1);
        res->runtime.grpc_addr = st->rt.grpc_addr;
        res->runtime.rest_addr = st->rt.rest_addr;
        char *why = text_fmt("healthy over REST, but the gRPC endpoint does not answer: %s", e1);
        runner_report_unreachable(st, why);
        free(why);
        return RUNNER_UNREACHABLE;
    }
    if (endpoint_check_rest(st->rt.rest_addr, RUNNER_REACH_TIMEOUT_MS, &status, &body, e2,
                            sizeof e2) == 0)
        res->runtime.health_json = body;
    printf("launch: %s\n        gRPC %s, REST %s, root %s (healthy after %.2f s)\n",
           st->rt.command_line, st->rt.grpc_addr, st->rt.rest_addr, st->rt.root,
           st->rt.healthy_after);
    if (st->log_fd >= 0)
        dprintf(st->log_fd, "launched: %s (pid %d)\n", st->rt.command_line, (int)st->rt.pid);
    if (target->confine_runtime)
        printf("confined: private mount namespace, host read-only except %s, /tmp and "
               "/dev/shm private\n",
               st->rt.dir);
    return RUNNER_GO_ON;
}

int runner_connect(struct run_state *st)
{
    return st->o->grpc ? attach_target(st) : launch_target(st);
}
