/* SPDX-License-Identifier: Apache-2.0 */
/* The user's request headers: parsing, the names no user may set, secrecy,
 * and the process's list the clients read (see request_headers.h). */
#include "request_headers.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    MAX_NAME = 128,
    MAX_VALUE = 8192,
    MAX_FILE = 256 * 1024,
};

/* Names the suite or HTTP/2 itself fixes: a user value would break the
 * framing, the gRPC protocol, or what the cases check. Connection-specific
 * names are refused too: HTTP/2 forbids them (RFC 9113 8.2.2). */
static const char *const reserved[] = {
    "host",       "content-length",   "transfer-encoding", "connection", "content-type", "te",
    "keep-alive", "proxy-connection", "upgrade",           "expect",     "trailer",      NULL,
};

static const char *const always_secret[] = {"authorization", "cookie", "proxy-authorization", NULL};

static bool is_tchar(unsigned char c)
{
    return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool name_in(const char *name, size_t len, const char *const *list)
{
    for (const char *const *p = list; *p; p++)
        if (strlen(*p) == len && strncasecmp(*p, name, len) == 0) return true;
    return false;
}

static bool is_reserved(const char *name, size_t len)
{
    return name_in(name, len, reserved) || (len >= 5 && strncasecmp(name, "grpc-", 5) == 0);
}

int request_headers_add(struct request_headers *h, const char *text, size_t len, unsigned surfaces,
                        char *err, size_t err_len)
{
    const char *colon = memchr(text, ':', len);
    const char *nul = memchr(text, '\0', len);
    /* A pseudo-header (":authority") starts with the colon. */
    if (colon == text) {
        size_t nl = 1;
        while (nl < len && is_tchar((unsigned char)text[nl]))
            nl++;
        nl--;
        snprintf(err, err_len,
                 "header ':%.*s' is an HTTP/2 pseudo-header the suite sets itself; it cannot be "
                 "given",
                 (int)(nl < 40 ? nl : 40), text + 1);
        return -1;
    }
    if (!colon) {
        snprintf(err, err_len, "a header wants 'Name: value' and this one has no colon");
        return -1;
    }
    size_t nl = (size_t)(colon - text);
    if (nul && nul < colon) {
        snprintf(err, err_len, "a header name contains a NUL byte");
        return -1;
    }
    for (size_t i = 0; i < nl; i++) {
        if (!is_tchar((unsigned char)text[i])) {
            snprintf(err, err_len,
                     "header name '%.*s' is not a valid HTTP field name (letters, digits and "
                     "!#$%%&'*+-.^_`|~ only; no spaces)",
                     (int)(nl < 60 ? nl : 60), text);
            for (char *p = err; *p; p++)
                if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f) *p = '?';
            return -1;
        }
    }
    if (nl == 0 || nl > MAX_NAME) {
        snprintf(err, err_len, "a header name must have 1 to %d characters", MAX_NAME);
        return -1;
    }
    if (is_reserved(text, nl)) {
        snprintf(err, err_len,
                 "header '%.*s' is reserved: the suite sets it (or HTTP/2 forbids it) on every "
                 "request and a user value would change what the cases check",
                 (int)nl, text);
        return -1;
    }
    /* The value: blanks around it are not part of it (RFC 9110 5.5). */
    const char *v = colon + 1, *end = text + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    for (const char *p = v; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\0' || c == '\r' || c == '\n' || (c < 0x20 && c != '\t') || c == 0x7f) {
            snprintf(err, err_len,
                     "the value of header '%.*s' contains %s (a header is one line of text)",
                     (int)nl, text,
                     c == '\0'   ? "a NUL byte"
                     : c == '\n' ? "a newline"
                     : c == '\r' ? "a carriage return"
                                 : "a control character");
            return -1;
        }
    }
    if (end == v) {
        snprintf(err, err_len, "header '%.*s' has an empty value", (int)nl, text);
        return -1;
    }
    if ((size_t)(end - v) > MAX_VALUE) {
        snprintf(err, err_len, "the value of header '%.*s' is longer than %d bytes", (int)nl, text,
                 MAX_VALUE);
        return -1;
    }
    if (h->n == REQUEST_HEADERS_MAX) {
        snprintf(err, err_len, "at most %d headers", REQUEST_HEADERS_MAX);
        return -1;
    }
    struct request_header *e = &h->v[h->n];
    e->name = strndup(text, nl);
    e->lower = strndup(text, nl);
    e->value = strndup(v, (size_t)(end - v));
    e->surfaces = surfaces;
    if (!e->name || !e->lower || !e->value) {
        free(e->name);
        free(e->lower);
        free(e->value);
        memset(e, 0, sizeof *e);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (char *p = e->lower; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    h->n++;
    return 0;
}

int request_headers_add_file(struct request_headers *h, const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "--header-file %s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(MAX_FILE + 1);
    size_t len = buf ? fread(buf, 1, MAX_FILE + 1, f) : 0;
    bool failed = !buf || ferror(f);
    fclose(f);
    if (buf) buf[len < MAX_FILE ? len : MAX_FILE] = '\0';
    if (failed || len > MAX_FILE) {
        snprintf(err, err_len, "--header-file %s: %s", path,
                 failed ? "cannot be read" : "larger than 256 KiB");
        free(buf);
        return -1;
    }
    int rc = 0;
    size_t lineno = 0;
    for (size_t at = 0; at < len && rc == 0;) {
        const char *line = buf + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + 1;
        lineno++;
        if (n && line[n - 1] == '\r') n--;
        size_t lead = 0;
        while (lead < n && (line[lead] == ' ' || line[lead] == '\t'))
            lead++;
        if (lead == n || line[lead] == '#') continue;
        char why[300];
        if (request_headers_add(h, line + lead, n - lead, REQUEST_BOTH, why, sizeof why) != 0) {
            snprintf(err, err_len, "--header-file %s line %zu: %s", path, lineno, why);
            rc = -1;
        }
    }
    free(buf);
    return rc;
}

int request_headers_mark_secret(struct request_headers *h, const char *name, char *err,
                                size_t err_len)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < n; i++)
        if (!is_tchar((unsigned char)name[i])) n = 0;
    if (n == 0 || n > MAX_NAME) {
        snprintf(err, err_len, "--secret-header wants a header name, got '%.60s'", name);
        return -1;
    }
    if (h->n_secret == REQUEST_HEADERS_MAX) {
        snprintf(err, err_len, "at most %d --secret-header options", REQUEST_HEADERS_MAX);
        return -1;
    }
    char *s = strdup(name);
    if (!s) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (char *p = s; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    h->secret[h->n_secret++] = s;
    return 0;
}

