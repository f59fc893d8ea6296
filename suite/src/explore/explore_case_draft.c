/* SPDX-License-Identifier: Apache-2.0 */
/* Writing a case draft from a reproduction. */
#include "explore_case_draft.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_model.h"
#include "explore_ops.h"
#include "string_buf.h"

/* A C string literal of bytes. */
static void c_literal(struct sbuf *b, const void *data, size_t len)
{
    const unsigned char *p = data;
    sbuf_puts(b, "\"");
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '"' || p[i] == '\\')
            sbuf_printf(b, "\\%c", p[i]);
        else if (p[i] >= 0x20 && p[i] < 0x7f && !(i && p[i - 1] >= 0x80))
            sbuf_printf(b, "%c", p[i]);
        else
            sbuf_printf(b, "\\%03o", p[i]);
    }
    sbuf_puts(b, "\"");
}

static void rest_step(struct sbuf *b, const struct xop *op)
{
    struct xop copy = *op;
    char *target = xrt_files_target("", &copy); /* "/v1/files/" + path */
    const char *rel = target + strlen("/v1/files/");
    sbuf_puts(b, "    snprintf(target, sizeof target, \"/v1/files/%s%s\", case_dir(ctx), ");
    c_literal(b, rel, strlen(rel));
    sbuf_puts(b, ");\n");
    free(target);
    const char *method = op->kind == XOP_PUT      ? "PUT"
                         : op->kind == XOP_HEAD   ? "HEAD"
                         : op->kind == XOP_DELETE ? "DELETE"
                                                  : "GET";
    sbuf_printf(b, "    req = (struct http_request){.method = \"%s\", .target = target};\n",
                method);
    if (op->kind == XOP_PUT) {
        size_t len = 0;
        uint8_t *content = xop_content(op, &len);
        if (op->multipart) {
            sbuf_puts(b,
                      "    static const char body[] = \"--B\\r\\nContent-Disposition: form-data; "
                      "name=\\\"");
            sbuf_puts(b, op->mp_nofile ? "other" : "file");
            sbuf_puts(b, "\\\"; filename=\\\"f\\\"\\r\\n\\r\\n\"\n        ");
            c_literal(b, content, len);
            sbuf_puts(b, " \"\\r\\n--B--\\r\\n\";\n");
            sbuf_puts(b, "    static const char *const mp[] = {\"Content-Type: "
                         "multipart/form-data; boundary=B\", NULL};\n    req.headers = mp;\n");
        } else {
            sbuf_puts(b, "    static const char body[] = ");
            c_literal(b, content, len);
            sbuf_puts(b, ";\n");
        }
        sbuf_puts(b, "    req.body = body;\n    req.body_len = sizeof body - 1;\n");
        free(content);
    }
    if (op->kind == XOP_GET && op->ranged) {
        char range[64];
        xop_range_header(op, range, sizeof range);
        sbuf_printf(b, "    static const char *const range[] = {\"%s\", NULL};\n", range);
        sbuf_puts(b, "    req.headers = range;\n");
    }
    sbuf_puts(b, "    http_response_free(&resp);\n    rest_do(ctx, &req, &resp);\n");
}

static void sh_step(struct sbuf *b, const struct xop *op)
{
    char text[XOP_PATH_MAX * 2];
    sbuf_puts(b, "    rpc_result_free(&r);\n    snprintf(script, sizeof script, ");
    switch (op->kind) {
    case XOP_MKDIR:
        sbuf_puts(b, "\"mkdir -p -- '%s'\", ");
        break;
    case XOP_SYMLINK:
        xmodel_link_text(op, text, sizeof text);
        sbuf_puts(b, "\"ln -s -- '");
        sbuf_puts(b, text);
        sbuf_puts(b, "' '%s'\", ");
        break;
    case XOP_MKFIFO:
        sbuf_puts(b, "\"mkfifo -- '%s'\", ");
        break;
    case XOP_CAT:
        sbuf_puts(b, "\"cat -- '%s'\", ");
        break;
    case XOP_STAT:
        sbuf_puts(b, "\"stat -L -c %%a -- '%s'\", ");
        break;
    default:
        sbuf_puts(b, "\"true '%s'\", ");
        break;
    }
    c_literal(b, op->path, strlen(op->path));
    sbuf_puts(b, ");\n    rpc_sh(ctx, script, &r);\n");
}

