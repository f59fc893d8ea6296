/* SPDX-License-Identifier: Apache-2.0 */
/* multipart-quoted-literal (rest_multipart.h): a quoted boundary="..."
 * parameter keeps its quotes, so the body never matches. Otherwise
 * rest_real's reader. */
#include "rest_multipart.h"

#include <string.h>
#include <strings.h>

#include "fault.h"
#include "rest/multipart.h"
#include "rest/rest_behaviour.h"

/* Copies the raw value of a quoted boundary parameter, quotes included, up
 * to the next ';' or blank. False when there is none. */
static bool quoted_boundary(const char *ct, char *out, size_t cap)
{
    for (const char *p = strchr(ct, ';'); p; p = strchr(p + 1, ';')) {
        const char *k = p + 1;
        while (*k == ' ' || *k == '\t')
            k++;
        if (strncasecmp(k, "boundary", 8) != 0) continue;
        const char *v = k + 8;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != '=') continue;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != '"') return false;
        size_t o = 0;
        while (*v && *v != ';' && *v != ' ' && *v != '\t') {
            if (o + 1 < cap) out[o++] = *v;
            v++;
        }
        out[o] = '\0';
        return true;
    }
    return false;
}

struct multipart *fault_multipart_begin(const char *content_type)
{
    char boundary[72];
    if (fault_active(FAULT_MULTIPART_QUOTED_LITERAL) && multipart_is_form_data(content_type) &&
        quoted_boundary(content_type, boundary, sizeof(boundary)))
        return multipart_new_boundary(boundary);
    return rest_real.multipart_begin(content_type);
}
