/* SPDX-License-Identifier: Apache-2.0 */
/* Template expansion: a vector's placeholders ({pf}, {up}, ...) replaced by
 * the run's canary names and the depths of the case directory. */
#include "confinement/traversal_internal.h"

#include "confinement/traversal.h"

#include "case_api.h"
#include "data_dir.h"
#include "rest_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Joins the components of an absolute or relative path, percent-encoding
 * each, with sep between them. */
static void add_joined(struct sbuf *out, const char *path, const char *sep)
{
    bool first = true;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p) break;
        size_t n = strcspn(p, "/");
        char *comp = conf_xasprintf("%.*s", (int)n, p);
        char *enc = conf_pct_encode(comp, true);
        if (!first) sbuf_puts(out, sep);
        sbuf_puts(out, enc);
        free(enc);
        free(comp);
        first = false;
        p += n;
    }
}

static void add_name(struct sbuf *out, const char *name)
{
    char *enc = conf_pct_encode(name, true);
    sbuf_puts(out, enc);
    free(enc);
}

static void add_repeat(struct sbuf *out, int n, const char *seg, size_t seglen)
{
    for (int i = 0; i < n; i++)
        sbuf_add(out, seg, seglen);
}

/* Expands one template. Returns 0, or -1 with err for an unknown
 * placeholder. *needs gets bit 1 for parent canaries, 2 for /tmp, 4 when
 * the path names a canary file or directory. */
int trav_expand(const char *tmpl, const struct expand_env *e, char **out, unsigned *needs,
                char *err, size_t errlen)
{
    struct sbuf b = {0};
    *needs = 0;
    const char *p = tmpl;
    while (*p) {
        if (*p != '{') {
            sbuf_add(&b, p, 1);
            p++;
            continue;
        }
        const char *close = strchr(p, '}');
        if (!close) {
            snprintf(err, errlen, "unterminated placeholder in \"%s\"", tmpl);
            sbuf_free(&b);
            return -1;
        }
        char *ph = conf_xasprintf("%.*s", (int)(close - p - 1), p + 1);
        char *arg = strchr(ph, ':');
        if (arg) *arg++ = '\0';
        int bad = 0;
        if (strcmp(ph, "pf") == 0)
            add_name(&b, e->nm.pf), *needs |= 1 | 4;
        else if (strcmp(ph, "pd") == 0)
            add_name(&b, e->nm.pd), *needs |= 1 | 4;
        else if (strcmp(ph, "pi") == 0)
            add_name(&b, e->nm.pi), *needs |= 1 | 4;
        else if (strcmp(ph, "sf") == 0)
            add_name(&b, e->nm.sf), *needs |= 1 | 4;
        else if (strcmp(ph, "sib") == 0)
            add_name(&b, e->nm.sib), *needs |= 1 | 4;
        else if (strcmp(ph, "tf") == 0)
            add_name(&b, e->nm.tf), *needs |= 2 | 4;
        else if (strcmp(ph, "in") == 0)
            add_name(&b, e->nm.in);
        else if (strcmp(ph, "pabs") == 0)
            add_joined(&b, e->c->parent, arg ? arg : "/"), *needs |= 1;
        else if (strcmp(ph, "cd") == 0)
            add_joined(&b, e->case_dir, arg ? arg : "/");
        else if (arg &&
                 (strncmp(ph, "up", 2) == 0 || strcmp(ph, "top") == 0 || strcmp(ph, "root") == 0)) {
            int n = strcmp(ph, "top") == 0 ? e->top : strcmp(ph, "root") == 0 ? e->up - 1 : e->up;
            if (strncmp(ph, "up", 2) == 0 && ph[2]) {
                char *end;
                long k = strtol(ph + 2, &end, 10);
                if (*end || (ph[2] != '+' && ph[2] != '-')) bad = 1;
                n += (int)k;
            }
            if (n < 0) n = 0;
            add_repeat(&b, n, arg, strlen(arg));
        } else if (strcmp(ph, "rep") == 0 && arg) {
            char *end;
            long n = strtol(arg, &end, 10);
            if (*end != ':' || n < 0 || n > 100000)
                bad = 1;
            else
                add_repeat(&b, (int)n, end + 1, strlen(end + 1));
        } else
            bad = 1;
        if (bad) {
            snprintf(err, errlen, "unknown placeholder {%s%s%s} in \"%s\"", ph, arg ? ":" : "",
                     arg ? arg : "", tmpl);
            free(ph);
            sbuf_free(&b);
            return -1;
        }
        free(ph);
        p = close + 1;
    }
    *out = sbuf_take(&b);
    return 0;
}
