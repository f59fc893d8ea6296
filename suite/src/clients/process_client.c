/* SPDX-License-Identifier: Apache-2.0 */
/* ProcessService calls for cases on the sbx_grpc client and the generated
 * process.v1 code. One connection per case, opened lazily in the case's own
 * worker process and closed by the runner's per-case state cleanup. */
#include "process_client.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_api.h"
#include "case_context.h"
#include "output_limit.h"
#include "process.pb-c.h"
#include "grpc_dial.h"
#include "sbx_grpc_client.h"
#include "string_buf.h"
#include "text_util.h"

/* The per-case client-state key; the lifecycle cases set this slot aside
 * while they talk to a private instance (cases/lifecycle/lc_util.c). */
#define STATE_KEY "process_client.conn"
/* Connections a case may open when the runtime breaks them (e.g. after a
 * malformed request); older ones stay open so their calls remain valid. */
#define MAX_CONNS 8
/* Execute responses carry whole outputs; bounded well above the suite's
 * largest Execute output (several MiB). */
#define MAX_RECV_MESSAGE (80u * 1024u * 1024u)
#define CONTROL_WAIT_MS 15000u
#define EXECUTE_WAIT_MS 60000u
#define START_WAIT_MS 120000u
/* A call the server refused unprocessed (REFUSED_STREAM, or cut off by a
 * GOAWAY before the server took it) is sent again on a fresh connection, as
 * gRPC clients do, at most this many times. */
#define MAX_RESENDS 3

struct conn_state {
    struct sbx_grpc_conn *conns[MAX_CONNS];
    size_t n;
    char why[300];
};

static void conn_state_destroy(void *p)
{
    struct conn_state *st = p;
    for (size_t i = 0; i < st->n; i++)
        sbx_grpc_conn_close(st->conns[i]);
    free(st);
}

bool rpc_grpc_usable(struct case_ctx *ctx)
{
    const char *broken = case_grpc_unusable(ctx);
    if (!broken) return true;
    case_skip(ctx, "needs the gRPC ProcessService, which the gRPC endpoint cannot carry: %s",
              broken);
    return false;
}

struct sbx_grpc_conn *rpc_conn(struct case_ctx *ctx, const char **why)
{
    if (!rpc_grpc_usable(ctx)) {
        if (why) *why = "the gRPC endpoint cannot carry gRPC (it answers HTTP/1.x)";
        return NULL;
    }
    struct conn_state *st = case_client_state(ctx, STATE_KEY);
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st || case_set_client_state(ctx, STATE_KEY, st, conn_state_destroy) != 0) {
            free(st);
            if (why) *why = "cannot store the connection state";
            return NULL;
        }
    }
    if (st->n > 0 && sbx_grpc_conn_usable(st->conns[st->n - 1])) return st->conns[st->n - 1];
    if (st->n == MAX_CONNS) {
        if (why) *why = "the gRPC connection broke too many times";
        return NULL;
    }
    const char *addr = case_grpc_addr(ctx);
    if (!addr) {
        if (why) *why = "no gRPC address";
        return NULL;
    }
    struct sbx_grpc_conn_opts o = {.max_recv_message = MAX_RECV_MESSAGE};
    char err[256] = "";
    struct sbx_grpc_conn *c = grpc_dial(addr, &o, err, sizeof err);
    if (!c) {
        snprintf(st->why, sizeof st->why, "cannot connect to %s: %s", addr, err);
        case_report_unreachable(ctx, st->why);
        if (why) *why = st->why;
        return NULL;
    }
    st->conns[st->n++] = c;
    return c;
}

/* ---- request encoding ----------------------------------------------------- */

struct packed_config {
    Process__V1__ProcessConfig cfg;
    Process__V1__ProcessConfig__EnvVarsEntry *entries;
    Process__V1__ProcessConfig__EnvVarsEntry **entry_ptrs;
    char **env_copies; /* "NAME\0value" splits */
};

