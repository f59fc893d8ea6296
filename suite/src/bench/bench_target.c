/* SPDX-License-Identifier: Apache-2.0 */
/* Attach to or launch the runtime under measurement. */
#include "bench_text.h"
#include "bench_target.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_grpc.h"
#include "bundled_runtime.h"
#include "fs_util.h"
#include "health_gate.h"
#include "rest_client.h"

/* The sandboxd-ref built with this suite, as --launch-bundled finds it. */
static int find_bundled(char *out, size_t len)
{
    char *found = bundled_runtime_find();
    if (!found) return -1;
    bench_fmt(out, len, "%s", found);
    free(found);
    return 0;
}

/* A runtime, not a router or a gateway answering for it (health_gate.h). */
static int health(const char *rest, unsigned ready_wait_ms, char *err, size_t err_len)
{
    char *body = NULL;
    long status = 0;
    int rc = health_gate_check(rest, 5000, ready_wait_ms, &status, &body, err, err_len);
    free(body);
    return rc;
}

static int launch(struct bench_target_rt *t, const struct bench_opts *o, char *err, size_t err_len)
{
    const char *tmpl = o->launch_cmd;
    if (!tmpl) {
        char path[PATH_MAX];
        if (o->bundled) {
            if (access(o->bundled, X_OK) != 0 || !realpath(o->bundled, path)) {
                bench_fmt(err, err_len, "--launch-bundled %s: %s", o->bundled, strerror(errno));
                return 2;
            }
        } else if (find_bundled(path, sizeof path) != 0) {
            bench_fmt(err, err_len,
                      "no target given and no bundled sandboxd-ref found (next to this "
                      "binary's build tree or on PATH); use --grpc/--rest, --launch or "
                      "--launch-bundled");
            return 2;
        }
        /* Quoted so a path with spaces stays one word. */
        bench_fmt(t->template_buf, sizeof t->template_buf,
                  "'%s' --listen-host {host} --grpc-port {grpc_port} --rest-port {rest_port} "
                  "--root-dir {root}",
                  path);
        tmpl = t->template_buf;
    }
    t->work_dir = fs_make_temp_dir(o->tmpdir, "sbx-bench-");
    if (!t->work_dir) {
        bench_fmt(err, err_len, "cannot create a temporary directory: %s", strerror(errno));
        return 4;
    }
    struct launch_opts lo = {.command_template = tmpl,
                             .work_dir = t->work_dir,
                             .extra_env = o->launch_env,
                             .own_process_group = true,
                             .health_timeout_ms = o->health_timeout_ms};
    if (launcher_start(&lo, &t->rt, err, err_len) != 0) return 4;
    t->launched = true;
    t->mode = "launch";
    t->grpc = t->rt.grpc_addr;
    t->rest = t->rt.rest_addr;
    t->pid = (int)t->rt.pid;
    t->command = t->rt.command_line;
    t->floor_dir = strdup(t->rt.dir);
    return 0;
}

int bench_target_open(struct bench_target_rt *t, const struct bench_opts *o, char *err,
                      size_t err_len)
{
    memset(t, 0, sizeof *t);
    if (o->grpc_addr) {
        t->mode = "attach";
        t->grpc = o->grpc_addr;
        t->rest = o->rest_addr;
        t->pid = o->pid;
        const char *tmp = o->tmpdir ? o->tmpdir : getenv("TMPDIR");
        t->floor_dir = strdup(tmp && *tmp ? tmp : "/tmp");
    } else {
        int rc = launch(t, o, err, err_len);
        if (rc != 0) return rc;
        if (o->tmpdir) {
            free(t->floor_dir);
            t->floor_dir = strdup(o->tmpdir);
        }
    }
    if (!t->floor_dir) {
        bench_fmt(err, err_len, "out of memory");
        return 4;
    }
    if (health(t->rest, o->health_timeout_ms, err, err_len) != 0) return 3;
    char why[256];
    if (bench_grpc_probe(t->grpc, why, sizeof why) != 0) {
        bench_fmt(err, err_len, "Execute `true` on %s: %s", t->grpc, why);
        return 3;
    }
    return 0;
}

void bench_target_close(struct bench_target_rt *t)
{
    if (t->launched) {
        launcher_stop(&t->rt, 15000);
        launcher_release(&t->rt);
    }
    if (t->work_dir) fs_remove_tree(t->work_dir);
    free(t->work_dir);
    free(t->floor_dir);
    memset(t, 0, sizeof *t);
}
