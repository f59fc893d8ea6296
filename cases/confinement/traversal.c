/* Traversal corpus loader (libyaml), template expansion and the driver that
 * tries every vector with GET, HEAD, PUT and DELETE against the canaries. */
#include "confinement/traversal.h"

#include "case_api.h"
#include "data_dir.h"
#include "rest_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *const class_names[TC_COUNT] = {
    [TC_ESCAPE_ENCODED] = "escape-encoded",
    [TC_ESCAPE_RAW] = "escape-raw",
    [TC_ABSOLUTE] = "absolute",
    [TC_ABSOLUTE_INSIDE] = "absolute-inside",
    [TC_LITERAL] = "literal",
    [TC_INSIDE] = "inside",
    [TC_BACKSLASH] = "backslash",
    [TC_OVERLONG_UTF8] = "overlong-utf8",
    [TC_NUL] = "nul",
    [TC_BAD_ENCODING] = "bad-encoding",
    [TC_OVERLONG_NAME] = "overlong-name",
    [TC_OVERLONG_PATH] = "overlong-path",
};

const char *trav_class_name(enum trav_class c)
{
    return c < TC_COUNT ? class_names[c] : "?";
}

/* ---- Loading ------------------------------------------------------------ */

static char *corpus_path(void)
{
    const char *dir = getenv("SBX_CASES_DIR");
    if (dir && *dir) return conf_xasprintf("%s/confinement/traversal.yaml", dir);
    return conf_xasprintf("%s/cases/confinement/traversal.yaml", data_dir());
}

static const char *const name_placeholders[] = {"{pf}", "{pd}", "{pi}", "{tf}",
                                                "{sf}", "{in}", "{sib}"};

/* A PUT or DELETE template must end in one of our own names (plus at most a
 * suffix within that last component), so that even a runtime that resolves
 * it naively can only ever write or remove our canaries. */
static bool ends_in_own_name(const char *t)
{
    const char *last = NULL;
    size_t last_len = 0;
    for (size_t i = 0; i < sizeof name_placeholders / sizeof name_placeholders[0]; i++)
        for (const char *p = strstr(t, name_placeholders[i]); p;
             p = strstr(p + 1, name_placeholders[i]))
            if (!last || p > last) {
                last = p;
                last_len = strlen(name_placeholders[i]);
            }
    if (!last) return false;
    const char *rest = last + last_len;
    size_t n = strlen(rest);
    if (n >= 1 && rest[n - 1] == '/')
        n--;
    else if (n >= 3 && (strcmp(rest + n - 3, "%2f") == 0 || strcmp(rest + n - 3, "%2F") == 0))
        n -= 3;
    for (size_t i = 0; i < n; i++) {
        if (rest[i] == '/' || rest[i] == '{') return false;
        if (i + 2 < n && rest[i] == '%' && rest[i + 1] == '2' &&
            (rest[i + 2] == 'f' || rest[i + 2] == 'F'))
            return false;
    }
    return true;
}

static bool parse_bool(const char *s)
{
    return strcmp(s, "true") == 0 || strcmp(s, "yes") == 0;
}

static void free_vector(struct trav_vector *v)
{
    free(v->id);
    free(v->path);
    free(v->put_path);
    free(v->delete_path);
    free(v->delete_query);
    free(v->about);
    memset(v, 0, sizeof *v);
}

/* A key given twice in one vector is refused (and nothing leaks): which of
 * two PUT templates would apply must never be a guess. */
static int set_string(char **slot, const char *key, const char *val, char *err, size_t errlen)
{
    if (*slot) {
        snprintf(err, errlen, "key \"%s\" given twice", key);
        return -1;
    }
    *slot = conf_xstrdup(val);
    return 0;
}

