/* SPDX-License-Identifier: Apache-2.0 */
/* Probes of the sandbox root around the traversal vectors: the fixture,
 * what a PUT left at the top of the root (and its removal), whether a PUT
 * landed literally, and the host secret a traversal must never return. */
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

bool trav_body_has_fixture(const struct trav_run *run, const struct http_response *resp)
{
    return conf_memmem(resp->body, resp->body_len, run->known, strlen(run->known)) ||
           conf_memmem(resp->body, resp->body_len, run->subinner, strlen(run->subinner));
}

bool trav_put_landed_literally(struct case_ctx *ctx, const struct trav_obs *obs, char *why,
                               size_t whylen)
{
    size_t len;
    char *lit = conf_pct_decode_once(obs->rel, &len);
    if (memchr(lit, '\0', len)) {
        snprintf(why, whylen, "the name decodes to bytes with a NUL; no file can hold it");
        free(lit);
        return false;
    }
    char *expr = conf_sh_bytes(lit, len);
    char *script =
        conf_xasprintf("f=%s; if [ -f \"$f\" ]; then cat -- \"$f\"; else exit 3; fi", expr);
    char *out = NULL;
    char err[300];
    int rc = conf_sh(ctx, script, &out, err, sizeof err);
    bool ok = rc == 0 && out && strcmp(out, obs->marker) == 0;
    if (!ok) {
        char *shown = conf_pct_encode(lit, false);
        if (rc == 3)
            snprintf(why, whylen, "no file at the literal name %s inside the case directory",
                     shown);
        else if (rc == 0)
            snprintf(why, whylen, "the file at the literal name %s does not hold the PUT body",
                     shown);
        else
            snprintf(why, whylen, "could not check the literal name %s: %s", shown, err);
        free(shown);
    }
    free(out);
    free(script);
    free(expr);
    free(lit);
    return ok;
}

/* Lays down the in-root fixture. It also removes names of ours at the top
 * of the root: a runtime that normalises a path at the root (legal for raw
 * dot segments and "//") stores a PUT there, and a later vector must not
 * find that copy and take it for the canary outside. */
void trav_fixture_script(struct trav_run *run)
{
    char *qroot = conf_sh_quote(run->canaries.root);
    run->canaries.fixture = conf_xasprintf(
        "mkdir -p sub/sub2 && printf %%s '%s' > known.txt && printf %%s '%s' > sub/inner.txt; "
        "for f in %s/*'%s'* %s/.*'%s'*; do if [ -e \"$f\" ] || [ -L \"$f\" ]; then "
        "rm -rf -- \"$f\"; fi; done",
        run->known, run->subinner, qroot, run->canaries.id, qroot, run->canaries.id);
    free(qroot);
}

/* The names at the top of the root, one a line (NULL if unreadable). */
char *trav_root_names(struct case_ctx *ctx, const struct trav_run *run)
{
    char *q = conf_sh_quote(run->canaries.root);
    char *script = conf_xasprintf("cd -- %s && ls -A", q);
    char *out = NULL;
    char why[200];
    if (conf_sh(ctx, script, &out, why, sizeof why) != 0) {
        free(out);
        out = NULL;
    }
    free(script);
    free(q);
    return out;
}

static bool has_line(const char *lines, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = lines; p && *p;) {
        size_t m = strcspn(p, "\n");
        if (m == n && strncmp(p, name, n) == 0) return true;
        p += m + (p[m] ? 1 : 0);
    }
    return false;
}

/* Removes top-level entries of the root that appeared during the run and
 * hold nothing but directories and names of ours (what a runtime that
 * resolves absolute-looking paths beneath the root made of our PUTs, e.g.
 * <root>/tmp/...), so the workspace is left as it was found. An entry
 * without a name of ours (another client's) is never touched. */
void trav_remove_root_debris(struct case_ctx *ctx, const struct trav_run *run, const char *before)
{
    char *after = trav_root_names(ctx, run);
    if (!before || !after) {
        free(after);
        return;
    }
    char *qroot = conf_sh_quote(run->canaries.root);
    struct sbuf script = {0};
    sbuf_printf(&script, "cd -- %s || exit 0\n", qroot);
    for (const char *p = after; *p;) {
        size_t m = strcspn(p, "\n");
        char *name = conf_xasprintf("%.*s", (int)m, p);
        if (m && !has_line(before, name)) {
            char *q = conf_sh_quote(name);
            sbuf_printf(&script,
                        "if [ -n \"$(find %s -name '*%s*' -print 2>/dev/null | head -n 1)\" ] && "
                        "[ -z \"$(find %s ! -type d ! -name '*%s*' -print 2>/dev/null | head "
                        "-n 1)\" ]; then rm -rf -- %s; fi\n",
                        q, run->canaries.id, q, run->canaries.id, q);
            free(q);
        }
        free(name);
        p += m + (p[m] ? 1 : 0);
    }
    char why[200];
    conf_sh(ctx, script.s ? script.s : "true", NULL, why, sizeof why);
    sbuf_free(&script);
    free(qroot);
    free(after);
}

void trav_read_host_secret(struct case_ctx *ctx, struct trav_run *run)
{
    char *out = NULL;
    char why[200];
    if (conf_sh(ctx, "head -n 1 /etc/passwd", &out, why, sizeof why) == 0 && out &&
        strlen(out) > 8) {
        out[strcspn(out, "\n")] = '\0';
        run->host_secret = out;
        return;
    }
    free(out);
}

/* The request for one vector and method; returns -1 when skipped. */