static void config_free(struct packed_config *pc)
{
    for (size_t i = 0; i < pc->cfg.n_env_vars; i++)
        free(pc->env_copies[i]);
    free(pc->env_copies);
    free(pc->entries);
    free(pc->entry_ptrs);
    free(pc->cfg.command);
}

static int config_build(const struct rpc_spec *spec, struct packed_config *pc)
{
    memset(pc, 0, sizeof *pc);
    Process__V1__ProcessConfig init = PROCESS__V1__PROCESS_CONFIG__INIT;
    pc->cfg = init;
    size_t n = 0;
    while (spec->argv[n])
        n++;
    pc->cfg.n_command = n;
    pc->cfg.command = calloc(n + 1, sizeof(char *));
    if (!pc->cfg.command) return -1;
    for (size_t i = 0; i < n; i++)
        pc->cfg.command[i] = (char *)spec->argv[i];
    size_t ne = 0;
    while (spec->env && spec->env[ne])
        ne++;
    if (ne > 0) {
        pc->entries = calloc(ne, sizeof *pc->entries);
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, not of structs
        pc->entry_ptrs = calloc(ne, sizeof *pc->entry_ptrs);
        pc->env_copies = calloc(ne, sizeof *pc->env_copies);
        if (!pc->entries || !pc->entry_ptrs || !pc->env_copies) return -1;
        for (size_t i = 0; i < ne; i++) {
            Process__V1__ProcessConfig__EnvVarsEntry e =
                PROCESS__V1__PROCESS_CONFIG__ENV_VARS_ENTRY__INIT;
            char *copy = strdup(spec->env[i]);
            if (!copy) return -1;
            pc->env_copies[i] = copy;
            pc->cfg.n_env_vars = i + 1;
            char *eq = strchr(copy, '=');
            if (eq) *eq = '\0';
            e.key = copy;
            e.value = eq ? eq + 1 : copy + strlen(copy);
            pc->entries[i] = e;
            pc->entry_ptrs[i] = &pc->entries[i];
        }
        pc->cfg.env_vars = pc->entry_ptrs;
    }
    if (spec->cwd) {
        pc->cfg._cwd_case = PROCESS__V1__PROCESS_CONFIG___CWD_CWD;
        pc->cfg.cwd = (char *)spec->cwd;
    }
    return 0;
}

static uint8_t *pack_message(const ProtobufCMessage *m, size_t *len)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return NULL;
    *len = protobuf_c_message_pack(m, buf);
    return buf;
}

uint8_t *rpc_pack_execute(const struct rpc_spec *spec, size_t *len)
{
    Process__V1__ExecuteRequest req = PROCESS__V1__EXECUTE_REQUEST__INIT;
    struct packed_config pc;
    uint8_t *out = NULL;
    if (spec->argv) {
        if (config_build(spec, &pc) != 0) {
            config_free(&pc);
            return NULL;
        }
        req.config = &pc.cfg;
    }
    out = pack_message(&req.base, len);
    if (spec->argv) config_free(&pc);
    return out;
}

uint8_t *rpc_pack_start(const struct rpc_spec *spec, const uint32_t *pty_cols_rows, size_t *len)
{
    Process__V1__StartRequest req = PROCESS__V1__START_REQUEST__INIT;
    Process__V1__PTY pty = PROCESS__V1__PTY__INIT;
    struct packed_config pc;
    uint8_t *out = NULL;
    if (spec->argv) {
        if (config_build(spec, &pc) != 0) {
            config_free(&pc);
            return NULL;
        }
        req.config = &pc.cfg;
    }
    if (pty_cols_rows) {
        pty.cols = pty_cols_rows[0];
        pty.rows = pty_cols_rows[1];
        req._pty_case = PROCESS__V1__START_REQUEST___PTY_PTY;
        req.pty = &pty;
    }
    out = pack_message(&req.base, len);
    if (spec->argv) config_free(&pc);
    return out;
}

/* ---- rendering for case_request() ----------------------------------------- */