static bool secret_n(const struct request_headers *h, const char *name, size_t len)
{
    if (name_in(name, len, always_secret)) return true;
    for (size_t i = 0; h && i < h->n_secret; i++)
        if (strlen(h->secret[i]) == len && strncasecmp(h->secret[i], name, len) == 0) return true;
    return false;
}

bool request_headers_is_secret(const struct request_headers *h, const char *name)
{
    return secret_n(h, name, strlen(name));
}

void request_headers_free(struct request_headers *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->v[i].name);
        free(h->v[i].lower);
        free(h->v[i].value);
    }
    for (size_t i = 0; i < h->n_secret; i++)
        free(h->secret[i]);
    memset(h, 0, sizeof *h);
}

/* ---- the options ------------------------------------------------------------ */

static const struct {
    const char *name;
    unsigned surfaces; /* 0: not a header value */
} options[] = {
    {"--header", REQUEST_BOTH}, {"--rest-header", REQUEST_REST}, {"--grpc-header", REQUEST_GRPC},
    {"--header-file", 0},       {"--secret-header", 0},
};

int request_headers_option(struct request_headers *h, const char *name, const char *val, char *err,
                           size_t err_len)
{
    if (strcmp(name, "--header-file") == 0)
        return request_headers_add_file(h, val, err, err_len) == 0 ? 1 : -1;
    if (strcmp(name, "--secret-header") == 0)
        return request_headers_mark_secret(h, val, err, err_len) == 0 ? 1 : -1;
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        if (strcmp(name, options[i].name) != 0) continue;
        char why[300];
        if (request_headers_add(h, val, strlen(val), options[i].surfaces, why, sizeof why) != 0) {
            snprintf(err, err_len, "%s: %s", name, why);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* "Name: value" -> "Name: <redacted>" when Name is secret; NULL otherwise. */
static char *redacted_value(const struct request_headers *h, const char *text)
{
    const char *colon = strchr(text, ':');
    if (!colon || !secret_n(h, text, (size_t)(colon - text))) return NULL;
    size_t nl = (size_t)(colon - text);
    char *out = malloc(nl + sizeof ": " REQUEST_HEADER_REDACTED);
    if (out) sprintf(out, "%.*s: %s", (int)nl, text, REQUEST_HEADER_REDACTED);
    return out;
}

char **request_headers_redact_argv(const struct request_headers *h, int argc, char **argv)
{
    char **out = calloc((size_t)argc + 1, sizeof *out);
    if (!out) return NULL;
    bool next_is_header = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        char *copy = NULL;
        if (next_is_header) {
            copy = redacted_value(h, a);
            next_is_header = false;
        } else {
            for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
                if (!options[k].surfaces) continue;
                size_t ol = strlen(options[k].name);
                if (strcmp(a, options[k].name) == 0) {
                    next_is_header = true;
                } else if (strncmp(a, options[k].name, ol) == 0 && a[ol] == '=') {
                    char *r = redacted_value(h, a + ol + 1);
                    if (r) {
                        copy = malloc(ol + 1 + strlen(r) + 1);
                        if (copy) sprintf(copy, "%s=%s", options[k].name, r);
                        free(r);
                    }
                }
            }
        }
        out[i] = copy ? copy : strdup(a);
        if (!out[i]) {
            request_headers_free_argv(out);
            return NULL;
        }
    }
    return out;
}

