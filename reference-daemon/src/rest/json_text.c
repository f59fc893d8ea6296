/* SPDX-License-Identifier: Apache-2.0 */
/* JSON strings from arbitrary bytes (see json_text.h). */
#include "rest/json_text.h"

#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0 when it is invalid
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t n;
    unsigned cp;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

json_t *json_text(const char *bytes)
{
    size_t len = strlen(bytes);
    char *out = malloc(len * 3 + 1);
    if (!out) return NULL;
    const unsigned char *s = (const unsigned char *)bytes;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq(s + i);
        if (n == 0) { /* U+FFFD REPLACEMENT CHARACTER */
            static const unsigned char replacement[] = {0xef, 0xbf, 0xbd};
            memcpy(out + o, replacement, sizeof replacement);
            o += sizeof replacement;
            i++;
            continue;
        }
        memcpy(out + o, s + i, n);
        o += n;
        i += n;
    }
    json_t *j = json_stringn(out, o);
    free(out);
    return j;
}