/* Quoted, with control bytes escaped and long strings shortened. */
static void sb_quoted(struct sbuf *b, const char *s)
{
    sbuf_printf(b, "\"");
    size_t n = strlen(s);
    size_t shown = n > 200 ? 200 : n;
    for (size_t i = 0; i < shown; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            sbuf_printf(b, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            sbuf_printf(b, "\\x%02x", ch);
        else
            sbuf_printf(b, "%c", ch);
    }
    if (shown < n) sbuf_printf(b, "...(%zu bytes)", n);
    sbuf_printf(b, "\"");
}

char *rpc_render_spec(const char *rpc, const struct rpc_spec *spec)
{
    struct sbuf b = {0};
    sbuf_printf(&b, "%s {", rpc);
    if (!spec->argv) {
        sbuf_printf(&b, "no config");
    } else {
        sbuf_printf(&b, "command: [");
        for (size_t i = 0; spec->argv[i]; i++) {
            if (i) sbuf_printf(&b, ", ");
            sb_quoted(&b, spec->argv[i]);
        }
        sbuf_printf(&b, "]");
        if (spec->env) {
            sbuf_printf(&b, ", env_vars: {");
            for (size_t i = 0; spec->env[i]; i++) {
                if (i) sbuf_printf(&b, ", ");
                sb_quoted(&b, spec->env[i]);
            }
            sbuf_printf(&b, "}");
        }
        if (spec->cwd) {
            sbuf_printf(&b, ", cwd: ");
            sb_quoted(&b, spec->cwd);
        }
    }
    if (spec->timeout_ms) sbuf_printf(&b, ", grpc-timeout %u ms", spec->timeout_ms);
    sbuf_printf(&b, "}");
    return sbuf_take(&b);
}

static void record_request(struct case_ctx *ctx, const char *rpc, const struct rpc_spec *spec,
                           const uint32_t *pty)
{
    char *s = rpc_render_spec(rpc, spec);
    if (pty)
        case_request(ctx, "%s with pty {cols: %u, rows: %u}", s ? s : rpc, (unsigned)pty[0],
                     (unsigned)pty[1]);
    else
        case_request(ctx, "%s", s ? s : rpc);
    free(s);
}

/* ---- Execute ------------------------------------------------------------- */

void rpc_result_free(struct rpc_result *r)
{
    if (!r) return;
    free(r->message);
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n + 1); /* NUL-terminated for convenient text checks */
    if (!d) return NULL;
    if (n) memcpy(d, p, n);
    d[n] = 0;
    return d;
}

int rpc_unpack_execute(const uint8_t *msg, size_t len, struct rpc_result *r)
{
    Process__V1__ExecuteResponse *m = process__v1__execute_response__unpack(NULL, len, msg);
    if (!m) return -1;
    r->exit_code = m->exit_code;
    r->out = dup_bytes(m->stdout.data, m->stdout.len);
    r->out_len = m->stdout.len;
    r->err = dup_bytes(m->stderr.data, m->stderr.len);
    r->err_len = m->stderr.len;
    process__v1__execute_response__free_unpacked(m, NULL);
    return r->out && r->err ? 0 : -1;
}

