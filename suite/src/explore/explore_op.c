/* SPDX-License-Identifier: Apache-2.0 */
/* Names, bodies and renderings of explore's operations. */
#include "explore_op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_rng.h"
#include "text_util.h"

static const char *const kind_names[XOP__COUNT] = {
    [XOP_PUT] = "put",         [XOP_GET] = "get",       [XOP_HEAD] = "head",
    [XOP_DELETE] = "delete",   [XOP_LIST] = "list",     [XOP_MKDIR] = "mkdir",
    [XOP_SYMLINK] = "symlink", [XOP_MKFIFO] = "mkfifo", [XOP_CAT] = "cat",
    [XOP_STAT] = "stat",       [XOP_ENV] = "env",       [XOP_BADCMD] = "badcmd",
    [XOP_START] = "start",     [XOP_WRITE] = "write",   [XOP_SIGNAL] = "signal",
    [XOP_RESIZE] = "resize",   [XOP_HEALTH] = "health", [XOP_METADATA] = "metadata",
};

const char *xop_kind_name(enum xop_kind k)
{
    return (unsigned)k < XOP__COUNT ? kind_names[k] : "?";
}

int xop_kind_from_name(const char *name)
{
    for (int k = 0; k < XOP__COUNT; k++)
        if (name && strcmp(kind_names[k], name) == 0) return k;
    return -1;
}

uint8_t *xop_content(const struct xop *op, size_t *len)
{
    *len = op->size;
    uint8_t *b = malloc(op->size ? op->size : 1);
    if (!b) return NULL;
    struct xrng r;
    xrng_seed(&r, op->content_seed);
    for (size_t i = 0; i < op->size; i++) {
        uint64_t v = xrng_next(&r);
        /* Mostly text, with NULs and high bytes: binary-safety matters. */
        unsigned c = (unsigned)(v & 0xff);
        b[i] = (v >> 8) % 8 == 0 ? (uint8_t)c : (uint8_t)('a' + c % 26);
    }
    return b;
}

void xop_range_header(const struct xop *op, char *buf, size_t len)
{
    if (op->ra < 0)
        snprintf(buf, len, "Range: bytes=-%lld", (long long)op->rb);
    else if (op->rb < 0)
        snprintf(buf, len, "Range: bytes=%lld-", (long long)op->ra);
    else
        snprintf(buf, len, "Range: bytes=%lld-%lld", (long long)op->ra, (long long)op->rb);
}

static const char *rec_name(uint8_t r)
{
    return r == XREC_TRUE     ? " recursive=true"
           : r == XREC_FALSE  ? " recursive=false"
           : r == XREC_BANANA ? " recursive=banana"
                              : "";
}

char *xop_render(const struct xop *op)
{
    char p[XOP_PATH_MAX + 16];
    snprintf(p, sizeof p, "%s", op->path);
    if (op->nul) strncat(p, "%00x", sizeof p - strlen(p) - 1);
    if (op->trailing_slash) strncat(p, "/", sizeof p - strlen(p) - 1);
    const char *enc = op->enc == XENC_RAW_SUB ? " (sub-delims raw)"
                      : op->enc == XENC_SLASH ? " (/ as %2F)"
                                              : "";
    switch (op->kind) {
    case XOP_PUT:
        return text_fmt("PUT %s%s %u bytes%s%s%s%s%s", p, enc, op->size,
                        op->multipart ? " multipart" : "", op->mp_nofile ? " (no file part)" : "",
                        op->has_mode ? " mode=" : "", op->has_mode ? op->mode : "",
                        op->has_mode && !op->mode[0] ? "(empty)" : "");
    case XOP_GET:
        if (op->ranged) {
            char range[64];
            xop_range_header(op, range, sizeof range);
            return text_fmt("GET %s%s %s", p, enc, range);
        }
        return text_fmt("GET %s%s", p, enc);
    case XOP_HEAD:
        return text_fmt("HEAD %s%s", p, enc);
    case XOP_DELETE:
        return text_fmt("DELETE %s%s%s", p, enc, rec_name(op->recursive));
    case XOP_LIST:
        return text_fmt("GET (listing) %s%s", p, enc);
    case XOP_MKDIR:
        return text_fmt("Execute mkdir -p %s", p);
    case XOP_SYMLINK:
        return text_fmt("Execute ln -s (to %s) %s", op->target, p);
    case XOP_MKFIFO:
        return text_fmt("Execute mkfifo %s", p);
    case XOP_CAT:
        return text_fmt("Execute cat %s%s", p, op->in_parent ? " (cwd = parent)" : "");
    case XOP_STAT:
        return text_fmt("Execute stat -L -c %%a %s", p);
    case XOP_ENV:
        return text_fmt("Execute printf $SBXE_V with SBXE_V=%s", op->input);
    case XOP_BADCMD:
        return text_fmt("Execute %s",
                        op->empty_argv ? "with an empty command" : "sbx-explore-no-such-command");
    case XOP_START:
        return text_fmt("Start #%d cat%s%s%s", op->slot, op->pty ? " pty" : "",
                        op->has_cwd ? " cwd=" : "", op->has_cwd ? p : "");
    case XOP_WRITE:
        if (op->eof) return text_fmt("WriteStdin #%d eof", op->slot);
        return text_fmt("WriteStdin #%d %zu bytes", op->slot, strlen(op->input));
    case XOP_SIGNAL:
        return text_fmt("SendSignal #%d signal %d", op->slot, op->sig);
    case XOP_RESIZE:
        return text_fmt("ResizeTTY #%d %ux%u", op->slot, op->cols, op->rows);
    case XOP_HEALTH:
        return text_fmt("GET /v1/health");
    case XOP_METADATA:
        return text_fmt("GET /v1/metadata");
    case XOP__COUNT:
        break;
    }
    return text_fmt("?");
}
