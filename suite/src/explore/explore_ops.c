/* SPDX-License-Identifier: Apache-2.0 */
/* One operation on the wire: REST through rest_client, processes through
 * process_client; a Start stream is kept per slot until eof or a signal
 * ends it, and then drained to its end within a bound. */
#include "explore_ops.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process_client.h"
#include "rest_client.h"
#include "sbx_grpc_status.h"
#include "string_buf.h"
#include "workspace_remove.h"

#include "explore_model.h"

#define REST_TIMEOUT_MS 5000
#define EXEC_TIMEOUT_MS 10000
#define FIRST_EVENT_MS 5000
#define DRAIN_MS 5000
#define MP_BOUNDARY "sbxexplore7d1b40c2"

void xrt_init(struct xrt *rt, const char *grpc, const char *rest)
{
    memset(rt, 0, sizeof *rt);
    snprintf(rt->target.grpc_addr, sizeof rt->target.grpc_addr, "%s", grpc);
    snprintf(rt->target.rest_addr, sizeof rt->target.rest_addr, "%s", rest);
    snprintf(rt->target.prefix, sizeof rt->target.prefix, "sbx-explore");
    rt->def.id = "explore";
    rt->def.title = "explore";
    rt->def.clauses = "";
    case_ctx_init(&rt->ctx, &rt->def, &rt->target, 0, -1);
}

void xrt_release(struct xrt *rt)
{
    for (size_t i = 0; i < rt->n_procs; i++)
        if (rt->procs[i].s) rpc_stream_free(rt->procs[i].s);
    free(rt->procs);
    rt->procs = NULL;
    rt->n_procs = 0;
    case_ctx_release(&rt->ctx);
}

static void encode_into(struct sbuf *b, const char *s, enum xop_enc enc)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
        bool raw = unreserved || (c == '/' && enc != XENC_SLASH) ||
                   (enc == XENC_RAW_SUB && c && strchr("!$&'()*+,;=:@", (int)c));
        if (raw) {
            char ch = (char)c;
            sbuf_add(b, &ch, 1);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            sbuf_add(b, e, 3);
        }
    }
}

char *xrt_files_target(const char *ws, const struct xop *op)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "/v1/files/");
    encode_into(&b, ws, XENC_ALL);
    if (op->path[0]) {
        sbuf_puts(&b, "/");
        encode_into(&b, op->path, (enum xop_enc)op->enc);
    }
    if (op->nul) sbuf_puts(&b, "%00x");
    if (op->trailing_slash) sbuf_puts(&b, "/");
    if (op->kind == XOP_PUT && op->has_mode) sbuf_printf(&b, "?mode=%s", op->mode);
    if (op->kind == XOP_DELETE && op->recursive != XREC_NONE)
        sbuf_printf(&b, "?recursive=%s",
                    op->recursive == XREC_TRUE    ? "true"
                    : op->recursive == XREC_FALSE ? "false"
                                                  : "banana");
    return sbuf_take(&b);
}

static void take_http(struct xans *a, int rc, struct http_response *resp)
{
    if (rc != 0) {
        a->transport_error = true;
        snprintf(a->why, sizeof a->why, "%s", resp->error);
        http_response_free(resp);
        return;
    }
    a->status = resp->status;
    a->ctype = resp->content_type;
    resp->content_type = NULL;
    a->body = (uint8_t *)resp->body;
    a->body_len = resp->body_len;
    resp->body = NULL;
    if (a->status >= 400 && a->body) {
        json_t *doc = json_loadb((const char *)a->body, a->body_len, 0, NULL);
        const char *code = json_string_value(json_object_get(doc, "code"));
        a->error_shape = code && json_is_string(json_object_get(doc, "message"));
        if (code) snprintf(a->code, sizeof a->code, "%s", code);
        json_decref(doc);
    }
    http_response_free(resp);
}

