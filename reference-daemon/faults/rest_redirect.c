/* SPDX-License-Identifier: Apache-2.0 */
/* Go-style redirect of unclean /v1/files paths (see rest_redirect.h). */
#include "rest_redirect.h"

#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "rest/http_response.h"

/* Cleans a relative path like path.Clean("/" + p): drops empty and "."
 * segments, resolves ".." (never above the start), keeps a trailing
 * slash. Writes at most strlen(p) + 1 bytes to out. */
static void clean_path(const char *p, char *out)
{
    size_t o = 0;
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0) o--; /* the slash before the dropped segment */
            while (o > 0 && out[o - 1] != '/')
                o--;
        } else if (n > 0 && !(n == 1 && s[0] == '.')) {
            memcpy(out + o, s, n);
            o += n;
            out[o++] = '/';
        }
        s += n + (e ? 1 : 0);
    }
    bool trailing = *p && p[strlen(p) - 1] == '/';
    if (o > 0 && !trailing) o--;
    out[o] = '\0';
}

struct query {
    char *buf;
    size_t len, cap;
};

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    (void)kind;
    struct query *q = cls;
    size_t need = strlen(key) + (value ? strlen(value) : 0) + 3;
    if (q->len + need > q->cap) {
        size_t cap = (q->len + need) * 2;
        char *b = realloc(q->buf, cap);
        if (!b) return MHD_NO;
        q->buf = b;
        q->cap = cap;
    }
    q->buf[q->len] = q->len ? '&' : '?';
    q->len++;
    memcpy(q->buf + q->len, key, strlen(key));
    q->len += strlen(key);
    if (value) {
        q->buf[q->len++] = '=';
        memcpy(q->buf + q->len, value, strlen(value));
        q->len += strlen(value);
    }
    q->buf[q->len] = '\0';
    return MHD_YES;
}

bool variant_redirect_unclean(struct MHD_Connection *c, const char *raw_rest, enum MHD_Result *ret)
{
    if (!fault_active(FAULT_VARIANT_REDIRECT_DOTDOT)) return false;
    char *clean = malloc(strlen(raw_rest) + 2);
    if (!clean) return false;
    clean_path(raw_rest, clean);
    if (strcmp(clean, raw_rest) == 0) {
        free(clean);
        return false;
    }
    struct query q = {0};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, &q);
    size_t n = strlen("/v1/files/") + strlen(clean) + q.len + 1;
    char *loc = malloc(n);
    static const char body[] = "<a href=\"/v1/files/\">Moved Permanently</a>.\n";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (loc && r) {
        snprintf(loc, n, "/v1/files/%s%s", clean, q.buf ? q.buf : "");
        MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, loc);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
    }
    *ret = loc && r ? rest_queue(c, 301, r) : MHD_NO;
    if (r && !loc) MHD_destroy_response(r);
    free(loc);
    free(q.buf);
    free(clean);
    return true;
}
