/* SPDX-License-Identifier: Apache-2.0 */
/* Percent-decoding of request targets (see percent_decode.h). */
#include "rest/percent_decode.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

ssize_t pct_decode(const char *in, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (c == '%') {
            if (len - i < 3) return PCT_INVALID;
            int hi = hexval(in[i + 1]), lo = hexval(in[i + 2]);
            if (hi < 0 || lo < 0) return PCT_INVALID;
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (c == '\0') return PCT_NUL;
        out[o++] = c;
    }
    out[o] = '\0';
    return (ssize_t)o;
}