static void proc_step(struct sbuf *b, const struct xop *op)
{
    int s = op->slot;
    char id[24];
    snprintf(id, sizeof id, s >= 0 ? "pid[%d]" : "%d", s >= 0 ? s : XRT_UNKNOWN_ID);
    switch (op->kind) {
    case XOP_START:
        sbuf_printf(b,
                    "    {\n        static const char *const argv[] = {\"cat\", NULL};\n"
                    "        struct rpc_spec spec = {.argv = argv, .cwd = case_dir(ctx)};\n"
                    "        uint32_t size[2] = {80, 24};\n"
                    "        s[%d] = rpc_start(ctx, &spec, %s);\n"
                    "        struct rpc_event ev;\n"
                    "        if (rpc_next(s[%d], 5000, &ev) == PEV_INIT) pid[%d] = "
                    "ev.process_id;\n"
                    "    }\n",
                    s, op->pty ? "size" : "NULL", s, s);
        break;
    case XOP_WRITE:
        if (op->eof) {
            sbuf_printf(b, "    code = rpc_close_stdin(ctx, %s);\n", id);
        } else {
            sbuf_printf(b, "    code = rpc_write_stdin(ctx, %s, ", id);
            c_literal(b, op->input, strlen(op->input));
            sbuf_printf(b, ", %zu);\n", strlen(op->input));
        }
        break;
    case XOP_SIGNAL:
        sbuf_printf(b, "    code = rpc_signal(ctx, %s, %d);\n", id, op->sig);
        break;
    case XOP_RESIZE:
        sbuf_printf(b, "    code = rpc_resize(ctx, %s, %u, %u);\n", id, op->cols, op->rows);
        break;
    default:
        break;
    }
}

/* The condition under which the last operation answers as the deviating
 * runtime did, when that is a plain comparison (status, bytes, exit code);
 * false when it is not. */
static bool last_check(struct sbuf *b, const struct xop *last, const struct xans *o)
{
    bool is_exec = last->kind >= XOP_MKDIR && last->kind <= XOP_BADCMD;
    bool json = o->ctype && strstr(o->ctype, "json");
    if (last->kind == XOP_METADATA) return false; /* its body is withheld */
    if (o->status && (o->body_len == 0 || (!json && o->body_len <= 512))) {
        sbuf_printf(b, "    if (resp.status == %ld && resp.body_len == %zu", o->status,
                    o->body_len);
        if (o->body_len) {
            sbuf_puts(b, " &&\n        memcmp(resp.body, ");
            c_literal(b, o->body, o->body_len);
            sbuf_printf(b, ", %zu) == 0", o->body_len);
        }
        sbuf_puts(b, ")\n");
        return true;
    }
    if (is_exec && o->out_len <= 512) {
        sbuf_printf(b, "    if (r.code == %d && r.exit_code == %d && r.out_len == %zu", o->gcode,
                    (int)o->exit_code, o->out_len);
        if (o->out_len) {
            sbuf_puts(b, " &&\n        memcmp(r.out, ");
            c_literal(b, o->out, o->out_len);
            sbuf_printf(b, ", %zu) == 0", o->out_len);
        }
        sbuf_puts(b, ")\n");
        return true;
    }
    if (!o->status && !is_exec && !o->drained && last->kind != XOP_START) {
        sbuf_printf(b, "    if (code == %d)\n", o->gcode);
        return true;
    }
    return false;
}