static void exec_rest(struct xrt *rt, const struct xop *op, struct xans *a)
{
    char *target = op->kind == XOP_HEALTH     ? strdup("/v1/health")
                   : op->kind == XOP_METADATA ? strdup("/v1/metadata")
                                              : xrt_files_target(rt->ws, op);
    struct http_request req = {.target = target, .timeout_ms = REST_TIMEOUT_MS};
    const char *headers[3] = {NULL, NULL, NULL};
    char range[64];
    uint8_t *content = NULL;
    struct sbuf mp = {0};
    switch (op->kind) {
    case XOP_PUT: {
        size_t len = 0;
        req.method = "PUT";
        content = xop_content(op, &len);
        if (op->multipart) {
            sbuf_printf(&mp,
                        "--" MP_BOUNDARY "\r\nContent-Disposition: form-data; name=\"%s\"; "
                        "filename=\"f\"\r\nContent-Type: application/octet-stream\r\n\r\n",
                        op->mp_nofile ? "other" : "file");
            sbuf_add(&mp, content, len);
            sbuf_puts(&mp, "\r\n--" MP_BOUNDARY "--\r\n");
            req.body = mp.s;
            req.body_len = mp.len;
            headers[0] = "Content-Type: multipart/form-data; boundary=" MP_BOUNDARY;
        } else {
            req.body = content;
            req.body_len = len;
            headers[0] = "Content-Type: application/octet-stream";
        }
        break;
    }
    case XOP_HEAD:
        req.method = "HEAD";
        break;
    case XOP_DELETE:
        req.method = "DELETE";
        break;
    default:
        req.method = "GET";
        if (op->kind == XOP_GET && op->ranged) {
            xop_range_header(op, range, sizeof range);
            headers[0] = range;
        }
        break;
    }
    req.headers = headers;
    struct http_response resp;
    int rc = rest_do_at(rt->target.rest_addr, &req, &resp);
    take_http(a, rc, &resp);
    a->head = op->kind == XOP_HEAD;
    free(content);
    sbuf_free(&mp);
    free(target);
}

static void take_exec(struct xans *a, int code, struct rpc_result *r)
{
    a->gcode = code;
    if (code < 0) {
        a->transport_error = true;
        snprintf(a->why, sizeof a->why, "%s", r->message ? r->message : "no answer");
    }
    a->exit_code = r->exit_code;
    a->out = r->out;
    a->out_len = r->out_len;
    r->out = NULL;
    rpc_result_free(r);
}

static void run_exec(struct xrt *rt, const char *const *argv, const char *const *env,
                     const char *cwd, struct xans *a)
{
    struct rpc_spec spec = {.argv = argv, .env = env, .cwd = cwd, .timeout_ms = EXEC_TIMEOUT_MS};
    struct rpc_result r;
    memset(&r, 0, sizeof r);
    int code = rpc_execute(&rt->ctx, &spec, &r);
    take_exec(a, code, &r);
}

static const char SYMLINK_SCRIPT[] =
    "set -f; d=$(dirname -- \"$2\"); while [ \"$d\" != . ] && [ \"$d\" != / ]; do "
    "[ -L \"$d\" ] && exit 5; d=$(dirname -- \"$d\"); done; "
    "{ [ -e \"$2\" ] || [ -L \"$2\" ]; } && exit 3; exec ln -s -- \"$1\" \"$2\"";
static const char MKFIFO_SCRIPT[] =
    "{ [ -e \"$1\" ] || [ -L \"$1\" ]; } && exit 3; exec mkfifo -- \"$1\"";
static const char CAT_SCRIPT[] = "[ -p \"$1\" ] && exit 4; exec cat -- \"$1\"";

static void exec_command(struct xrt *rt, const struct xop *op, struct xans *a)
{
    char cwd[600];
    snprintf(cwd, sizeof cwd, "%s", rt->ws);
    switch (op->kind) {
    case XOP_MKDIR: {
        const char *argv[] = {"mkdir", "-p", "--", op->path, NULL};
        run_exec(rt, argv, NULL, cwd, a);
        break;
    }
    case XOP_SYMLINK: {
        char text[XOP_PATH_MAX * 2];
        xmodel_link_text(op, text, sizeof text);
        const char *argv[] = {"sh", "-c", SYMLINK_SCRIPT, "sh", text, op->path, NULL};
        run_exec(rt, argv, NULL, cwd, a);
        break;
    }
    case XOP_MKFIFO: {
        const char *argv[] = {"sh", "-c", MKFIFO_SCRIPT, "sh", op->path, NULL};
        run_exec(rt, argv, NULL, cwd, a);
        break;
    }
    case XOP_CAT: {
        const char *arg = op->path;
        const char *slash = strrchr(op->path, '/');
        if (op->in_parent && slash) {
            snprintf(cwd, sizeof cwd, "%s/%.*s", rt->ws, (int)(slash - op->path), op->path);
            arg = slash + 1;
        }
        const char *argv[] = {"sh", "-c", CAT_SCRIPT, "sh", arg, NULL};
        run_exec(rt, argv, NULL, cwd, a);
        break;
    }
    case XOP_STAT: {
        const char *argv[] = {"stat", "-L", "-c", "%a", "--", op->path, NULL};
        run_exec(rt, argv, NULL, cwd, a);
        break;
    }
    case XOP_ENV: {
        char var[XOP_INPUT_MAX + 8];
        snprintf(var, sizeof var, "SBXE_V=%s", op->input);
        const char *env[] = {var, NULL};
        const char *argv[] = {"sh", "-c", "printf %s \"$SBXE_V\"", NULL};
        run_exec(rt, argv, env, cwd, a);
        break;
    }
    case XOP_BADCMD: {
        const char *missing[] = {"sbx-explore-no-such-command", NULL};
        const char *empty[] = {NULL};
        run_exec(rt, op->empty_argv ? empty : missing, NULL, cwd, a);
        break;
    }
    default:
        break;
    }
}

