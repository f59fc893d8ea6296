/* SPDX-License-Identifier: Apache-2.0 */
/* Findings of a validation and the wording of values and paths in them
 * (see openapi_internal.h). */
#include "openapi_internal.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void openapi_finding_add(struct openapi_violations *out, const char *fmt, ...)
{
    if (out->count == OPENAPI_MAX_VIOLATIONS) {
        out->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    if (s)
        out->items[out->count++] = s;
    else
        out->dropped++;
}

size_t openapi_findings_total(const struct openapi_violations *v)
{
    return v->count + v->dropped;
}

void openapi_violations_free(struct openapi_violations *v)
{
    for (size_t i = 0; i < v->count; i++)
        free(v->items[i]);
    v->count = 0;
    v->dropped = 0;
}

char *openapi_violations_join(const struct openapi_violations *v)
{
    size_t len = 1;
    for (size_t i = 0; i < v->count; i++)
        len += strlen(v->items[i]) + 2;
    len += 40;
    char *s = malloc(len);
    if (!s) return NULL;
    s[0] = '\0';
    for (size_t i = 0; i < v->count; i++) {
        if (i) strcat(s, "; ");
        strcat(s, v->items[i]);
    }
    if (v->dropped) snprintf(s + strlen(s), 40, "; and %zu more", v->dropped);
    return s;
}

/* Moves the findings of src into dst. */
void openapi_findings_merge(struct openapi_violations *dst, struct openapi_violations *src)
{
    for (size_t i = 0; i < src->count; i++) {
        if (dst->count < OPENAPI_MAX_VIOLATIONS)
            dst->items[dst->count++] = src->items[i];
        else {
            free(src->items[i]);
            dst->dropped++;
        }
    }
    dst->dropped += src->dropped;
    src->count = 0;
    src->dropped = 0;
}

/* ---- Rendering ----------------------------------------------------------- */

/* A short rendering of a value for messages: strings in single quotes. */
void openapi_render_value(const json_t *v, char *buf, size_t len)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        size_t o = 0;
        if (len < 8) {
            buf[0] = '\0';
            return;
        }
        buf[o++] = '\'';
        for (size_t i = 0; i < n && o + 6 < len; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c < 0x20 || c == 0x7f)
                o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
            else
                buf[o++] = (char)c;
            if (i + 1 < n && o + 6 >= len) {
                memcpy(buf + o, "...", 3);
                o += 3;
                break;
            }
        }
        buf[o++] = '\'';
        buf[o] = '\0';
        return;
    }
    char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!d) {
        snprintf(buf, len, "?");
        return;
    }
    if (strlen(d) >= len && len > 4)
        snprintf(buf, len, "%.*s...", (int)(len - 4), d);
    else
        snprintf(buf, len, "%s", d);
    free(d);
}

const char *openapi_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        return "null";
    }
    return "?";
}

/* Appends ".name" or "[\"name\"]" / "[i]" to a JSON path. */
void openapi_path_key(char *dst, size_t len, const char *base, const char *key)
{
    bool ident = (isalpha((unsigned char)key[0]) || key[0] == '_');
    for (const char *p = key; *p && ident; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') ident = false;
    if (ident)
        snprintf(dst, len, "%s.%s", base, key);
    else
        snprintf(dst, len, "%s[\"%s\"]", base, key);
}
