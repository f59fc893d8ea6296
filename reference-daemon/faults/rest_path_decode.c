/* SPDX-License-Identifier: Apache-2.0 */
/* The path-decoding faults and variants of the fault build (see
 * rest_path_decode.h). Each acts while its fault is on and otherwise calls
 * rest_real. */
#include "rest_path_decode.h"

#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "rest/percent_decode.h"

/* slash-not-separator: "%2F" kept literal ("%2F" becomes "%252F", which
 * decodes to the three bytes "%2F"). */
static char *protect_encoded_slashes(const char *raw)
{
    size_t n = strlen(raw);
    char *out = malloc(n * 3 + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (raw[i] == '%' && raw[i + 1] == '2' && (raw[i + 2] == 'F' || raw[i + 2] == 'f')) {
            memcpy(out + o, "%25", 3);
            o += 3;
            continue;
        }
        out[o++] = raw[i];
    }
    out[o] = '\0';
    return out;
}

/* slash-not-separator, plus-as-space: the raw path as the broken daemon
 * reads it before decoding (a malloc'd string, NULL when out of memory).
 * It decodes to no more bytes than in[0..len) does. */
static char *raw_as_read(const char *in, size_t len)
{
    char *raw = strndup(in, len);
    if (!raw || !fault_active(FAULT_SLASH_NOT_SEPARATOR)) return raw;
    char *src = protect_encoded_slashes(raw);
    free(raw);
    return src;
}

static void plus_as_space(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '+') *p = ' ';
}

/* nul-truncate: a decoded NUL ends the path instead of failing. The first
 * "%00" is that NUL's escape: everything before it decoded, so it cannot sit
 * inside an earlier escape. */
static ssize_t decode_truncating(const char *in, size_t len, char *out)
{
    ssize_t n = pct_decode(in, len, out);
    if (n != PCT_NUL) return n;
    const char *nul = memmem(in, len, "%00", 3);
    return nul ? pct_decode(in, (size_t)(nul - in), out) : n;
}

/* The raw path's faults above, then nul-truncate; decode-twice: a decoded
 * path that decodes again is decoded again. */
ssize_t fault_path_decode(const char *in, size_t len, char *out)
{
    char *raw = NULL;
    if (fault_active(FAULT_SLASH_NOT_SEPARATOR) || fault_active(FAULT_PLUS_AS_SPACE)) {
        raw = raw_as_read(in, len);
        if (!raw) return PCT_INVALID;
        if (fault_active(FAULT_PLUS_AS_SPACE)) plus_as_space(raw);
        in = raw;
        len = strlen(raw);
    }
    ssize_t n = fault_active(FAULT_NUL_TRUNCATE) ? decode_truncating(in, len, out)
                                                 : rest_real.path_decode(in, len, out);
    free(raw);
    if (n < 0 || !fault_active(FAULT_DECODE_TWICE)) return n;
    char *again = malloc((size_t)n + 1);
    ssize_t m = again ? pct_decode(out, (size_t)n, again) : -1;
    if (m >= 0) {
        memcpy(out, again, (size_t)m + 1);
        n = m;
    }
    free(again);
    return n;
}

/* variant-literal-400: a backslash or an overlong UTF-8 sequence (a lead
 * byte C0/C1, E0 80-9F, F0 80-8F) refused instead of taken literally. */
static bool refused_literal(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == 0xc0 || *p == 0xc1) return true;
        if ((*p == 0xe0 && p[1] >= 0x80 && p[1] <= 0x9f) ||
            (*p == 0xf0 && p[1] >= 0x80 && p[1] <= 0x8f))
            return true;
    }
    return false;
}

/* backslash-separator: '\' taken as '/'. */
int fault_path_decoded(char *path, const char **why)
{
    if (fault_active(FAULT_VARIANT_LITERAL_400) && refused_literal(path)) {
        *why = "backslashes and overlong UTF-8 are not accepted in names";
        return 400;
    }
    if (fault_active(FAULT_BACKSLASH_SEPARATOR))
        for (char *p = path; *p; p++)
            if (*p == '\\') *p = '/';
    return rest_real.path_decoded(path, why);
}