static void set_message(struct rpc_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_message(struct rpc_result *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(r->message);
    r->message = strdup(buf);
}

/* A unary call on the shared connection; fills code/message and returns
 * the single response message (malloc'd) on OK. */
static int unary(struct case_ctx *ctx, const char *path, const uint8_t *req, size_t req_len,
                 unsigned timeout_ms, unsigned wait_ms, struct rpc_result *r, uint8_t **resp,
                 size_t *resp_len)
{
    const char *why = NULL;
    struct sbx_grpc_conn *c = rpc_conn(ctx, &why);
    if (resp) *resp = NULL;
    if (!c) {
        r->code = -1;
        set_message(r, "%s", why ? why : "no connection");
        return -1;
    }
    struct sbx_grpc_call_opts o = {.timeout_ms = timeout_ms, .wait_ms = wait_ms};
    struct sbx_grpc_result res = {0};
    int rc = sbx_grpc_unary(c, path, req, req_len, &o, &res);
    for (int i = 0; i < MAX_RESENDS && res.end != SBX_GRPC_END_STATUS && res.refused; i++) {
        c = rpc_conn(ctx, &why);
        if (!c) break;
        sbx_grpc_result_free(&res);
        rc = sbx_grpc_unary(c, path, req, req_len, &o, &res);
    }
    if (res.end == SBX_GRPC_END_STATUS) {
        r->code = res.code;
        if (res.message) r->message = strdup(res.message);
        if (res.code == SBX_GRPC_OK && res.n_messages == 0) {
            r->code = -1;
            set_message(r, "status OK without a response message");
        } else if (res.code == SBX_GRPC_OK && resp) {
            *resp = res.response;
            *resp_len = res.response_len;
            res.response = NULL;
        }
    } else {
        r->code = -1;
        set_message(r, "%s (no gRPC status: %s)", res.error[0] ? res.error : "call failed",
                    res.end == SBX_GRPC_END_TIMEOUT      ? "local wait bound passed"
                    : res.end == SBX_GRPC_END_RESET      ? "stream reset"
                    : res.end == SBX_GRPC_END_PROTOCOL   ? "protocol violation"
                    : res.end == SBX_GRPC_END_CONNECTION ? "connection failed"
                                                         : "ended");
    }
    (void)rc;
    sbx_grpc_result_free(&res);
    return r->code;
}

int rpc_execute(struct case_ctx *ctx, const struct rpc_spec *spec, struct rpc_result *r)
{
    memset(r, 0, sizeof *r);
    record_request(ctx, "Execute", spec, NULL);
    size_t len = 0;
    uint8_t *req = rpc_pack_execute(spec, &len);
    if (!req) {
        r->code = -1;
        set_message(r, "cannot encode the request");
        return -1;
    }
    unsigned wait = spec->wait_ms      ? spec->wait_ms
                    : spec->timeout_ms ? spec->timeout_ms + 5000u
                                       : EXECUTE_WAIT_MS;
    uint8_t *resp = NULL;
    size_t resp_len = 0;
    unary(ctx, PROC_PATH_EXECUTE, req, len, spec->timeout_ms, wait, r, &resp, &resp_len);
    free(req);
    if (r->code == SBX_GRPC_OK && rpc_unpack_execute(resp, resp_len, r) != 0) {
        r->code = -1;
        set_message(r, "undecodable ExecuteResponse (%zu bytes)", resp_len);
    }
    free(resp);
    return r->code;
}

int rpc_execute_ok(struct case_ctx *ctx, const char *const *argv, unsigned timeout_ms, char *why,
                   size_t why_len)
{
    struct rpc_spec spec = {.argv = argv, .timeout_ms = timeout_ms};
    struct rpc_result r = {0};
    int code = rpc_execute(ctx, &spec, &r);
    int rc = 0;
    if (code != 0) {
        snprintf(why, why_len, "Execute %s failed with gRPC status %d%s%s", argv[0], code,
                 r.message ? ": " : "", r.message ? r.message : "");
        rc = -1;
    } else if (r.exit_code != 0) {
        char *err = text_sanitize(r.err, r.err_len, 200, false);
        snprintf(why, why_len, "Execute %s exited with %d: %s", argv[0], (int)r.exit_code,
                 err ? err : "");
        free(err);
        rc = -1;
    }
    rpc_result_free(&r);
    return rc;
}

int rpc_sh(struct case_ctx *ctx, const char *script, struct rpc_result *r)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    struct rpc_spec spec = {.argv = argv, .cwd = case_dir(ctx)};
    return rpc_execute(ctx, &spec, r);
}

/* ---- Start streams --------------------------------------------------------- */

struct rpc_stream {
    struct case_ctx *ctx;
    struct sbx_grpc_call *call;
    /* For sending a refused Start again on the case's shared connection. */
    uint8_t *req;
    size_t req_len;
    struct sbx_grpc_call_opts opts;
    int resends;
    Process__V1__StartResponse *cur; /* last decoded event (owns ev->data) */
    char error[400];
    bool start_failed; /* also: the case's output limit was passed (error says so) */
    uint64_t output_bytes;
    bool have_pid;
    int32_t pid;
};

