/* SPDX-License-Identifier: Apache-2.0 */
/* Streaming multipart/form-data reader (see multipart.h).
 *
 * The body is a sequence of parts, each introduced by CRLF "--" boundary;
 * the first delimiter may omit the CRLF, which is modelled by starting the
 * delimiter match with the CRLF already matched. A boundary never contains
 * CR (RFC 2046), so after a partial match fails, the held-back prefix holds
 * no other possible start of the delimiter and is plain data. */
#include "rest/multipart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BOUNDARY_MAX 70
#define HEADER_LINE_MAX 8192
#define HEADERS_TOTAL_MAX 16384

enum state {
    S_PREAMBLE,    /* before the first delimiter: discarded */
    S_AFTER_DELIM, /* just after a delimiter: "--" ends, CRLF starts headers */
    S_AFTER_DASH,  /* saw one '-' after a delimiter */
    S_DELIM_PAD,   /* optional spaces before the CRLF, then expect LF */
    S_HEADERS,     /* header lines of a part */
    S_BODY,        /* part content */
    S_EPILOGUE,    /* after the closing delimiter: discarded */
    S_FAILED,
};

struct multipart {
    enum state state;
    int error;
    char delim[BOUNDARY_MAX + 5]; /* "\r\n--" boundary */
    size_t delim_len;
    size_t matched; /* bytes of delim matched so far */
    int in_file;    /* the current part is the "file" part */
    int file_seen;  /* a "file" part was completed */
    char line[HEADER_LINE_MAX];
    size_t line_len;
    size_t headers_total;
    int part_is_file; /* decided by the current part's headers */
};

