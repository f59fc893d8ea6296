/* SPDX-License-Identifier: Apache-2.0 */
/* Validation of the query parameters of /v1/files (see request_params.h). */
#include "rest/request_params.h"

#include <string.h>

int parse_file_mode(const char *s, mode_t *out)
{
    if (!s || !*s) {
        *out = SBX_DEFAULT_FILE_MODE;
        return 0;
    }
    if (strlen(s) != 4 || s[0] != '0') return -1;
    mode_t m = 0;
    for (int i = 1; i < 4; i++) {
        if (s[i] < '0' || s[i] > '7') return -1;
        m = (mode_t)(m * 8 + (mode_t)(s[i] - '0'));
    }
    *out = m;
    return 0;
}

int parse_recursive(const char *s, bool *out)
{
    static const char *const yes[] = {"true", "1", "t", "T", "TRUE", "True"};
    static const char *const no[] = {"false", "0", "f", "F", "FALSE", "False"};
    if (!s || !*s) {
        *out = false;
        return 0;
    }
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcmp(s, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcmp(s, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}