static int set_field(struct trav_vector *v, const char *key, const char *val, char *err,
                     size_t errlen)
{
    char **slot = strcmp(key, "id") == 0             ? &v->id
                  : strcmp(key, "path") == 0         ? &v->path
                  : strcmp(key, "put_path") == 0     ? &v->put_path
                  : strcmp(key, "delete_path") == 0  ? &v->delete_path
                  : strcmp(key, "delete_query") == 0 ? &v->delete_query
                  : strcmp(key, "about") == 0        ? &v->about
                                                     : NULL;
    if (slot) return set_string(slot, key, val, err, errlen);
    if (strcmp(key, "class") == 0) {
        int c;
        for (c = 0; c < TC_COUNT; c++)
            if (strcmp(val, class_names[c]) == 0) break;
        if (c == TC_COUNT) {
            snprintf(err, errlen, "unknown class \"%s\"", val);
            return -1;
        }
        v->cls = (enum trav_class)c;
    } else if (strcmp(key, "put") == 0) {
        if (strcmp(val, "overwrite") != 0 && strcmp(val, "create") != 0) {
            snprintf(err, errlen, "put must be create or overwrite, not \"%s\"", val);
            return -1;
        }
        v->put_overwrite = strcmp(val, "overwrite") == 0;
    } else if (strcmp(key, "escapes") == 0)
        v->escapes = parse_bool(val);
    else if (strcmp(key, "raw") == 0)
        v->raw = parse_bool(val);
    else {
        snprintf(err, errlen, "unknown key \"%s\"", key);
        return -1;
    }
    return 0;
}

static int validate(const struct trav_vector *v, char *err, size_t errlen)
{
    if (!v->id || !v->path) {
        snprintf(err, errlen, "vector %s without id or path", v->id ? v->id : "?");
        return -1;
    }
    const char *put = v->put_path ? v->put_path : v->path;
    const char *del = v->delete_path ? v->delete_path : v->path;
    if (!ends_in_own_name(put) || !ends_in_own_name(del)) {
        snprintf(err, errlen,
                 "vector %s: PUT and DELETE targets must end in a canary or fixture name "
                 "placeholder",
                 v->id);
        return -1;
    }
    return 0;
}

int trav_load(struct trav_corpus *corpus, char *err, size_t errlen)
{
    memset(corpus, 0, sizeof *corpus);
    char *path = corpus_path();
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);

    /* States: 0 top mapping key, 1 inside vectors sequence, 2 inside a vector. */
    int state = 0, skip_depth = 0, rc = -1;
    bool want_vectors_seq = false, done = false;
    char *key = NULL;
    size_t cap = 0;
    struct trav_vector cur = {0};
    err[0] = '\0';
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            snprintf(err, errlen, "%s:%zu: YAML error: %s", path, parser.problem_mark.line + 1,
                     parser.problem ? parser.problem : "?");
            break;
        }
        yaml_event_type_t t = ev.type;
        if (skip_depth > 0) {
            if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT)
                skip_depth++;
            else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT)
                skip_depth--;
            if (skip_depth == 0) {
                free(key);
                key = NULL;
            }
        } else if (t == YAML_STREAM_END_EVENT) {
            done = true;
            rc = err[0] ? -1 : 0;
        } else if (state == 0) {
            if (t == YAML_SCALAR_EVENT) {
                if (!key)
                    key = conf_xstrdup((const char *)ev.data.scalar.value);
                else {
                    free(key);
                    key = NULL;
                }
            } else if (t == YAML_SEQUENCE_START_EVENT && key && strcmp(key, "vectors") == 0) {
                state = 1;
                want_vectors_seq = true;
                free(key);
                key = NULL;
            } else if ((t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) && key) {
                skip_depth = 1;
            }
        } else if (state == 1) {
            if (t == YAML_MAPPING_START_EVENT) {
                memset(&cur, 0, sizeof cur);
                state = 2;
            } else if (t == YAML_SEQUENCE_END_EVENT) {
                state = 0;
            }
        } else if (state == 2) {
            if (t == YAML_SCALAR_EVENT) {
                const char *val = (const char *)ev.data.scalar.value;
                if (!key)
                    key = conf_xstrdup(val);
                else {
                    char ferr[200];
                    if (set_field(&cur, key, val, ferr, sizeof ferr) != 0 && !err[0])
                        snprintf(err, errlen, "%s:%zu: %s", path, ev.start_mark.line + 1, ferr);
                    free(key);
                    key = NULL;
                }
            } else if (t == YAML_MAPPING_END_EVENT) {
                char verr[300];
                bool valid = validate(&cur, verr, sizeof verr) == 0;
                if (!valid && !err[0]) snprintf(err, errlen, "%s: %s", path, verr);
                for (size_t i = 0; i < corpus->n && valid; i++)
                    if (strcmp(corpus->v[i].id, cur.id) == 0) {
                        if (!err[0])
                            snprintf(err, errlen, "%s: duplicate vector id %s", path, cur.id);
                        valid = false;
                    }
                /* Only complete vectors are kept: later ones are compared
                 * with them by id. */
                if (!valid) {
                    free_vector(&cur);
                } else {
                    if (corpus->n == cap) {
                        cap = cap ? cap * 2 : 64;
                        struct trav_vector *nv = realloc(corpus->v, cap * sizeof *nv);
                        if (!nv) abort();
                        corpus->v = nv;
                    }
                    corpus->v[corpus->n++] = cur;
                    memset(&cur, 0, sizeof cur);
                }
                state = 1;
            } else if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
                if (!err[0])
                    snprintf(err, errlen, "%s:%zu: vector fields must be scalars", path,
                             ev.start_mark.line + 1);
                skip_depth = 1;
            }
        }
        yaml_event_delete(&ev);
    }
    free(key);
    free_vector(&cur); /* a vector the file broke off (a YAML error inside it) */
    yaml_parser_delete(&parser);
    fclose(f);
    if (rc == 0 && (!want_vectors_seq || corpus->n == 0)) {
        snprintf(err, errlen, "%s: no \"vectors\" list", path);
        rc = -1;
    }
    free(path);
    if (rc != 0) trav_free(corpus);
    return rc;
}