int multipart_is_form_data(const char *ct)
{
    if (!ct) return 0;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    size_t n = strlen("multipart/form-data");
    return strncasecmp(ct, "multipart/form-data", n) == 0 &&
           (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ' || ct[n] == '\t');
}

/* Finds parameter `key` in a header value "x; k=v; k2=\"v2\"" and copies its
 * (unquoted) value into out. Returns 0 when found, -1 when absent, -2 on an
 * unterminated quoted string. */
static int find_param(const char *value, const char *key, char *out, size_t cap)
{
    size_t klen = strlen(key);
    const char *p = strchr(value, ';');
    while (p) {
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        const char *eq = strchr(p, '=');
        const char *semi = strchr(p, ';');
        if (!eq || (semi && semi < eq)) {
            p = semi;
            continue;
        }
        const char *kend = eq;
        while (kend > p && (kend[-1] == ' ' || kend[-1] == '\t'))
            kend--;
        const char *v = eq + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t o = 0;
        const char *next;
        if (*v == '"') {
            v++;
            while (*v && *v != '"') {
                if (*v == '\\' && v[1]) v++;
                if (o + 1 < cap) out[o++] = *v;
                v++;
            }
            if (*v != '"') return -2;
            next = strchr(v + 1, ';');
        } else {
            while (*v && *v != ';' && *v != ' ' && *v != '\t') {
                if (o + 1 < cap) out[o++] = *v;
                v++;
            }
            next = strchr(v, ';');
        }
        out[o] = '\0';
        if ((size_t)(kend - p) == klen && strncasecmp(p, key, klen) == 0) return 0;
        p = next;
    }
    return -1;
}

struct multipart *multipart_new(const char *content_type)
{
    if (!multipart_is_form_data(content_type)) return NULL;
    char boundary[BOUNDARY_MAX + 2];
    if (find_param(content_type, "boundary", boundary, sizeof(boundary)) != 0) return NULL;
    return multipart_new_boundary(boundary);
}

struct multipart *multipart_new_boundary(const char *boundary)
{
    size_t blen = strlen(boundary);
    if (blen == 0 || blen > BOUNDARY_MAX) return NULL;
    for (size_t i = 0; i < blen; i++)
        if (boundary[i] == '\r' || boundary[i] == '\n') return NULL;
    struct multipart *mp = calloc(1, sizeof(*mp));
    if (!mp) return NULL;
    int n = snprintf(mp->delim, sizeof(mp->delim), "\r\n--%s", boundary);
    if (n < 0 || (size_t)n >= sizeof(mp->delim)) { /* cannot happen: blen <= BOUNDARY_MAX */
        free(mp);
        return NULL;
    }
    mp->delim_len = (size_t)n;
    mp->state = S_PREAMBLE;
    mp->matched = 2; /* the first delimiter may start the body */
    return mp;
}

void multipart_free(struct multipart *mp)
{
    free(mp);
}

static int fail(struct multipart *mp, int err)
{
    mp->state = S_FAILED;
    mp->error = err;
    return err;
}

/* One complete header line of a part (without CRLF). */
static int header_line(struct multipart *mp)
{
    mp->line[mp->line_len] = '\0';
    char *colon = strchr(mp->line, ':');
    if (!colon) return MP_MALFORMED;
    *colon = '\0';
    if (strcasecmp(mp->line, "Content-Disposition") != 0) return MP_OK;
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    if (strncasecmp(v, "form-data", 9) != 0) return MP_MALFORMED;
    char name[256];
    int rc = find_param(v, "name", name, sizeof(name));
    if (rc == -2) return MP_MALFORMED;
    if (rc == 0 && strcmp(name, "file") == 0) mp->part_is_file = 1;
    return MP_OK;
}

/* Delivers body bytes of the current part to the callback when it is the
 * first "file" part. */
static int emit(struct multipart *mp, const char *d, size_t n, multipart_data_fn fn, void *user)
{
    if (!mp->in_file || n == 0) return MP_OK;
    return fn(user, d, n) == 0 ? MP_OK : MP_CALLBACK;
}

int multipart_feed(struct multipart *mp, const char *data, size_t len, multipart_data_fn fn,
                   void *user)
{
    size_t i = 0;
    while (i < len) {
        char c = data[i];
        switch (mp->state) {
        case S_FAILED:
            return mp->error;
        case S_EPILOGUE:
            return MP_OK;
        case S_PREAMBLE:
        case S_BODY: {
            if (mp->matched == 0) {
                /* Fast path: everything up to the next CR is content. */
                const char *cr = memchr(data + i, '\r', len - i);
                size_t run = cr ? (size_t)(cr - (data + i)) : len - i;
                if (mp->state == S_BODY && emit(mp, data + i, run, fn, user) != MP_OK)
                    return fail(mp, MP_CALLBACK);
                i += run;
                if (!cr) return MP_OK;
                c = data[i];
            }
            if (c == mp->delim[mp->matched]) {
                mp->matched++;
                i++;
                if (mp->matched == mp->delim_len) {
                    if (mp->in_file) mp->file_seen = 1;
                    mp->in_file = 0;
                    mp->matched = 0;
                    mp->state = S_AFTER_DELIM;
                }
                continue;
            }
            /* Mismatch: the held-back prefix was content after all. The
             * preamble's initial virtual CRLF is not real data. */
            if (mp->state == S_BODY && emit(mp, mp->delim, mp->matched, fn, user) != MP_OK)
                return fail(mp, MP_CALLBACK);
            mp->matched = 0;
            continue; /* re-examine c from a fresh match */
        }
        case S_AFTER_DELIM:
            if (c == '-') {
                mp->state = S_AFTER_DASH;
            } else if (c == '\r') {
                mp->state = S_DELIM_PAD;
            } else if (c != ' ' && c != '\t') {
                return fail(mp, MP_MALFORMED);
            }
            i++;
            continue;
        case S_AFTER_DASH:
            if (c != '-') return fail(mp, MP_MALFORMED);
            mp->state = S_EPILOGUE;
            i++;
            continue;
        case S_DELIM_PAD:
            if (c != '\n') return fail(mp, MP_MALFORMED);
            mp->state = S_HEADERS;
            mp->line_len = 0;
            mp->headers_total = 0;
            mp->part_is_file = 0;
            i++;
            continue;
        case S_HEADERS:
            i++;
            if (++mp->headers_total > HEADERS_TOTAL_MAX) return fail(mp, MP_MALFORMED);
            if (c == '\n') {
                if (mp->line_len == 0 || mp->line[mp->line_len - 1] != '\r')
                    return fail(mp, MP_MALFORMED);
                mp->line_len--;
                if (mp->line_len == 0) {
                    /* End of headers: the first "file" part is stored. */
                    mp->in_file = mp->part_is_file && !mp->file_seen;
                    mp->state = S_BODY;
                    mp->matched = 0;
                    continue;
                }
                int rc = header_line(mp);
                if (rc != MP_OK) return fail(mp, rc);
                mp->line_len = 0;
                continue;
            }
            if (mp->line_len + 1 >= sizeof(mp->line)) return fail(mp, MP_MALFORMED);
            mp->line[mp->line_len++] = c;
            continue;
        }
    }
    return MP_OK;
}

int multipart_finish(const struct multipart *mp)
{
    if (mp->state == S_FAILED) return mp->error;
    if (mp->state != S_EPILOGUE) return MP_TRUNCATED;
    return mp->file_seen ? MP_OK : MP_NO_FILE;
}