void request_headers_free_argv(char **argv)
{
    if (!argv) return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

/* ---- the process's list ----------------------------------------------------- */

static const struct request_headers *active;
static struct sbx_grpc_header_kv grpc_kv[REQUEST_HEADERS_MAX];
static size_t n_grpc_kv;
static char *rest_line[REQUEST_HEADERS_MAX]; /* "Name: value" per REST entry, else NULL */

void request_headers_use(const struct request_headers *h)
{
    for (size_t i = 0; i < REQUEST_HEADERS_MAX; i++) {
        free(rest_line[i]);
        rest_line[i] = NULL;
    }
    n_grpc_kv = 0;
    active = h && h->n ? h : NULL;
    for (size_t i = 0; active && i < active->n; i++) {
        const struct request_header *e = &active->v[i];
        if (e->surfaces & REQUEST_GRPC)
            grpc_kv[n_grpc_kv++] = (struct sbx_grpc_header_kv){e->lower, e->value};
        if (e->surfaces & REQUEST_REST) {
            rest_line[i] = malloc(strlen(e->name) + strlen(e->value) + 3);
            if (rest_line[i]) sprintf(rest_line[i], "%s: %s", e->name, e->value);
        }
    }
}

const struct request_headers *request_headers_active(void)
{
    return active;
}

/* True when a "Name: value" line (or a line of a block) names name. */
static bool line_names(const char *line, size_t line_len, const char *name)
{
    size_t nl = strlen(name);
    return line_len > nl && line[nl] == ':' && strncasecmp(line, name, nl) == 0;
}

const char **request_headers_rest_lines(const char *const *own)
{
    const char **out = calloc(REQUEST_HEADERS_MAX + 1, sizeof *out);
    if (!out) return NULL;
    size_t n = 0;
    for (size_t i = 0; active && i < active->n; i++) {
        if (!rest_line[i]) continue;
        bool taken = false;
        for (const char *const *o = own; o && *o && !taken; o++)
            taken = line_names(*o, strlen(*o), active->v[i].name);
        if (!taken) out[n++] = rest_line[i];
    }
    return out;
}

char *request_headers_raw_block(const char *own_block)
{
    size_t cap = 1;
    for (size_t i = 0; active && i < active->n; i++)
        if (rest_line[i]) cap += strlen(rest_line[i]) + 2;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t len = 0;
    for (size_t i = 0; active && i < active->n; i++) {
        if (!rest_line[i]) continue;
        bool taken = false;
        for (const char *l = own_block; l && *l && !taken;) {
            size_t n = strcspn(l, "\r\n");
            taken = line_names(l, n, active->v[i].name);
            l += n;
            l += strspn(l, "\r\n");
        }
        if (taken) continue;
        len += (size_t)sprintf(out + len, "%s\r\n", rest_line[i]);
    }
    out[len] = '\0';
    return out;
}

void request_headers_grpc_opts(struct sbx_grpc_conn_opts *o)
{
    o->extra_headers = n_grpc_kv ? grpc_kv : NULL;
    o->n_extra_headers = n_grpc_kv;
}

void request_headers_scrub(char *text)
{
    static const char mark[] = REQUEST_HEADER_REDACTED;
    for (size_t i = 0; text && active && i < active->n; i++) {
        const struct request_header *e = &active->v[i];
        size_t vl = strlen(e->value);
        if (!secret_n(active, e->name, strlen(e->name)) || vl == 0) continue;
        for (char *at = strstr(text, e->value); at; at = strstr(at, e->value)) {
            /* Never longer than the value it replaces: in place. */
            size_t ml = vl < sizeof mark - 1 ? vl : sizeof mark - 1;
            memcpy(at, mark, ml);
            memmove(at + ml, at + vl, strlen(at + vl) + 1);
            at += ml;
        }
    }
}

char *request_headers_names(unsigned surface)
{
    size_t cap = 1;
    for (size_t i = 0; active && i < active->n; i++)
        cap += strlen(active->v[i].name) + 2;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; active && i < active->n; i++) {
        const struct request_header *e = &active->v[i];
        if (!(e->surfaces & surface)) continue;
        /* A name given twice is named once. */
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = (active->v[k].surfaces & surface) && strcmp(active->v[k].lower, e->lower) == 0;
        if (seen) continue;
        len += (size_t)sprintf(out + len, "%s%s", len ? ", " : "", e->name);
    }
    return out;
}
