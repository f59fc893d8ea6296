/* SPDX-License-Identifier: Apache-2.0 */
/* Lifecycle helpers (see lc_util.h). */
#include "lifecycle/lc_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "rest_client.h"

long lc_health(const char *addr, char *code, size_t code_len)
{
    struct http_request req = {.method = "GET", .target = "/v1/health", .timeout_ms = 2000};
    struct http_response r;
    if (code && code_len) code[0] = '\0';
    if (rest_do_at(addr, &req, &r) != 0) {
        http_response_free(&r);
        return 0;
    }
    long s = r.status;
    if (code && code_len && r.body) {
        json_t *v = json_loadb(r.body, r.body_len, 0, NULL);
        const char *c = json_string_value(json_object_get(v, "code"));
        snprintf(code, code_len, "%s", c ? c : "");
        json_decref(v);
    }
    http_response_free(&r);
    return s;
}

bool lc_start_ready(struct case_ctx *ctx, struct pu_stream *ps, const char *script,
                    const char *label)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    struct rpc_spec spec = {.argv = argv};
    if (!pu_start(ctx, ps, &spec, NULL, 10000)) return false;
    ps->label = label;
    return pu_wait_output(ps, false, "ready", 10000, label);
}

void lc_pump(struct pu_stream *a, struct pu_stream *b, unsigned wait_ms)
{
    uint64_t end = case_now_ms() + wait_ms;
    do {
        if (a && !a->ended) pu_pump(a, 20);
        if (b && !b->ended) pu_pump(b, 20);
        if ((!a || a->ended) && (!b || b->ended)) break;
    } while (case_now_ms() < end);
}

bool lc_pid_gone(pid_t pid)
{
    if (kill(pid, 0) != 0) return errno == ESRCH;
    char path[64], stat[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return true;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *close = strrchr(stat, ')');
    return close && close[1] == ' ' && close[2] == 'Z';
}