struct rpc_stream *rpc_start(struct case_ctx *ctx, const struct rpc_spec *spec,
                             const uint32_t *pty_cols_rows)
{
    return rpc_start_on(ctx, NULL, spec, pty_cols_rows);
}

struct rpc_stream *rpc_start_on(struct case_ctx *ctx, struct sbx_grpc_conn *conn,
                                const struct rpc_spec *spec, const uint32_t *pty_cols_rows)
{
    struct rpc_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->ctx = ctx;
    record_request(ctx, "Start", spec, pty_cols_rows);
    size_t len = 0;
    uint8_t *req = rpc_pack_start(spec, pty_cols_rows, &len);
    const char *why = NULL;
    struct sbx_grpc_conn *c = !req ? NULL : conn ? conn : rpc_conn(ctx, &why);
    if (!req || !c) {
        snprintf(s->error, sizeof s->error, "%s", !req ? "cannot encode the request" : why);
        s->start_failed = true;
        free(req);
        return s;
    }
    struct sbx_grpc_call_opts o = {.timeout_ms = spec->timeout_ms};
    o.wait_ms = spec->wait_ms      ? spec->wait_ms
                : spec->timeout_ms ? spec->timeout_ms + 5000u
                                   : START_WAIT_MS;
    char err[256] = "";
    s->call = sbx_grpc_call_start(c, PROC_PATH_START, req, len, &o, err, sizeof err);
    if (!conn && s->call) {
        s->req = req;
        s->req_len = len;
        s->opts = o;
    } else {
        free(req);
    }
    if (!s->call) {
        snprintf(s->error, sizeof s->error, "cannot start the call: %s", err);
        s->start_failed = true;
    }
    return s;
}

static const char *end_reason(const struct sbx_grpc_result *res)
{
    switch (res->end) {
    case SBX_GRPC_END_PROTOCOL:
        return "gRPC protocol violation";
    case SBX_GRPC_END_RESET:
        return "stream reset by the server";
    case SBX_GRPC_END_CONNECTION:
        return "connection failed";
    case SBX_GRPC_END_TIMEOUT:
        return "local wait bound passed";
    case SBX_GRPC_END_CANCELLED:
        return "cancelled locally";
    default:
        return "ended";
    }
}

/* Output beyond the case's limit: the stream is cancelled and stays failed,
 * so a runtime streaming forever cannot grow the worker without bound. */
static int over_limit(struct rpc_stream *s, struct rpc_event *ev)
{
    s->output_bytes += ev->len;
    if (output_limit_take(ev->len)) return ev->kind;
    sbx_grpc_call_cancel(s->call);
    s->start_failed = true;
    snprintf(s->error, sizeof s->error,
             "output exceeds %s for this case (%llu bytes on this Start stream): the stream was "
             "cancelled",
             output_limit_text(), (unsigned long long)s->output_bytes);
    memset(ev, 0, sizeof *ev);
    ev->kind = PEV_ERROR;
    ev->code = -1;
    ev->message = s->error;
    return ev->kind;
}

