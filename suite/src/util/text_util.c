/* SPDX-License-Identifier: Apache-2.0 */
/* Text helpers: sanitising bytes for reports, escaping for XML/Markdown. */
#include "text_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of a valid UTF-8 sequence starting at p (1..4), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n > avail) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    /* Reject overlong forms, surrogates and values beyond Unicode. */
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return 0;
    return n;
}

char *text_sanitize(const void *data, size_t len, size_t max, bool keep_newlines)
{
    const unsigned char *p = data;
    if (!p) len = 0;
    size_t cap = (max < len * 4 ? max : len * 4) + 64;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t o = 0, i = 0;
    while (i < len) {
        size_t n = utf8_seq_len(p + i, len - i);
        char tmp[8];
        size_t tl;
        bool printable = p[i] >= 0x20 && p[i] != 0x7F;
        bool kept = keep_newlines && (p[i] == '\n' || p[i] == '\t');
        if (n == 1 && (printable || kept)) {
            tmp[0] = (char)p[i];
            tl = 1;
        } else if (n == 1 && p[i] == '\n') {
            tmp[0] = '\\';
            tmp[1] = 'n';
            tl = 2;
        } else if (n > 1) {
            memcpy(tmp, p + i, n);
            tl = n;
        } else {
            snprintf(tmp, sizeof tmp, "\\x%02X", p[i]);
            tl = 4;
            n = 1;
        }
        if (o + tl > max) break;
        memcpy(out + o, tmp, tl);
        o += tl;
        i += n;
    }
    out[o] = '\0';
    if (i < len) {
        char tail[64];
        int tn = snprintf(tail, sizeof tail, "... (%zu bytes total)", len);
        char *grown = realloc(out, o + (size_t)tn + 1);
        if (!grown) return out;
        out = grown;
        memcpy(out + o, tail, (size_t)tn + 1);
    }
    return out;
}

char *text_vfmt(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) return NULL;
    return s;
}

char *text_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = text_vfmt(fmt, ap);
    va_end(ap);
    return s;
}

void text_write_xml(FILE *f, const char *s)
{
    if (!s) return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            /* XML 1.0 forbids most control characters even as references. */
            if (*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
                fputc('?', f);
            else
                fputc(*p, f);
        }
    }
}

void text_write_md_cell(FILE *f, const char *s)
{
    if (!s) return;
    for (const char *p = s; *p; p++) {
        if (*p == '|')
            fputs("\\|", f);
        else if (*p == '\n')
            fputs("<br>", f);
        else if (*p == '<')
            fputs("&lt;", f);
        else if (*p == '>')
            fputs("&gt;", f);
        else
            fputc(*p, f);
    }
}

size_t text_list_next(const char **cursor, const char **item)
{
    const char *p = *cursor ? *cursor : "";
    for (;;) {
        while (*p == ',' || *p == ' ')
            p++;
        if (!*p) break;
        const char *e = p;
        while (*e && *e != ',')
            e++;
        const char *t = e;
        while (t > p && t[-1] == ' ')
            t--;
        *cursor = e;
        if (t > p) {
            *item = p;
            return (size_t)(t - p);
        }
        p = e;
    }
    *cursor = p;
    *item = p;
    return 0;
}

bool text_list_has(const char *list, const char *item)
{
    if (!list || !item) return false;
    size_t il = strlen(item);
    const char *cur = list, *it;
    for (size_t n; (n = text_list_next(&cur, &it)) != 0;)
        if (n == il && strncmp(it, item, il) == 0) return true;
    return false;
}

char text_clause_group(const char *clauses)
{
    if (!clauses) return '?';
    while (*clauses == ' ')
        clauses++;
    return *clauses ? *clauses : '?';
}
