/* SPDX-License-Identifier: Apache-2.0 */
/* Running sbx-first-look and reading its report (see first_look.h). */
#include "common/first_look.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_api.h"
#include "common/proc_util.h"
#include "common/shipped_helper.h"
#include "process_client.h"
#include "sbx_grpc_status.h"

/* Beyond the call's own deadline, how long the client waits for the end
 * of a Start stream the runtime should have ended at that deadline. */
#define END_GRACE_MS 5000u

/* The number after "key=" in line, or -1 when absent or malformed. */
static long field(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    if (!p) return -1;
    char *end = NULL;
    long v = strtol(p + strlen(key), &end, 10);
    return end == p + strlen(key) ? -1 : v;
}

static int parse(const uint8_t *out, size_t len, const char *env_name, struct first_look *fl)
{
    char *text = calloc(1, len + 1);
    if (!text) return -1;
    if (len) memcpy(text, out, len);
    const char *line = strstr(text, "first-look size=");
    int rc = -1;
    if (line) {
        const char *size = line + strlen("first-look size=");
        fl->tty = strncmp(size, "none", 4) != 0;
        fl->rows = fl->cols = -1;
        if (fl->tty && sscanf(size, "%ld,%ld", &fl->rows, &fl->cols) != 2) fl->tty = false;
        fl->pid = field(line, " pid=");
        fl->pgid = field(line, " pgid=");
        fl->sid = field(line, " sid=");
        const char *cwd = strstr(line, " cwd=");
        if (cwd) {
            cwd += 5;
            size_t n = strcspn(cwd, "\r\n");
            snprintf(fl->cwd, sizeof fl->cwd, "%.*s", (int)n, cwd);
        }
        rc = fl->pid > 0 ? 0 : -1;
    }
    if (rc == 0 && env_name) {
        char want[160];
        snprintf(want, sizeof want, "\nenv %.140s=", env_name);
        const char *e = strstr(text, want);
        if (e) {
            e += strlen(want);
            size_t n = strcspn(e, "\r\n");
            fl->env_set = true;
            snprintf(fl->env_value, sizeof fl->env_value, "%.*s", (int)n, e);
        }
    }
    free(text);
    return rc;
}

int first_look(struct case_ctx *ctx, const struct first_look_run *run, struct first_look *fl,
               char *why, size_t whylen)
{
    memset(fl, 0, sizeof *fl);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s%s", run->helper[0] == '/' || run->helper[0] == '.' ? "" : "./",
             run->helper);
    const char *argv[] = {cmd, run->env_name, NULL};
    unsigned wait_ms = run->wait_ms ? run->wait_ms : FIRST_LOOK_WAIT_MS;
    struct rpc_spec spec = {.argv = argv,
                            .env = run->env,
                            .cwd = run->cwd ? run->cwd : case_dir(ctx),
                            .timeout_ms = wait_ms};
    struct rpc_result r = {0};
    int rc = -1;
    bool late = false;
    for (unsigned attempt = 0;; attempt++) {
        rc = -1;
        uint64_t t0 = case_now_ms();
        if (run->via == FIRST_LOOK_EXECUTE) {
            rc = rpc_execute(ctx, &spec, &r);
        } else {
            struct rpc_stream *s =
                rpc_start(ctx, &spec, run->via == FIRST_LOOK_START_PTY ? run->pty_cols_rows : NULL);
            if (s) {
                rc = rpc_collect(s, wait_ms + END_GRACE_MS, &r, NULL) == 0 ? r.code : -1;
                rpc_stream_free(s);
            }
        }
        /* Out of time: the deadline's status, or no end at all, once the
         * wait is spent (an early error is an answer, not slowness). */
        late = (rc == SBX_GRPC_DEADLINE_EXCEEDED || rc == -1) && case_now_ms() - t0 >= wait_ms;
        if (rc <= 0 || !shipped_helper_busy_retry(attempt, r.message)) break;
        rpc_result_free(&r);
        memset(&r, 0, sizeof r);
    }
    const char *rpc = run->via == FIRST_LOOK_EXECUTE ? "Execute" : "Start";
    if (rc != 0) {
        snprintf(why, whylen, "%s of %s ended with status %d %.120s", rpc, cmd, rc,
                 r.message ? r.message : "");
        if (late) {
            size_t n = strlen(why);
            snprintf(why + n, whylen > n ? whylen - n : 0, " after its %u ms wait", wait_ms);
            rc = FIRST_LOOK_LATE;
        }
    } else if (parse(r.out, r.out_len, run->env_name, fl) != 0) {
        char *p = pu_preview(r.out, r.out_len, 160);
        snprintf(why, whylen, "%s of %s printed no first-look line (exit %d, stdout %s)", rpc, cmd,
                 (int)r.exit_code, p ? p : "?");
        free(p);
        rc = -1;
    }
    rpc_result_free(&r);
    return rc == 0 || rc == FIRST_LOOK_LATE ? rc : -1;
}

int first_look_upload(struct case_ctx *ctx, char *helper, size_t len)
{
    char why[300] = "";
    if (shipped_helper_upload(ctx, "sbx-first-look", helper, len, why, sizeof why) == 0) return 0;
    case_skip(ctx, "cannot place the suite's static probe in the runtime: %s", why);
    return -1;
}
