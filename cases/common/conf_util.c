/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the confinement, concurrency and transport cases. */
#include "common/conf_util.h"

#include "case_api.h"
#include "process_client.h"
#include "rest_client.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void *conf_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("out of memory\n", stderr);
        abort();
    }
    return p;
}

char *conf_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = conf_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

char *conf_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) abort();
    char *p = conf_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

char *conf_sh_quote(const char *s)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            sbuf_puts(&b, "'\\''");
        else
            sbuf_add(&b, p, 1);
    }
    sbuf_puts(&b, "'");
    return sbuf_take(&b);
}

char *conf_sh_bytes(const char *s, size_t len)
{
    struct sbuf b = {0};
    /* Command substitution strips trailing newlines: callers never pass
     * names ending in one. */
    sbuf_puts(&b, "\"$(printf '");
    for (size_t i = 0; i < len; i++)
        sbuf_printf(&b, "\\%03o", (unsigned char)s[i]);
    sbuf_puts(&b, "')\"");
    return sbuf_take(&b);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *conf_pct_decode_once(const char *s, size_t *out_len)
{
    size_t n = strlen(s);
    char *out = conf_xmalloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int hi = -1, lo = -1;
        if (s[i] == '%' && i + 2 < n) {
            hi = hexval((unsigned char)s[i + 1]);
            lo = hexval((unsigned char)s[i + 2]);
        }
        if (hi >= 0 && lo >= 0) {
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    if (out_len) *out_len = o;
    return out;
}

char *conf_pct_encode(const char *s, bool encode_slash)
{
    struct sbuf b = {0};
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_' || *p == '~' ||
                    (*p == '/' && !encode_slash);
        if (keep)
            sbuf_add(&b, p, 1);
        else
            sbuf_printf(&b, "%%%02X", *p);
    }
    return sbuf_take(&b);
}

const char *conf_error_code_for_status(long s)
{
    switch (s) {
    case 400:
        return "INVALID_ARGUMENT";
    case 403:
        return "PERMISSION_DENIED";
    case 404:
        return "NOT_FOUND";
    case 409:
        return "CONFLICT";
    default:
        return NULL;
    }
}

bool conf_error_body_ok(const struct http_response *resp, const char *want_code, char *why,
                        size_t whylen)
{
    if (!resp->body || resp->body_len == 0) {
        snprintf(why, whylen, "no body (an Error JSON body was expected)");
        return false;
    }
    const char *ct = resp->content_type;
    if (!ct || strncasecmp(ct, "application/json", 16) != 0 ||
        (ct[16] != '\0' && ct[16] != ';' && ct[16] != ' ')) {
        snprintf(why, whylen, "Content-Type %s, not application/json",
                 resp->content_type ? resp->content_type : "(absent)");
        return false;
    }
    json_error_t jerr;
    json_t *root = json_loadb(resp->body, resp->body_len, JSON_ALLOW_NUL, &jerr);
    if (!root) {
        snprintf(why, whylen, "body is not JSON (%s)", jerr.text);
        return false;
    }
    bool ok = false;
    json_t *code = json_object_get(root, "code");
    json_t *msg = json_object_get(root, "message");
    if (!json_is_object(root))
        snprintf(why, whylen, "body is not a JSON object");
    else if (!json_is_string(code))
        snprintf(why, whylen, "Error body without a string \"code\"");
    else if (!json_is_string(msg))
        snprintf(why, whylen, "Error body without a string \"message\"");
    else if (want_code && strcmp(json_string_value(code), want_code) != 0)
        snprintf(why, whylen, "Error code \"%s\", expected \"%s\"", json_string_value(code),
                 want_code);
    else
        ok = true;
    json_decref(root);
    return ok;
}

char *conf_location_path(const struct http_response *resp)
{
    char *loc = http_header(resp, "Location");
    if (!loc) return NULL;
    const char *p = loc;
    /* Absolute URL: skip scheme and authority. */
    const char *scheme = strstr(p, "://");
    if (scheme && scheme < strchr(p, '/') + 1) {
        p = strchr(scheme + 3, '/');
        if (!p) p = "/";
    }
    char *out = conf_xstrdup(p);
    free(loc);
    return out;
}

int conf_sh(struct case_ctx *ctx, const char *script, char **out, char *why, size_t whylen)
{
    struct rpc_result r = {0};
    int code = rpc_sh(ctx, script, &r);
    if (out) *out = NULL;
    if (code != 0) {
        snprintf(why, whylen, "Execute failed: status %d%s%s", code, r.message ? ": " : "",
                 r.message ? r.message : "");
        rpc_result_free(&r);
        return -1;
    }
    if (out) {
        char *s = conf_xmalloc(r.out_len + 1);
        if (r.out_len) memcpy(s, r.out, r.out_len);
        s[r.out_len] = '\0';
        *out = s;
    }
    int ec = r.exit_code;
    if (ec != 0 && why)
        snprintf(why, whylen, "exit %d, stderr: %.*s", ec, (int)(r.err_len > 300 ? 300 : r.err_len),
                 r.err ? (const char *)r.err : "");
    rpc_result_free(&r);
    return ec;
}

bool conf_health_ok(const char *rest_addr, long timeout_ms, long *status_out, double *secs_out)
{
    struct http_request req = {.method = "GET", .target = "/v1/health", .timeout_ms = timeout_ms};
    struct http_response resp = {0};
    uint64_t t0 = case_now_ms();
    int rc = rest_do_at(rest_addr, &req, &resp);
    if (status_out) *status_out = rc == 0 ? resp.status : 0;
    if (secs_out) *secs_out = (double)(case_now_ms() - t0) / 1000.0;
    bool ok = rc == 0 && resp.status == 200;
    http_response_free(&resp);
    return ok;
}

int conf_path_depth(const char *path)
{
    int n = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p) break;
        n++;
        while (*p && *p != '/')
            p++;
    }
    return n;
}

const char *conf_parse_longs(const char *s, char sep, long *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && *s++ != sep) return NULL;
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno == ERANGE) return NULL;
        out[i] = v;
        s = end;
    }
    return s;
}

const void *conf_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen)
{
    if (!hay || nlen == 0 || hlen < nlen) return NULL;
    return memmem(hay, hlen, needle, nlen);
}