int rpc_next(struct rpc_stream *s, unsigned timeout_ms, struct rpc_event *ev)
{
    memset(ev, 0, sizeof *ev);
    if (s->cur) {
        process__v1__start_response__free_unpacked(s->cur, NULL);
        s->cur = NULL;
    }
    if (s->start_failed) {
        ev->kind = PEV_ERROR;
        ev->code = -1;
        ev->message = s->error;
        return ev->kind;
    }
    const uint8_t *msg = NULL;
    size_t len = 0;
    int wait = timeout_ms > 600000u ? 600000 : (int)timeout_ms;
    int n = sbx_grpc_call_next(s->call, wait, &msg, &len);
    const struct sbx_grpc_result *res = sbx_grpc_call_result(s->call);
    while (n == SBX_GRPC_NEXT_ERROR && res->refused && s->req && s->resends < MAX_RESENDS) {
        /* Not processed by the server: send it again on a fresh connection. */
        const char *why = NULL;
        struct sbx_grpc_conn *c = rpc_conn(s->ctx, &why);
        char err[256] = "";
        struct sbx_grpc_call *again = c ? sbx_grpc_call_start(c, PROC_PATH_START, s->req,
                                                              s->req_len, &s->opts, err, sizeof err)
                                        : NULL;
        s->resends++;
        if (!again) break;
        sbx_grpc_call_free(s->call);
        s->call = again;
        n = sbx_grpc_call_next(s->call, wait, &msg, &len);
        res = sbx_grpc_call_result(s->call);
    }
    switch (n) {
    case SBX_GRPC_NEXT_MESSAGE:
        s->cur = process__v1__start_response__unpack(NULL, len, msg);
        if (!s->cur) {
            ev->kind = PEV_ERROR;
            ev->code = -1;
            snprintf(s->error, sizeof s->error, "undecodable StartResponse (%zu bytes)", len);
            ev->message = s->error;
            return ev->kind;
        }
        switch (s->cur->event_case) {
        case PROCESS__V1__START_RESPONSE__EVENT_INIT:
            ev->kind = PEV_INIT;
            ev->process_id = s->cur->init ? s->cur->init->process_id : 0;
            case_track_process(s->ctx, ev->process_id);
            s->have_pid = true;
            s->pid = ev->process_id;
            break;
        case PROCESS__V1__START_RESPONSE__EVENT_STDOUT:
            ev->kind = PEV_STDOUT;
            ev->data = s->cur->stdout.data;
            ev->len = s->cur->stdout.len;
            return over_limit(s, ev);
        case PROCESS__V1__START_RESPONSE__EVENT_STDERR:
            ev->kind = PEV_STDERR;
            ev->data = s->cur->stderr.data;
            ev->len = s->cur->stderr.len;
            return over_limit(s, ev);
        case PROCESS__V1__START_RESPONSE__EVENT_EXIT:
            ev->kind = PEV_EXIT;
            ev->exit_code = s->cur->exit ? s->cur->exit->exit_code : 0;
            /* The id is no longer the runtime's to honour (and may be reused). */
            if (s->have_pid) case_untrack_process(s->ctx, s->pid);
            break;
        default:
            ev->kind = PEV_OTHER;
            break;
        }
        return ev->kind;
    case SBX_GRPC_NEXT_TIMEOUT:
        ev->kind = PEV_TIMEOUT;
        return ev->kind;
    case SBX_GRPC_NEXT_END:
        if (res->end == SBX_GRPC_END_STATUS) {
            ev->kind = PEV_END;
            ev->code = res->code;
            ev->message = res->message;
            return ev->kind;
        }
        /* END_PROTOCOL is a broken response, not a status. */
        break;
    default:
        break;
    }
    ev->kind = PEV_ERROR;
    ev->code = res->code;
    snprintf(s->error, sizeof s->error, "%s%s%s", end_reason(res), res->error[0] ? ": " : "",
             res->error);
    ev->message = s->error;
    return ev->kind;
}

static int append(uint8_t **buf, size_t *len, const uint8_t *data, size_t n)
{
    uint8_t *p = realloc(*buf, *len + n + 1);
    if (!p) return -1;
    if (n) memcpy(p + *len, data, n);
    *len += n;
    p[*len] = 0;
    *buf = p;
    return 0;
}

