/* Decoding of request paths and query values (see request_path.h). */
#include "rest/request_path.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "fs/resolve.h"
#include "rest/percent_decode.h"

/* Keeps "%2F" literal (the slash-not-separator fault): "%2F" becomes
 * "%252F", which decodes to the three bytes "%2F". */
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

int rest_decode_path(const char *raw, char **out, const char **why)
{
    *out = NULL;
    char *src =
        fault_active(FAULT_SLASH_NOT_SEPARATOR) ? protect_encoded_slashes(raw) : strdup(raw);
    if (!src) {
        *why = "out of memory";
        return 500;
    }
    if (fault_active(FAULT_PLUS_AS_SPACE))
        for (char *p = src; *p; p++)
            if (*p == '+') *p = ' ';
    size_t len = strlen(src);
    if (len > 3 * (FS_PATH_MAX + 1)) {
        free(src);
        *why = "path too long";
        return 400;
    }
    char *dec = malloc(len + 1);
    if (!dec) {
        free(src);
        *why = "out of memory";
        return 500;
    }
    ssize_t n = fault_active(FAULT_NUL_TRUNCATE) ? pct_decode_truncating(src, len, dec)
                                                 : pct_decode(src, len, dec);
    free(src);
    if (n == PCT_INVALID || n == PCT_NUL) {
        free(dec);
        *why = n == PCT_NUL ? "path contains a NUL byte" : "invalid percent-encoding in path";
        return 400;
    }
    if (fault_active(FAULT_DECODE_TWICE)) {
        char *again = malloc((size_t)n + 1);
        if (again && pct_decode(dec, (size_t)n, again) >= 0) {
            free(dec);
            dec = again;
        } else {
            free(again);
        }
    }
    if (fault_active(FAULT_VARIANT_LITERAL_400) && refused_literal(dec)) {
        free(dec);
        *why = "backslashes and overlong UTF-8 are not accepted in names";
        return 400;
    }
    if (fault_active(FAULT_BACKSLASH_SEPARATOR))
        for (char *p = dec; *p; p++)
            if (*p == '\\') *p = '/';
    if (strlen(dec) > FS_PATH_MAX) {
        free(dec);
        *why = "path too long";
        return 400;
    }
    *out = dec;
    return 0;
}

int rest_decode_query(const char *raw, char **out)
{
    *out = NULL;
    if (!raw) return 0;
    size_t len = strlen(raw);
    char *dec = malloc(len + 1);
    if (!dec) return 500;
    if (pct_decode(raw, len, dec) < 0) {
        free(dec);
        return 400;
    }
    *out = dec;
    return 0;
}
