/* SPDX-License-Identifier: Apache-2.0 */
/* Decoding of request paths and query values (see request_path.h). */
#include "rest/request_path.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fs/resolve.h"
#include "rest/percent_decode.h"
#include "rest/rest_behaviour.h"

int rest_decode_path(const char *raw, char **out, const char **why)
{
    *out = NULL;
    size_t len = strlen(raw);
    if (len > 3 * (FS_PATH_MAX + 1)) {
        *why = "path too long";
        return 400;
    }
    char *dec = malloc(len + 1);
    if (!dec) {
        *why = "out of memory";
        return 500;
    }
    ssize_t n = rest_behaviour->path_decode(raw, len, dec);
    if (n == PCT_INVALID || n == PCT_NUL) {
        free(dec);
        *why = n == PCT_NUL ? "path contains a NUL byte" : "invalid percent-encoding in path";
        return 400;
    }
    int refused = rest_behaviour->path_decoded(dec, why);
    if (refused != 0) {
        free(dec);
        return refused;
    }
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