int rpc_collect(struct rpc_stream *s, unsigned timeout_ms, struct rpc_result *r,
                int32_t *process_id)
{
    memset(r, 0, sizeof *r);
    r->code = -1;
    uint64_t deadline = case_now_ms() + timeout_ms;
    for (;;) {
        uint64_t now = case_now_ms();
        if (now >= deadline) {
            set_message(r, "no end of the stream within %u ms", timeout_ms);
            return -1;
        }
        struct rpc_event ev;
        rpc_next(s, (unsigned)(deadline - now), &ev);
        switch (ev.kind) {
        case PEV_INIT:
            if (process_id) *process_id = ev.process_id;
            break;
        case PEV_STDOUT:
            if (append(&r->out, &r->out_len, ev.data, ev.len) != 0) return -1;
            break;
        case PEV_STDERR:
            if (append(&r->err, &r->err_len, ev.data, ev.len) != 0) return -1;
            break;
        case PEV_EXIT:
            r->exit_code = ev.exit_code;
            break;
        case PEV_OTHER:
        case PEV_TIMEOUT:
            break;
        case PEV_END:
            r->code = ev.code;
            if (ev.message) r->message = strdup(ev.message);
            return 0;
        case PEV_ERROR:
            r->code = -1;
            set_message(r, "%s", ev.message ? ev.message : "stream failed");
            return -1;
        }
    }
}

void rpc_cancel(struct rpc_stream *s)
{
    if (s && s->call) sbx_grpc_call_cancel(s->call);
}

void rpc_stream_free(struct rpc_stream *s)
{
    if (!s) return;
    if (s->cur) process__v1__start_response__free_unpacked(s->cur, NULL);
    sbx_grpc_call_free(s->call);
    free(s->req);
    free(s);
}

/* ---- control calls ---------------------------------------------------------- */

static int control(struct case_ctx *ctx, const char *path, const ProtobufCMessage *m)
{
    size_t len = 0;
    uint8_t *req = pack_message(m, &len);
    struct rpc_result r = {0};
    if (!req) return -1;
    int code = unary(ctx, path, req, len, 0, CONTROL_WAIT_MS, &r, NULL, NULL);
    free(req);
    rpc_result_free(&r);
    return code;
}

int rpc_write_stdin(struct case_ctx *ctx, int32_t process_id, const void *data, size_t len)
{
    Process__V1__WriteStdinRequest m;
    process__v1__write_stdin_request__init(&m);
    m.process_id = process_id;
    m.payload_case = PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_INPUT;
    m.input.data = (uint8_t *)data;
    m.input.len = len;
    case_request(ctx, "WriteStdin {process_id: %d, input: %zu bytes}", (int)process_id, len);
    return control(ctx, PROC_PATH_WRITE_STDIN, &m.base);
}

int rpc_close_stdin(struct case_ctx *ctx, int32_t process_id)
{
    Process__V1__WriteStdinRequest m;
    process__v1__write_stdin_request__init(&m);
    Google__Protobuf__Empty empty = GOOGLE__PROTOBUF__EMPTY__INIT;
    m.process_id = process_id;
    m.payload_case = PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_EOF;
    m.eof = &empty;
    case_request(ctx, "WriteStdin {process_id: %d, eof: {}}", (int)process_id);
    return control(ctx, PROC_PATH_WRITE_STDIN, &m.base);
}

int rpc_signal(struct case_ctx *ctx, int32_t process_id, int signal_enum_value)
{
    Process__V1__SendSignalRequest m = PROCESS__V1__SEND_SIGNAL_REQUEST__INIT;
    m.process_id = process_id;
    m.signal = (Process__V1__Signal)signal_enum_value;
    case_request(ctx, "SendSignal {process_id: %d, signal: %d}", (int)process_id,
                 signal_enum_value);
    return control(ctx, PROC_PATH_SEND_SIGNAL, &m.base);
}

int rpc_resize(struct case_ctx *ctx, int32_t process_id, uint32_t cols, uint32_t rows)
{
    Process__V1__ResizeTTYRequest m = PROCESS__V1__RESIZE_TTYREQUEST__INIT;
    m.process_id = process_id;
    m.cols = cols;
    m.rows = rows;
    case_request(ctx, "ResizeTTY {process_id: %d, cols: %u, rows: %u}", (int)process_id,
                 (unsigned)cols, (unsigned)rows);
    return control(ctx, PROC_PATH_RESIZE_TTY, &m.base);
}