void trav_free(struct trav_corpus *corpus)
{
    for (size_t i = 0; i < corpus->n; i++)
        free_vector(&corpus->v[i]);
    free(corpus->v);
    memset(corpus, 0, sizeof *corpus);
}

/* ---- Expansion ---------------------------------------------------------- */

struct names {
    const char *pf, *pd, *pi, *tf, *sf, *sib, *in;
};

struct expand_env {
    const struct canary_set *c;
    const char *case_dir;
    int up;  /* levels from the case directory to the root's parent */
    int top; /* levels from the case directory to "/" (with margin) */
    struct names nm;
};

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
static int expand(const char *tmpl, const struct expand_env *e, char **out, unsigned *needs,
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

/* ---- Driver ------------------------------------------------------------- */

static const char *const methods[] = {"GET", "HEAD", "PUT", "DELETE"};

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
static void fixture_script(struct trav_run *run)
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
static char *root_names(struct case_ctx *ctx, const struct trav_run *run)
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
static void remove_root_debris(struct case_ctx *ctx, const struct trav_run *run, const char *before)
{
    char *after = root_names(ctx, run);
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

static void read_host_secret(struct case_ctx *ctx, struct trav_run *run)
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
static int build_request(struct case_ctx *ctx, struct trav_run *run, const struct trav_vector *v,
                         const char *method, char **target, char **rel, char **marker,
                         char **in_name, bool *names_canary, char *err, size_t errlen)
{
    struct canary_set *c = &run->canaries;
    char newname[96], inbuf[64];
    bool put = strcmp(method, "PUT") == 0;
    bool create = put && !v->put_overwrite;
    const char *fresh = create ? canary_new_name(c, newname, sizeof newname) : NULL;
    if (create)
        snprintf(inbuf, sizeof inbuf, "put-%u", c->next_new);
    else
        snprintf(inbuf, sizeof inbuf, "known.txt");
    struct expand_env e = {
        .c = c,
        .case_dir = case_dir(ctx),
        .up = conf_path_depth(case_dir(ctx)) + 1,
        .nm = {.pf = create ? fresh : c->pfile,
               .pd = c->pdir,
               .pi = create ? fresh : c->pinner,
               .tf = create ? fresh : c->tfile,
               .sf = create ? fresh : c->sibfile,
               .sib = c->sib,
               .in = inbuf},
    };
    e.top = e.up + c->parent_depth + 2;
    const char *tmpl = v->path;
    if (put && v->put_path) tmpl = v->put_path;
    if (strcmp(method, "DELETE") == 0 && v->delete_path) tmpl = v->delete_path;
    unsigned needs;
    if (expand(tmpl, &e, rel, &needs, err, errlen) != 0) return -2;
    *names_canary = (needs & 4) != 0;
    if (((needs & 1) && !c->have_parent) || ((needs & 2) && !c->have_tmp)) {
        free(*rel);
        *rel = NULL;
        return -1;
    }
    bool from_root = v->cls == TC_ABSOLUTE || v->cls == TC_ABSOLUTE_INSIDE;
    char *cd = conf_pct_encode(case_dir(ctx), false);
    const char *q = strcmp(method, "DELETE") == 0 && v->delete_query ? v->delete_query : NULL;
    *target = from_root ? conf_xasprintf("/v1/files/%s%s%s", *rel, q ? "?" : "", q ? q : "")
                        : conf_xasprintf("/v1/files/%s/%s%s%s", cd, *rel, q ? "?" : "", q ? q : "");
    free(cd);
    *marker = conf_xasprintf("sbxmarker-%s-%s-%s", c->hex, v->id, method);
    *in_name = conf_xstrdup(inbuf);
    return 0;
}

/* Checks every method must pass whatever the clause: nothing outside may be
 * read or revealed. */
static void universal_checks(struct trav_run *run, const struct trav_obs *o, struct sbuf *pr)
{
    const struct http_response *r = o->resp;
    char why[200];
    if (o->rc != 0) return;
    if (canary_body_leaks(&run->canaries, r->body, r->body_len, o->target, why, sizeof why))
        sbuf_printf(pr, "%s%s", pr->len ? "; " : "", why);
    if (run->host_secret && r->body &&
        conf_memmem(r->body, r->body_len, run->host_secret, strlen(run->host_secret)))
        sbuf_printf(pr, "%sbody contains the host's /etc/passwd", pr->len ? "; " : "");
    /* A read or stat outside: no name of ours exists inside the root, so a
     * path that names a canary answers 2xx only if it reached outside
     * (a URL normalised at the root leads to an absent name: 404). */
    bool probe = strcmp(o->method, "GET") == 0 || strcmp(o->method, "HEAD") == 0;
    if (probe && o->names_canary && r->status >= 200 && r->status < 300)
        sbuf_printf(pr,
                    "%s%s answered %ld for a path naming a canary outside the root (read or "
                    "stat outside)",
                    pr->len ? "; " : "", o->method, r->status);
    if (canary_length_leaks(&run->canaries, o->method, r))
        sbuf_printf(pr, "%s%ld with Content-Length %lld, the size of a canary outside the root",
                    pr->len ? "; " : "", r->status, r->content_length);
}

/* ---- Redirects -----------------------------------------------------------
 * S1 and S3 let a server answer raw dot segments and "//" with a redirect
 * to a normalised URL. Where the redirect leads is followed (same method and
 * body, at most REDIRECT_HOPS hops, only on the same server) and judged by
 * the same universal checks: following it must never reach outside either. */

#define REDIRECT_HOPS 3

/* The port of "host:port" or "[v6]:port"; NULL for unix sockets. */
static const char *addr_port(const char *addr)
{
    if (strncmp(addr, "unix:", 5) == 0) return NULL;
    const char *c = strrchr(addr, ':');
    return c ? c + 1 : NULL;
}

/* The request-target a Location leads to on the same server (malloc'd), or
 * NULL (why says so) when it is absent or names another server. */
char *trav_redirect_target(const char *rest_addr, const char *current_target,
                           const struct http_response *resp, char *why, size_t whylen)
{
    char *loc = http_header(resp, "Location");
    if (!loc || !*loc) {
        snprintf(why, whylen, "a %ld redirect without a Location", resp->status);
        free(loc);
        return NULL;
    }
    char *out = NULL;
    const char *scheme = strstr(loc, "://");
    const char *slash = strchr(loc, '/');
    if (scheme && slash && scheme < slash) {
        const char *auth = scheme + 3;
        const char *path = strchr(auth, '/');
        size_t alen = path ? (size_t)(path - auth) : strlen(auth);
        const char *port = addr_port(rest_addr);
        const char *colon = memchr(auth, ':', alen);
        bool same = port ? (colon && strlen(port) == alen - (size_t)(colon + 1 - auth) &&
                            strncmp(colon + 1, port, strlen(port)) == 0)
                         : (alen == 9 && strncmp(auth, "localhost", 9) == 0);
        if (same)
            out = conf_xstrdup(path ? path : "/");
        else
            snprintf(why, whylen, "a %ld redirect to another server: %s", resp->status, loc);
    } else if (loc[0] == '/' && loc[1] == '/') {
        snprintf(why, whylen, "a %ld redirect to another server: %s", resp->status, loc);
    } else if (loc[0] == '/') {
        out = conf_xstrdup(loc);
    } else {
        /* A relative reference: resolved against the current target's
         * directory (the server sees any dot segments it carries). */
        size_t qpos = strcspn(current_target, "?");
        size_t dir = qpos;
        while (dir > 0 && current_target[dir - 1] != '/')
            dir--;
        out = conf_xasprintf("%.*s%s", (int)dir, current_target, loc);
    }
    free(loc);
    return out;
}

/* Sends req; when the answer is a redirect, follows it. *first is the
 * first answer (what the clause judges), *last the end of the chain (the
 * same as first when nothing was followed; last->status 0 with the reason
 * in last->error when a hop got no answer). *via lists the hops. Returns
 * rest_do's result for the first request. */
static int send_following(struct case_ctx *ctx, const struct http_request *req,
                          struct http_response *first, struct http_response *last, int *hops,
                          struct sbuf *via)
{
    *hops = 0;
    memset(last, 0, sizeof *last);
    int rc = rest_do(ctx, req, first);
    if (rc != 0 || first->status < 300 || first->status >= 400) return rc;
    const struct http_response *cur = first;
    char *cur_target = conf_xstrdup(req->target);
    while (*hops < REDIRECT_HOPS && cur->status >= 300 && cur->status < 400) {
        char why[300];
        char *next = trav_redirect_target(case_rest_addr(ctx), cur_target, cur, why, sizeof why);
        if (!next) {
            sbuf_printf(via, "%snot followed: %s", via->len ? "; " : "", why);
            break;
        }
        struct http_request hop = *req;
        hop.target = next;
        if (cur->status == 303 && strcmp(req->method, "HEAD") != 0) {
            hop.method = "GET";
            hop.body = NULL;
            hop.body_len = 0;
            hop.headers = NULL;
        }
        struct http_response r = {0};
        int hrc = rest_do(ctx, &hop, &r);
        (*hops)++;
        sbuf_printf(via, "%s%s %s -> %ld", via->len ? "; " : "", hop.method, next,
                    hrc == 0 ? r.status : 0L);
        http_response_free(last);
        *last = r;
        if (hrc != 0) {
            last->status = 0;
            free(next);
            break;
        }
        cur = last;
        free(cur_target);
        cur_target = next;
    }
    free(cur_target);
    return rc;
}

static void report(struct case_ctx *ctx, const struct trav_obs *o, const char *problems)
{
    char *preview = NULL;
    if (o->rc == 0) preview = http_body_preview(o->resp, 160);
    case_request(ctx, "%s %s", o->method, o->target);
    if (o->rc == 0)
        case_fail(ctx, "confinement holds for this vector",
                  "vector %s (%s): status %ld, body %s: %s", o->v->id, trav_class_name(o->v->cls),
                  o->resp->status, preview ? preview : "", problems);
    else
        case_fail(ctx, "confinement holds for this vector", "vector %s (%s): no response (%s): %s",
                  o->v->id, trav_class_name(o->v->cls), o->resp->error, problems);
    free(preview);
}

struct loop_state {
    size_t tried, skipped, no_response_run, changes;
    bool stop;
    /* absolute-inside vectors: the GET of the vector (the harmless probe)
     * reached the case directory's known.txt, so its PUT and DELETE may be
     * sent; probe_status is what the GET answered. */
    bool inside_confirmed;
    long probe_status;
};

/* The GET answer (after redirects) is the case directory's known.txt. */
static bool reached_known(const struct trav_run *run, const struct http_response *r)
{
    return r->status == 200 && r->body_len == strlen(run->known) &&
           memcmp(r->body, run->known, r->body_len) == 0;
}

/* One method of one vector. First pass: the request with every check but
 * the outside one. Replay pass (after the outside state changed): the
 * request followed by its own outside check, to attribute the change. */
static void try_method(struct case_ctx *ctx, struct trav_run *run, const struct trav_vector *v,
                       const char *method, const struct trav_opts *opts, bool replay,
                       struct loop_state *st)
{
    char err[512];
    char *target = NULL, *rel = NULL, *marker = NULL, *in_name = NULL;
    bool names_canary = false;
    int b = build_request(ctx, run, v, method, &target, &rel, &marker, &in_name, &names_canary, err,
                          sizeof err);
    if (b == -2) {
        case_error(ctx, "traversal corpus: vector %s: %s", v->id, err);
        st->stop = true;
        return;
    }
    if (b == -1) {
        if (!replay) st->skipped++;
        return;
    }
    bool put = strcmp(method, "PUT") == 0;
    bool destructive = put || strcmp(method, "DELETE") == 0;
    if (v->cls == TC_ABSOLUTE_INSIDE && destructive && !st->inside_confirmed) {
        /* Probe before destroy: a spelling that did not reach the case
         * directory may name a host path; nothing is written or removed
         * there. */
        case_request(ctx, "%s %s (after the probe GET of vector %s)", method, target, v->id);
        case_fail(ctx,
                  "the absolute-looking path resolves beneath the root (its GET returns "
                  "the case directory's known.txt)",
                  "vector %s: the probe GET answered %ld, not the case directory's file: the "
                  "destructive request %s %s was not sent",
                  v->id, st->probe_status, method, target);
        if (!replay) st->tried++;
        free(target);
        free(rel);
        free(marker);
        free(in_name);
        return;
    }
    struct http_request req = {.method = method,
                               .target = target,
                               .body = put ? marker : NULL,
                               .body_len = put ? strlen(marker) : 0,
                               .timeout_ms = 15000,
                               .max_body = 256 * 1024};
    const char *hdrs[] = {"Content-Type: application/octet-stream", NULL};
    if (put) req.headers = hdrs;
    struct http_response resp = {0}, last = {0};
    int hops = 0;
    struct sbuf via = {0};
    int rc = send_following(ctx, &req, &resp, &last, &hops, &via);
    if (v->cls == TC_ABSOLUTE_INSIDE && strcmp(method, "GET") == 0 && !replay) {
        const struct http_response *fin = hops > 0 && last.status > 0 ? &last : &resp;
        st->inside_confirmed = rc == 0 && reached_known(run, fin);
        st->probe_status = rc == 0 ? fin->status : 0;
    }
    struct trav_obs o = {.v = v,
                         .method = method,
                         .target = target,
                         .rel = rel,
                         .resp = &resp,
                         .rc = rc,
                         .marker = marker,
                         .in_name = in_name,
                         .names_canary = names_canary};
    struct sbuf pr = {0};
    if (replay) {
        char *diff = NULL;
        int ch = canary_check(ctx, &run->canaries, &diff);
        if (ch == 1) {
            sbuf_printf(&pr, "outside the root changed: %s", diff);
            st->changes++;
        } else if (ch < 0) {
            case_error(ctx, "%s", diff);
            st->stop = true;
        }
        free(diff);
    } else {
        universal_checks(run, &o, &pr);
        if (hops > 0 && last.status > 0) {
            struct trav_obs lo = o;
            lo.resp = &last;
            struct sbuf lp = {0};
            universal_checks(run, &lo, &lp);
            if (lp.len)
                sbuf_printf(&pr, "%sfollowing the redirect (%s): %s", pr.len ? "; " : "", via.s,
                            lp.s);
            sbuf_free(&lp);
        }
        if (hops > 0 || via.len)
            case_note(ctx, "%s %s redirected: %s", method, target, via.s ? via.s : "");
        if (opts->judge) opts->judge(ctx, run, &o, &pr);
        if (opts->health_after) {
            long hs;
            double secs;
            if (!conf_health_ok(case_rest_addr(ctx), 10000, &hs, &secs)) {
                sbuf_printf(&pr,
                            "%safterwards /v1/health did not answer 200 within 10 s "
                            "(status %ld after %.1f s): the daemon is wedged or gone",
                            pr.len ? "; " : "", hs, secs);
                st->stop = true;
            }
        }
        st->no_response_run = rc == 0 ? 0 : st->no_response_run + 1;
        if (st->no_response_run >= 3) {
            sbuf_printf(&pr, "%sthree requests in a row got no response; stopping",
                        pr.len ? "; " : "");
            st->stop = true;
        }
        st->tried++;
    }
    if (pr.len) report(ctx, &o, pr.s);
    sbuf_free(&pr);
    sbuf_free(&via);
    http_response_free(&last);
    http_response_free(&resp);
    free(target);
    free(rel);
    free(marker);
    free(in_name);
}

void trav_run_cases(struct case_ctx *ctx, const struct trav_opts *opts)
{
    struct trav_corpus corpus;
    char err[512];
    if (trav_load(&corpus, err, sizeof err) != 0) {
        case_error(ctx, "traversal corpus: %s", err);
        return;
    }
    struct trav_run run = {0};
    if (canary_plant(ctx, &run.canaries) != 0) {
        trav_free(&corpus);
        canary_free(&run.canaries);
        return;
    }
    snprintf(run.known, sizeof run.known, "KNOWN-%s", run.canaries.hex);
    snprintf(run.subinner, sizeof run.subinner, "SUBINNER-%s", run.canaries.hex);
    fixture_script(&run);
    read_host_secret(ctx, &run);
    char *names_before = root_names(ctx, &run);
    char *diff = NULL;
    /* The first check also lays down the in-root fixture; the baseline must
     * then still hold. */
    if (canary_check(ctx, &run.canaries, &diff) < 0) {
        case_error(ctx, "%s", diff);
        free(diff);
        goto out;
    }
    free(diff);

    struct loop_state st = {0};
    size_t vectors = 0;
    for (size_t i = 0; i < corpus.n && !st.stop; i++) {
        const struct trav_vector *v = &corpus.v[i];
        if (!(opts->classes & TC_BIT(v->cls))) continue;
        vectors++;
        st.inside_confirmed = false;
        st.probe_status = 0;
        for (size_t m = 0; m < 4 && !st.stop; m++)
            try_method(ctx, &run, v, methods[m], opts, false, &st);
        if (st.stop) break;
        /* One outside check per vector; when something changed, replay the
         * methods one by one (the canaries are restored) to name the one. */
        int ch = canary_check(ctx, &run.canaries, &diff);
        if (ch < 0) {
            case_error(ctx, "%s", diff);
            st.stop = true;
        } else if (ch == 1) {
            size_t before = st.changes;
            for (size_t m = 0; m < 4 && !st.stop; m++)
                try_method(ctx, &run, v, methods[m], opts, true, &st);
            if (st.changes == before) {
                case_request(ctx, "GET, HEAD, PUT and DELETE of vector %s", v->id);
                case_fail(ctx, "nothing outside the root is created, changed or removed",
                          "vector %s (%s): outside the root changed: %s", v->id,
                          trav_class_name(v->cls), diff);
            }
        }
        free(diff);
        diff = NULL;
    }
    size_t tried = st.tried, skipped = st.skipped;
    case_note(ctx, "%zu vectors, %zu requests tried, %zu skipped (canary location unavailable)",
              vectors, tried, skipped);
    if (tried == 0 && !case_failed(ctx))
        case_skip(ctx, "no vector of this case could be tried (no canary location)");
    remove_root_debris(ctx, &run, names_before);
out:
    free(names_before);
    canary_remove(ctx, &run.canaries);
    canary_free(&run.canaries);
    free(run.host_secret);
    trav_free(&corpus);
}
