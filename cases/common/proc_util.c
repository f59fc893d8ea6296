/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the process, PTY and gRPC cases (see proc_util.h). */
#include "common/proc_util.h"
#include "sbx_grpc_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *pu_octal_format(const uint8_t *b, size_t n)
{
    char *s = malloc(n * 4 + 1);
    if (!s) return NULL;
    for (size_t i = 0; i < n; i++)
        sprintf(s + i * 4, "\\%03o", b[i]);
    s[n * 4] = '\0';
    return s;
}

char *pu_preview(const void *data, size_t len, size_t max)
{
    const unsigned char *p = data;
    if (!p) len = 0; /* a stream that printed nothing yet has no buffer */
    size_t shown = len < max ? len : max;
    char *out = malloc(shown * 4 + 64);
    if (!out) return NULL;
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < shown; i++) {
        unsigned char ch = p[i];
        if (ch == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else if (ch == '\r') {
            out[o++] = '\\';
            out[o++] = 'r';
        } else if (ch == '"' || ch == '\\') {
            out[o++] = '\\';
            out[o++] = (char)ch;
        } else if (ch < 0x20 || ch >= 0x7f) {
            o += (size_t)sprintf(out + o, "\\x%02x", ch);
        } else {
            out[o++] = (char)ch;
        }
    }
    out[o++] = '"';
    if (shown < len) o += (size_t)sprintf(out + o, "...(%zu bytes in all)", len);
    out[o] = '\0';
    return out;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

bool pu_sh_ok(struct case_ctx *ctx, const char *script, const char *purpose, struct rpc_result *r)
{
    struct rpc_result local = {0};
    struct rpc_result *res = r ? r : &local;
    rpc_sh(ctx, script, res);
    bool ok = res->code == SBX_GRPC_OK && res->exit_code == 0;
    if (!ok) {
        char *e = pu_preview(res->err, res->err_len, 300);
        if (res->code != SBX_GRPC_OK)
            case_fail(ctx, purpose, "Execute failed with status %d (%s)", res->code,
                      res->message ? res->message : "no message");
        else
            case_fail(ctx, purpose, "exit code %d, stderr %s", (int)res->exit_code, e ? e : "?");
        free(e);
    }
    if (!r) rpc_result_free(&local);
    return ok;
}

char *pu_case_abs(struct case_ctx *ctx, const char *rel)
{
    const char *root = case_root_path(ctx);
    if (!root) {
        case_error(ctx, "the sandbox root's absolute path is unknown");
        return NULL;
    }
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    size_t n = rl + strlen(case_dir(ctx)) + strlen(rel) + 4;
    char *p = malloc(n);
    if (!p) {
        case_error(ctx, "out of memory");
        return NULL;
    }
    if (rl == 1 && root[0] == '/') rl = 0;
    snprintf(p, n, "%.*s/%s%s%s", (int)rl, root, case_dir(ctx), rel[0] ? "/" : "", rel);
    return p;
}

int pu_exists(struct case_ctx *ctx, const char *rel)
{
    char script[1024];
    snprintf(script, sizeof script,
             "if test -e '%s' || test -L '%s'; then echo yes; else echo no; fi", rel, rel);
    struct rpc_result r;
    if (!pu_sh_ok(ctx, script, "an existence check (Execute test -e) to succeed", &r)) {
        rpc_result_free(&r);
        return -1;
    }
    int v = r.out_len >= 3 && memcmp(r.out, "yes", 3) == 0;
    rpc_result_free(&r);
    return v;
}

/* Prints "nofile", or one word per pid: alive, gone (zombies are gone) or
 * unknown (kill -0 finds it, or is not permitted to look, but its state
 * in /proc cannot be read). */
static const char PID_STATE_SCRIPT[] =
    "f='%s'; [ -s \"$f\" ] || { echo nofile; exit 0; }; "
    "for p in $(cat \"$f\"); do "
    "s=''; [ -r /proc/self/stat ] && s=$(cat /proc/$p/stat 2>/dev/null); "
    "if [ -n \"$s\" ]; then s=${s##*') '}; "
    "case \"$s\" in Z*|X*) echo gone;; *) echo alive;; esac; "
    "elif e=$(kill -0 \"$p\" 2>&1); then echo unknown; "
    "else case \"$e\" in *ermi*) echo unknown;; *) echo gone;; esac; fi; done";

int pu_pidfile_state(struct case_ctx *ctx, const char *pidfile)
{
    char script[1024];
    snprintf(script, sizeof script, PID_STATE_SCRIPT, pidfile);
    struct rpc_result r;
    if (!pu_sh_ok(ctx, script, "a liveness check through a pidfile (Execute) to succeed", &r)) {
        rpc_result_free(&r);
        return PU_PIDS_ERROR;
    }
    int st = PU_PIDS_GONE;
    if (r.out && strstr((char *)r.out, "nofile"))
        st = PU_PIDS_NOFILE;
    else if (r.out && strstr((char *)r.out, "alive"))
        st = PU_PIDS_ALIVE;
    else if (r.out && strstr((char *)r.out, "unknown"))
        st = PU_PIDS_UNKNOWN;
    rpc_result_free(&r);
    return st;
}

bool pu_wait_pidfile(struct case_ctx *ctx, const char *pidfile, unsigned timeout_ms)
{
    uint64_t end = case_now_ms() + timeout_ms;
    for (int i = 0; i < 200; i++) {
        int st = pu_pidfile_state(ctx, pidfile);
        if (st == PU_PIDS_ERROR) return false;
        if (st != PU_PIDS_NOFILE) return true;
        if (case_now_ms() >= end) return false;
        sleep_ms(100);
    }
    return false;
}

int pu_wait_pids_gone(struct case_ctx *ctx, const char *pidfile, unsigned timeout_ms)
{
    uint64_t end = case_now_ms() + timeout_ms;
    int st = PU_PIDS_ALIVE;
    for (int i = 0; i < 200; i++) {
        st = pu_pidfile_state(ctx, pidfile);
        if (st == PU_PIDS_ERROR || st == PU_PIDS_GONE) return st;
        if (case_now_ms() >= end) break;
        sleep_ms(150);
    }
    return st == PU_PIDS_NOFILE ? PU_PIDS_ALIVE : st;
}

bool pu_expect_pids_gone(struct case_ctx *ctx, const char *pidfile, int state, const char *expected,
                         const char *what_alive)
{
    if (state == PU_PIDS_GONE) return true;
    if (state == PU_PIDS_ALIVE) case_fail(ctx, expected, "%s", what_alive);
    if (state != PU_PIDS_ERROR) pu_kill_pidfile(ctx, pidfile);
    if (state == PU_PIDS_UNKNOWN && !case_failed(ctx))
        case_skip(ctx, "cannot tell whether the processes are gone: they still answer kill -0 "
                       "but /proc does not show their state (a zombie looks alive)");
    return false;
}

void pu_kill_pidfile(struct case_ctx *ctx, const char *pidfile)
{
    char script[512];
    snprintf(script, sizeof script,
             "[ -s '%s' ] && for p in $(cat '%s'); do kill -9 \"$p\" 2>/dev/null; done; true",
             pidfile, pidfile);
    struct rpc_result r;
    rpc_sh(ctx, script, &r);
    rpc_result_free(&r);
}

/* ---- Start streams ------------------------------------------------------ */

static void grammar_fail(struct pu_stream *ps, const char *expected, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void grammar_fail(struct pu_stream *ps, const char *expected, const char *fmt, ...)
{
    if (ps->broken) return;
    ps->broken = true;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    case_fail(ps->ctx, expected, "%s%s%s", ps->label ? ps->label : "", ps->label ? ": " : "", buf);
}

static void keep(uint8_t **buf, size_t *len, const uint8_t *data, size_t n)
{
    uint8_t *p = realloc(*buf, *len + n + 1);
    if (!p) return;
    if (n) memcpy(p + *len, data, n);
    *len += n;
    p[*len] = 0;
    *buf = p;
}

int pu_pump(struct pu_stream *ps, unsigned wait_ms)
{
    struct rpc_event ev;
    if (ps->ended) return PEV_END;
    rpc_next(ps->s, wait_ms, &ev);
    switch (ev.kind) {
    case PEV_INIT:
        if (ps->have_init)
            grammar_fail(ps, "P7: exactly one InitEvent", "a second InitEvent (process_id %d)",
                         (int)ev.process_id);
        else if (ps->out_events || ps->err_events || ps->have_exit)
            grammar_fail(ps, "P7: the InitEvent as the first message",
                         "InitEvent after other events");
        ps->have_init = true;
        ps->pid = ev.process_id;
        break;
    case PEV_STDOUT:
    case PEV_STDERR: {
        bool is_err = ev.kind == PEV_STDERR;
        if (!ps->have_init)
            grammar_fail(ps, "P7: the InitEvent as the first message", "%s before any InitEvent",
                         is_err ? "stderr" : "stdout");
        if (ps->have_exit)
            grammar_fail(ps, "P7: the ExitEvent as the last message",
                         "%s event (%zu bytes) after the ExitEvent", is_err ? "stderr" : "stdout",
                         ev.len);
        if (is_err)
            ps->err_events++;
        else
            ps->out_events++;
        if (ps->sink)
            ps->sink(ps, is_err, ev.data, ev.len, ps->sink_ud);
        else if (is_err)
            keep(&ps->err, &ps->err_len, ev.data, ev.len);
        else
            keep(&ps->out, &ps->out_len, ev.data, ev.len);
        break;
    }
    case PEV_EXIT:
        if (!ps->have_init)
            grammar_fail(ps, "P7: the InitEvent as the first message",
                         "ExitEvent without InitEvent");
        if (ps->have_exit)
            grammar_fail(ps, "P7: exactly one ExitEvent", "a second ExitEvent (exit_code %d)",
                         (int)ev.exit_code);
        else
            ps->exit_code = ev.exit_code;
        ps->have_exit = true;
        break;
    case PEV_OTHER:
        grammar_fail(ps, "P7: only init/stdout/stderr/exit events",
                     "a StartResponse with no event set");
        break;
    case PEV_END:
        ps->ended = true;
        ps->end_code = ev.code;
        snprintf(ps->end_msg, sizeof ps->end_msg, "%s", ev.message ? ev.message : "");
        break;
    case PEV_ERROR:
        ps->ended = true;
        ps->end_code = -1;
        snprintf(ps->end_msg, sizeof ps->end_msg, "%s", ev.message ? ev.message : "stream failed");
        break;
    case PEV_TIMEOUT:
        break;
    }
    return ev.kind;
}

bool pu_begin(struct case_ctx *ctx, struct pu_stream *ps, const struct rpc_spec *spec,
              const uint32_t *pty_cols_rows)
{
    const char *label = ps->label;
    pu_sink sink = ps->sink;
    void *ud = ps->sink_ud;
    struct sbx_grpc_conn *conn = ps->conn;
    memset(ps, 0, sizeof *ps);
    ps->ctx = ctx;
    ps->label = label;
    ps->sink = sink;
    ps->sink_ud = ud;
    ps->conn = conn;
    ps->s = rpc_start_on(ctx, conn, spec, pty_cols_rows);
    if (!ps->s) {
        case_error(ctx, "out of memory starting a stream");
        return false;
    }
    return true;
}

bool pu_wait_init(struct pu_stream *ps, unsigned init_ms)
{
    struct case_ctx *ctx = ps->ctx;
    const char *label = ps->label;
    uint64_t end = case_now_ms() + init_ms;
    while (!ps->have_init && !ps->ended && !ps->broken) {
        uint64_t now = case_now_ms();
        if (now >= end) break;
        pu_pump(ps, (unsigned)(end - now));
    }
    if (ps->have_init) return !ps->broken;
    if (ps->broken) return false;
    if (ps->ended)
        case_fail(ctx, "a started stream whose first message is the InitEvent",
                  "%s%sthe call ended with status %d (%s) and no InitEvent", label ? label : "",
                  label ? ": " : "", ps->end_code, ps->end_msg);
    else
        case_fail(ctx, "the InitEvent as the first message", "%s%snothing within %u ms",
                  label ? label : "", label ? ": " : "", init_ms);
    return false;
}

bool pu_start(struct case_ctx *ctx, struct pu_stream *ps, const struct rpc_spec *spec,
              const uint32_t *pty_cols_rows, unsigned init_ms)
{
    return pu_begin(ctx, ps, spec, pty_cols_rows) && pu_wait_init(ps, init_ms);
}

bool pu_wait_output(struct pu_stream *ps, bool is_stderr, const char *needle, unsigned timeout_ms,
                    const char *what)
{
    uint64_t end = case_now_ms() + timeout_ms;
    for (;;) {
        const uint8_t *buf = is_stderr ? ps->err : ps->out;
        size_t len = is_stderr ? ps->err_len : ps->out_len;
        if (buf && memmem(buf, len, needle, strlen(needle))) return true;
        uint64_t now = case_now_ms();
        if (ps->ended || now >= end) {
            char *p = pu_preview(buf, len, 300);
            case_fail(ps->ctx, what, "%s%s%s so far %s%s", ps->label ? ps->label : "",
                      ps->label ? ": " : "", is_stderr ? "stderr" : "stdout", p ? p : "?",
                      ps->ended ? " and the stream ended" : " when the wait ran out");
            free(p);
            return false;
        }
        pu_pump(ps, (unsigned)(end - now));
    }
}

bool pu_finish(struct pu_stream *ps, unsigned timeout_ms)
{
    uint64_t end = case_now_ms() + timeout_ms;
    while (!ps->ended) {
        uint64_t now = case_now_ms();
        if (now >= end) {
            case_fail(ps->ctx, "the stream to end", "%s%sstill open after %u ms%s",
                      ps->label ? ps->label : "", ps->label ? ": " : "", timeout_ms,
                      ps->have_exit ? " (an ExitEvent came)" : " (no ExitEvent)");
            return false;
        }
        pu_pump(ps, (unsigned)(end - now));
    }
    if (ps->end_code != 0) {
        grammar_fail(ps, "P7: the stream ends with status OK after the ExitEvent",
                     "ended with status %d (%s)%s", ps->end_code, ps->end_msg,
                     ps->have_exit ? "" : " and no ExitEvent");
        return false;
    }
    if (!ps->have_exit) {
        grammar_fail(ps, "P7: exactly one ExitEvent as the last message",
                     "status OK without an ExitEvent");
        return false;
    }
    return !ps->broken;
}

void pu_free(struct pu_stream *ps)
{
    if (!ps->s) return;
    if (ps->have_init && !ps->have_exit && !ps->ended &&
        rpc_signal(ps->ctx, ps->pid, PU_SIGKILL) == 0) {
        /* Read on to the ExitEvent, which releases the id from the runner's
         * clean-up list: a runtime may hand the id to another case's process
         * as soon as this stream ended. */
        uint64_t end = case_now_ms() + 3000;
        struct rpc_event ev;
        for (int i = 0; i < 100000; i++) {
            uint64_t now = case_now_ms();
            if (now >= end) break;
            int k = rpc_next(ps->s, (unsigned)(end - now), &ev);
            if (k == PEV_EXIT || k == PEV_END || k == PEV_ERROR) break;
        }
    }
    rpc_stream_free(ps->s);
    ps->s = NULL;
    free(ps->out);
    free(ps->err);
    ps->out = ps->err = NULL;
}