static struct xproc *proc_slot(struct xrt *rt, int slot)
{
    if (slot < 0) return NULL;
    if ((size_t)slot >= rt->n_procs) {
        size_t n = (size_t)slot + 8;
        struct xproc *grown = realloc(rt->procs, n * sizeof *grown);
        if (!grown) abort();
        memset(grown + rt->n_procs, 0, (n - rt->n_procs) * sizeof *grown);
        rt->procs = grown;
        rt->n_procs = n;
    }
    return &rt->procs[slot];
}

/* Runs of output events are one letter: the order is what P7 fixes, not
 * how the output is cut into events. */
static void add_event(struct xans *a, char c)
{
    size_t n = strlen(a->events);
    if (n && (c == 'O' || c == 'E') && a->events[n - 1] == c) return;
    if (n + 2 < sizeof a->events) {
        a->events[n] = c;
        a->events[n + 1] = '\0';
    }
}

/* Reads the stream to its end within DRAIN_MS. */
static void drain(struct xproc *p, struct xans *a)
{
    a->drained = true;
    struct sbuf out = {0};
    uint64_t end = case_now_ms() + DRAIN_MS;
    for (;;) {
        uint64_t now = case_now_ms();
        if (now >= end) {
            a->drain_timeout = true;
            break;
        }
        struct rpc_event ev;
        int k = rpc_next(p->s, (unsigned)(end - now), &ev);
        if (k == PEV_END) {
            a->end_code = ev.code;
            break;
        }
        if (k == PEV_TIMEOUT) {
            a->drain_timeout = true;
            break;
        }
        if (k == PEV_ERROR) {
            a->end_code = -1;
            add_event(a, '!');
            break;
        }
        add_event(a, k == PEV_INIT     ? 'I'
                     : k == PEV_STDOUT ? 'O'
                     : k == PEV_STDERR ? 'E'
                     : k == PEV_EXIT   ? 'X'
                                       : '?');
        if (k == PEV_STDOUT) sbuf_add(&out, ev.data, ev.len);
        if (k == PEV_EXIT) {
            a->n_exits++;
            a->stream_exit = ev.exit_code;
        }
    }
    a->sout_len = out.len;
    a->sout = (uint8_t *)sbuf_take(&out);
    if (a->drain_timeout) rpc_cancel(p->s);
    rpc_stream_free(p->s);
    p->s = NULL;
    p->live = false;
    p->ended = true;
}

static void exec_start(struct xrt *rt, const struct xop *op, struct xans *a)
{
    struct xproc *p = proc_slot(rt, op->slot);
    char cwd[600];
    snprintf(cwd, sizeof cwd, "%s%s%s", rt->ws, op->has_cwd && op->path[0] ? "/" : "",
             op->has_cwd ? op->path : "");
    const char *argv[] = {"cat", NULL};
    struct rpc_spec spec = {.argv = argv, .cwd = cwd};
    uint32_t size[2] = {80, 24};
    if (p->s) rpc_stream_free(p->s);
    memset(p, 0, sizeof *p);
    p->s = rpc_start(&rt->ctx, &spec, op->pty ? size : NULL);
    struct rpc_event ev;
    int k = p->s ? rpc_next(p->s, FIRST_EVENT_MS, &ev) : PEV_ERROR;
    if (k == PEV_INIT) {
        a->init = true;
        a->pid = ev.process_id;
        p->pid = ev.process_id;
        p->live = true;
        return;
    }
    if (k == PEV_END) {
        a->gcode = ev.code;
    } else if (k == PEV_ERROR || k == PEV_TIMEOUT) {
        a->transport_error = true;
        snprintf(a->why, sizeof a->why, "%s",
                 k == PEV_TIMEOUT ? "no event within 5 s"
                 : ev.message     ? ev.message
                                  : "error");
        a->gcode = -1;
    } else {
        add_event(a, k == PEV_STDOUT ? 'O' : k == PEV_EXIT ? 'X' : '?');
    }
    if (p->s) {
        rpc_cancel(p->s);
        rpc_stream_free(p->s);
        p->s = NULL;
    }
}

