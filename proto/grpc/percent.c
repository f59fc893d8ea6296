/* SPDX-License-Identifier: Apache-2.0 */
/* grpc-message percent-encoding (gRPC over HTTP/2, "Responses"). */
#include <stdlib.h>

#include "sbx_grpc_wire.h"

static const char hexdig[] = "0123456789ABCDEF";

static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c > 0x7E || c == '%';
}

char *sbx_grpc_percent_encode(const char *msg, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += needs_escape((unsigned char)msg[i]) ? 3 : 1;
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)msg[i];
        if (needs_escape(c)) {
            out[o++] = '%';
            out[o++] = hexdig[c >> 4];
            out[o++] = hexdig[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
    return out;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *sbx_grpc_percent_decode(const char *s, size_t len, size_t *out_len)
{
    char *out = malloc(len + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '%' && i + 2 < len && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            out[o++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    if (out_len) *out_len = o;
    return out;
}