char *xcase_draft(const struct xop *ops, size_t n, uint64_t seed, const char *clause,
                  const char *expected, const struct xans *observed)
{
    struct sbuf b = {0};
    int slots = 1;
    for (size_t i = 0; i < n; i++)
        if (ops[i].slot + 1 > slots) slots = ops[i].slot + 1;
    sbuf_printf(
        &b,
        "/* SPDX-License-Identifier: Apache-2.0 */\n"
        "/* %s: drafted by `sandboxd-conformance explore` (seed %" PRIu64 ") from a\n"
        " * minimal reproduction; review the expectation before adding it. */\n"
        "#include <stdio.h>\n#include <string.h>\n\n"
        "#include \"case_api.h\"\n#include \"process_client.h\"\n#include \"rest_client.h\"\n\n"
        "static void explore_%" PRIu64 "(struct case_ctx *ctx)\n{\n"
        "    char target[1024], script[1200];\n"
        "    struct http_request req;\n    struct http_response resp = {0};\n"
        "    struct rpc_result r = {0};\n    struct rpc_stream *s[%d] = {0};\n"
        "    int32_t pid[%d] = {0};\n    int code = 0;\n"
        "    (void)req; (void)target; (void)script; (void)code; (void)pid;\n",
        clause, seed, seed, slots, slots);
    for (size_t i = 0; i < n; i++) {
        char *t = xop_render(&ops[i]);
        sbuf_printf(&b, "    /* %zu. %s */\n", i + 1, t ? t : "?");
        free(t);
        const struct xop *op = &ops[i];
        if (op->kind <= XOP_LIST || op->kind == XOP_HEALTH || op->kind == XOP_METADATA) {
            if (op->kind == XOP_HEALTH || op->kind == XOP_METADATA) {
                sbuf_printf(&b,
                            "    req = (struct http_request){.method = \"GET\", .target = "
                            "\"/v1/%s\"};\n    http_response_free(&resp);\n"
                            "    rest_do(ctx, &req, &resp);\n",
                            op->kind == XOP_HEALTH ? "health" : "metadata");
            } else {
                sbuf_puts(&b, "    {\n");
                rest_step(&b, op);
                sbuf_puts(&b, "    }\n");
            }
        } else if (op->kind >= XOP_START) {
            proc_step(&b, op);
        } else {
            sh_step(&b, op);
        }
    }
    const struct xop *last = &ops[n - 1];
    sbuf_puts(&b, "    /* The model expected: ");
    sbuf_puts(&b, expected);
    sbuf_puts(&b, ". */\n");
    if (!last_check(&b, last, observed)) {
        /* The deviation is in a JSON body or a stream: comparing bytes would
         * also refuse conformant answers, so the reviewer writes the check of
         * the one field the expectation names. */
        sbuf_puts(&b, "    /* REVIEW: the deviation is in the body or the stream; replace this\n"
                      "       note with a check of the field the expectation above names. */\n"
                      "    case_note(ctx, \"last answer: HTTP %ld, %zu bytes\", resp.status, "
                      "resp.body_len);\n");
    } else {
        sbuf_puts(&b, "        case_fail(ctx, ");
        c_literal(&b, expected, strlen(expected));
        sbuf_puts(&b, ", \"the answer explore reported\");\n");
    }
    sbuf_printf(&b, "    for (int i = 0; i < %d; i++)\n        if (s[i]) rpc_stream_free(s[i]);\n",
                slots);
    sbuf_puts(&b, "    http_response_free(&resp);\n    rpc_result_free(&r);\n}\n");
    sbuf_printf(&b,
                "SBX_CASE(explore_%" PRIu64
                ", .id = \"%s-9%02u\", .title = \"explore reproduction\",\n"
                "         .clauses = \"%s\", .level = LEVEL_MUST, .tags = \"files\",\n"
                "         .catches = ",
                seed, clause, (unsigned)(seed % 100), clause);
    c_literal(&b, expected, strlen(expected));
    sbuf_puts(&b, ",\n         .how = \"replays the minimal sequence explore found\");\n");
    return sbuf_take(&b);
}