/* The id to send for slot: its process's, XRT_UNKNOWN_ID for a slot that
 * never had one, or -1 (not sent) when an ended slot's id now belongs to a
 * live process: the runtime may reuse ids (P9), and explore must not poke a
 * process by accident. */
static int64_t slot_id(struct xrt *rt, int slot)
{
    struct xproc *p = slot >= 0 && (size_t)slot < rt->n_procs ? &rt->procs[slot] : NULL;
    if (!p || (!p->live && !p->ended)) return XRT_UNKNOWN_ID;
    if (p->ended && rt->ids_shared) return -1;
    if (p->ended)
        for (size_t i = 0; i < rt->n_procs; i++)
            if (rt->procs[i].live && rt->procs[i].pid == p->pid) return -1;
    return p->pid;
}

static void exec_control(struct xrt *rt, const struct xop *op, struct xans *a)
{
    int64_t id = slot_id(rt, op->slot);
    if (id == -1) {
        a->skipped = true;
        snprintf(a->why, sizeof a->why, "%s",
                 rt->ids_shared ? "an ended process's id may belong to another job's process"
                                : "the ended process's id belongs to a live one now");
        return;
    }
    int32_t pid = (int32_t)id;
    struct xproc *p = op->slot >= 0 && (size_t)op->slot < rt->n_procs ? &rt->procs[op->slot] : NULL;
    bool live = p && p->live;
    switch (op->kind) {
    case XOP_WRITE:
        a->gcode = op->eof ? rpc_close_stdin(&rt->ctx, pid)
                           : rpc_write_stdin(&rt->ctx, pid, op->input, strlen(op->input));
        if (op->eof && live) drain(p, a);
        break;
    case XOP_SIGNAL:
        a->gcode = rpc_signal(&rt->ctx, pid, op->sig);
        if (live && a->gcode == 0 && (op->sig == 2 || op->sig == 9 || op->sig == 15)) drain(p, a);
        break;
    case XOP_RESIZE:
        a->gcode = rpc_resize(&rt->ctx, pid, op->cols, op->rows);
        break;
    default:
        break;
    }
    if (a->gcode < 0) {
        a->transport_error = true;
        snprintf(a->why, sizeof a->why, "no gRPC answer");
    }
}

void xrt_exec(struct xrt *rt, const struct xop *op, struct xans *a)
{
    memset(a, 0, sizeof *a);
    switch (op->kind) {
    case XOP_PUT:
    case XOP_GET:
    case XOP_HEAD:
    case XOP_DELETE:
    case XOP_LIST:
    case XOP_HEALTH:
    case XOP_METADATA:
        exec_rest(rt, op, a);
        break;
    case XOP_START:
        exec_start(rt, op, a);
        break;
    case XOP_WRITE:
    case XOP_SIGNAL:
    case XOP_RESIZE:
        exec_control(rt, op, a);
        break;
    default:
        exec_command(rt, op, a);
        break;
    }
}

int xrt_begin(struct xrt *rt, const char *ws, char *why, size_t why_len)
{
    snprintf(rt->ws, sizeof rt->ws, "%s", ws);
    const char *argv[] = {"mkdir", "-p", "--", ws, NULL};
    return rpc_execute_ok(&rt->ctx, argv, EXEC_TIMEOUT_MS, why, why_len);
}

int xrt_end(struct xrt *rt, char *why, size_t why_len)
{
    for (size_t i = 0; i < rt->n_procs; i++) {
        struct xproc *p = &rt->procs[i];
        if (!p->s) continue;
        if (p->live) rpc_signal(&rt->ctx, p->pid, 9);
        struct xans a;
        memset(&a, 0, sizeof a);
        drain(p, &a);
        xans_free(&a);
    }
    free(rt->procs);
    rt->procs = NULL;
    rt->n_procs = 0;
    return workspace_remove(&rt->ctx, rt->ws, why, why_len);
}
