/* SPDX-License-Identifier: Apache-2.0 */
/* --metadata-env-prefix in a launch command (see prefix_flag.h). */
#include "metadata/prefix_flag.h"

#include <string.h>

#define FLAG "--metadata-env-prefix"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

bool meta_prefix_in_command(const char *command, char *out, size_t outlen)
{
    size_t fl = strlen(FLAG);
    const char *found = NULL;
    for (const char *p = strstr(command, FLAG); p; p = strstr(p + fl, FLAG)) {
        bool word_start = p == command || is_blank(p[-1]) || p[-1] == '\'' || p[-1] == '"';
        if (word_start && (p[fl] == '=' || is_blank(p[fl]))) found = p;
    }
    if (!found) return false;
    const char *v = found + fl;
    if (*v == '=') {
        v++;
    } else {
        while (is_blank(*v))
            v++;
    }
    char quote = (*v == '\'' || *v == '"') ? *v++ : '\0';
    size_t n = quote ? strcspn(v, quote == '\'' ? "'" : "\"") : strcspn(v, " \t'\"");
    if (n + 1 > outlen) return false;
    memcpy(out, v, n);
    out[n] = '\0';
    return true;
}
