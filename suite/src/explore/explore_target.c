/* SPDX-License-Identifier: Apache-2.0 */
/* Opening explore's runtimes, as a run or the bench opens theirs. */
#include "explore_target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundled_runtime.h"
#include "endpoint.h"
#include "fs_util.h"
#include "text_util.h"

#define REACH_TIMEOUT_MS 5000

static int check(struct xtarget *t, char *err, size_t err_len)
{
    char e[600] = "";
    if (endpoint_check_grpc(t->grpc, REACH_TIMEOUT_MS, e, sizeof e) != 0) {
        snprintf(err, err_len, "gRPC endpoint %s: %s", t->grpc, e);
        return 3;
    }
    long status = 0;
    char *body = NULL;
    int rc = endpoint_check_rest(t->rest, REACH_TIMEOUT_MS, &status, &body, e, sizeof e);
    free(body);
    if (rc != 0) {
        snprintf(err, err_len, "REST endpoint %s: %s", t->rest, e);
        return 3;
    }
    return 0;
}

int xtarget_open(struct xtarget *t, const struct xtarget_spec *s, char *err, size_t err_len)
{
    memset(t, 0, sizeof *t);
    if (s->grpc || s->rest) {
        if (!s->grpc || !s->rest) {
            snprintf(err, err_len, "attach mode needs both a gRPC and a REST address");
            return 2;
        }
        snprintf(t->grpc, sizeof t->grpc, "%s", s->grpc);
        snprintf(t->rest, sizeof t->rest, "%s", s->rest);
        snprintf(t->description, sizeof t->description, "attach gRPC %s, REST %s", s->grpc,
                 s->rest);
        return check(t, err, err_len);
    }
    if (s->launch) {
        t->template_text = strdup(s->launch);
    } else {
        char *bin = s->bundled ? realpath(s->bundled, NULL) : bundled_runtime_find();
        if (!bin || access(bin, X_OK) != 0) {
            snprintf(err, err_len, "%s%s",
                     s->bundled ? "cannot run "
                                : "no target given and no bundled sandboxd-ref "
                                  "found; use --grpc/--rest, --launch or "
                                  "--launch-bundled",
                     s->bundled ? s->bundled : "");
            free(bin);
            return 2;
        }
        t->template_text = text_fmt("'%s' --listen-host 127.0.0.1 --grpc-port {grpc_port} "
                                    "--rest-port {rest_port} --root-dir {root}",
                                    bin);
        free(bin);
    }
    t->work_dir = fs_make_temp_dir(NULL, "sbx-explore-");
    if (!t->template_text || !t->work_dir) {
        snprintf(err, err_len, "cannot create a temporary directory: %s", strerror(errno));
        return 4;
    }
    struct launch_opts lo = {.command_template = t->template_text,
                             .work_dir = t->work_dir,
                             .extra_env = s->launch_env,
                             .own_process_group = true,
                             .confine = s->confine,
                             .health_timeout_ms = s->health_timeout_ms};
    if (launcher_start(&lo, &t->rt, err, err_len) != 0) {
        launcher_release(&t->rt);
        return 3;
    }
    t->launched = true;
    snprintf(t->grpc, sizeof t->grpc, "%s", t->rt.grpc_addr);
    snprintf(t->rest, sizeof t->rest, "%s", t->rt.rest_addr);
    snprintf(t->description, sizeof t->description, "launch %s", t->rt.command_line);
    return check(t, err, err_len);
}

void xtarget_close(struct xtarget *t)
{
    if (t->launched) {
        launcher_stop(&t->rt, 15000);
        launcher_release(&t->rt);
    }
    if (t->work_dir) fs_remove_tree(t->work_dir);
    free(t->work_dir);
    free(t->template_text);
    memset(t, 0, sizeof *t);
}
