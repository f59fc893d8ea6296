/* SPDX-License-Identifier: Apache-2.0 */
/* Workspace inspection through Execute (see files_util.h). */
#include "files/files_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"

char *fx_sh(struct case_ctx *ctx, const char *script, const char *purpose)
{
    struct rpc_result r;
    if (!pu_sh_ok(ctx, script, purpose, &r)) {
        rpc_result_free(&r);
        return NULL;
    }
    char *out = malloc(r.out_len + 1);
    if (out) {
        if (r.out_len) memcpy(out, r.out, r.out_len);
        size_t n = r.out_len;
        while (n > 0 && out[n - 1] == '\n')
            n--;
        out[n] = '\0';
    }
    rpc_result_free(&r);
    return out;
}

char *fx_quote(const char *s)
{
    size_t n = 2;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = malloc(n + 1);
    if (!q) return NULL;
    char *o = q;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

int fx_mode(struct case_ctx *ctx, const char *rel)
{
    char *q = fx_quote(rel);
    char *script = NULL;
    if (!q || asprintf(&script, "stat -c %%a %s", q) < 0) {
        free(q);
        case_error(ctx, "out of memory");
        return -1;
    }
    free(q);
    char *out = fx_sh(ctx, script, "stat -c %a of the stored file succeeds");
    free(script);
    if (!out) return -1;
    char *end;
    long m = strtol(out, &end, 8);
    int mode = (*out && *end == '\0' && m >= 0) ? (int)m : -1;
    if (mode < 0) case_error(ctx, "stat -c %%a printed '%s'", out);
    free(out);
    return mode;
}
