/* SPDX-License-Identifier: Apache-2.0 */
/* Body-length framing checks (see request_framing.h). */
#include "rest/request_framing.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rest/http_response.h"

struct framing {
    unsigned n_length; /* Content-Length fields and list members */
    unsigned n_coding; /* Transfer-Encoding fields */
    bool bad_length;   /* not digits, or above 2^63-1 */
    bool lengths_differ;
    bool coding_unknown; /* anything but exactly "chunked" */
    uint64_t length;
};

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* One member of a Content-Length list: digits only, at most 2^63-1. */
static void add_length(struct framing *f, const char *s, size_t n)
{
    while (n && is_space(*s))
        s++, n--;
    while (n && is_space(s[n - 1]))
        n--;
    uint64_t v = 0;
    bool ok = n > 0;
    for (size_t i = 0; ok && i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            ok = false;
        else
            v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (!ok) f->bad_length = true;
    if (f->n_length++ && v != f->length) f->lengths_differ = true;
    f->length = v;
}

static enum MHD_Result on_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    (void)kind;
    struct framing *f = cls;
    if (!value) value = "";
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        for (const char *p = value;;) {
            const char *comma = strchr(p, ',');
            add_length(f, p, comma ? (size_t)(comma - p) : strlen(p));
            if (!comma) break;
            p = comma + 1;
        }
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        while (is_space(*value))
            value++;
        size_t n = strlen(value);
        while (n && is_space(value[n - 1]))
            n--;
        if (f->n_coding++ || n != 7 || strncasecmp(value, "chunked", 7) != 0)
            f->coding_unknown = true;
    }
    return MHD_YES;
}

bool request_framing_refused(struct MHD_Connection *c, enum MHD_Result *ret)
{
    struct framing f = {0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, on_header, &f);
    if (f.n_coding && f.n_length)
        *ret = rest_reply_error_close(c, 400, "both Content-Length and Transfer-Encoding");
    else if (f.coding_unknown)
        *ret = rest_reply_error_close(c, 501, "unsupported Transfer-Encoding (only chunked)");
    else if (f.bad_length)
        *ret = rest_reply_error_close(c, 400, "invalid Content-Length");
    else if (f.lengths_differ)
        *ret = rest_reply_error_close(c, 400, "conflicting Content-Length values");
    else
        return false;
    return true;
}
