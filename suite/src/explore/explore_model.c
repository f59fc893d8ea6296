/* SPDX-License-Identifier: Apache-2.0 */
/* The model's tree, its path resolution and the judging of every kind of
 * operation against the clauses that fix its answer. */
#include "explore_model.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_grpc_status.h"
#include "string_buf.h"
#include "text_util.h"

#define MAX_LINK_DEPTH 8

/* ---- tree ------------------------------------------------------------- */

static struct xnode *find(struct xmodel *m, const char *path)
{
    for (size_t i = 0; i < m->n_nodes; i++)
        if (strcmp(m->nodes[i].path, path) == 0) return &m->nodes[i];
    return NULL;
}

static void node_clear(struct xnode *n)
{
    free(n->data);
    free(n->target);
    n->data = NULL;
    n->target = NULL;
    n->size = 0;
}

static struct xnode *node_set(struct xmodel *m, const char *path, enum xnode_type type)
{
    struct xnode *n = find(m, path);
    if (!n) {
        if (m->n_nodes == m->cap_nodes) {
            size_t cap = m->cap_nodes ? m->cap_nodes * 2 : 32;
            struct xnode *grown = realloc(m->nodes, cap * sizeof *grown);
            if (!grown) abort();
            m->nodes = grown;
            m->cap_nodes = cap;
        }
        n = &m->nodes[m->n_nodes++];
        memset(n, 0, sizeof *n);
        n->path = strdup(path);
        if (!n->path) abort();
    }
    node_clear(n);
    n->type = type;
    return n;
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 0) return path[0] != '\0';
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Removes path and everything below it. */
static void remove_tree(struct xmodel *m, const char *path)
{
    char *p = strdup(path);
    if (!p) abort();
    size_t j = 0;
    for (size_t i = 0; i < m->n_nodes; i++) {
        if (strcmp(m->nodes[i].path, p) == 0 || under(m->nodes[i].path, p)) {
            node_clear(&m->nodes[i]);
            free(m->nodes[i].path);
            continue;
        }
        m->nodes[j++] = m->nodes[i];
    }
    m->n_nodes = j;
    free(p);
}

static void mark_unknown(struct xmodel *m, const char *path)
{
    if (!path[0]) return; /* the workspace itself stays a directory */
    node_set(m, path, XN_UNKNOWN);
}

static void make_parents(struct xmodel *m, const char *path)
{
    char *p = strdup(path);
    if (!p) abort();
    for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        struct xnode *n = find(m, p);
        if (!n) node_set(m, p, XN_DIR);
        *s = '/';
    }
    free(p);
}

/* A PUT that failed may still have made some of the missing parents: the
 * first missing one becomes unknown (the contract fixes only that no file
 * is stored). */
static void mark_missing_parent(struct xmodel *m, const char *canonical)
{
    char *p = strdup(canonical);
    if (!p) abort();
    for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (!find(m, p)) {
            node_set(m, p, XN_UNKNOWN);
            break;
        }
        *s = '/';
    }
    free(p);
}

static const char *last_component(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void parent_of(const char *path, char *out, size_t len)
{
    const char *s = strrchr(path, '/');
    snprintf(out, len, "%.*s", s ? (int)(s - path) : 0, path);
}

void xmodel_init(struct xmodel *m)
{
    memset(m, 0, sizeof *m);
    node_set(m, "", XN_DIR);
}

void xmodel_free(struct xmodel *m)
{
    for (size_t i = 0; i < m->n_nodes; i++) {
        node_clear(&m->nodes[i]);
        free(m->nodes[i].path);
    }
    free(m->nodes);
    for (size_t i = 0; i < m->n_slots; i++)
        free(m->slots[i].input);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

void xfinding_free(struct xfinding *f)
{
    free(f->expected);
    free(f->observed);
    memset(f, 0, sizeof *f);
}

/* ---- resolution ------------------------------------------------------- */

enum res {
    R_FOUND,    /* node set */
    R_ABSENT,   /* last component absent, parent a directory */
    R_NOPARENT, /* a parent is absent (PUT and mkdir -p create it) */
    R_NOTDIR,   /* a file or FIFO used as a directory (F14) */
    R_DANGLING, /* a dangling symlink used as a parent (F14) */
    R_LOOP,     /* too many links (F14) */
    R_UNKNOWN,  /* the model does not know */
};

struct resolved {
    enum res r;
    struct xnode *node;
    char path[XOP_PATH_MAX * 4]; /* canonical path (links followed) */
    bool via_link;               /* a parent was reached through a link */
    bool dangling_last;          /* the last component is a dangling link */
};

static void resolve_depth(struct xmodel *m, const char *path, bool follow_last, int depth,
                          struct resolved *out)
{
    memset(out, 0, sizeof *out);
    if (depth > MAX_LINK_DEPTH) {
        out->r = R_LOOP;
        return;
    }
    if (!path[0]) {
        out->r = R_FOUND;
        out->node = find(m, "");
        return;
    }
    char cur[XOP_PATH_MAX * 2] = "";
    const char *p = path;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t clen = slash ? (size_t)(slash - p) : strlen(p);
        bool last = !slash || !slash[1];
        char cand[XOP_PATH_MAX * 2];
        if (snprintf(cand, sizeof cand, "%s%s%.*s", cur, cur[0] ? "/" : "", (int)clen, p) >=
            (int)sizeof cand) {
            out->r = R_LOOP; /* longer than any path explore makes */
            return;
        }
        struct xnode *n = find(m, cand);
        if (n && n->type == XN_LINK && (!last || follow_last)) {
            struct resolved sub;
            resolve_depth(m, n->target, true, depth + 1, &sub);
            if (!last) out->via_link = true;
            if (sub.r == R_FOUND) {
                if (snprintf(cand, sizeof cand, "%s", sub.path) >= (int)sizeof cand) {
                    out->r = R_LOOP;
                    return;
                }
                n = sub.node;
            } else if (sub.r == R_ABSENT) {
                if (!last) {
                    out->r = R_DANGLING;
                    return;
                }
                out->dangling_last = true;
                out->r = R_ABSENT;
                snprintf(out->path, sizeof out->path, "%s", sub.path);
                return;
            } else {
                out->r = sub.r == R_NOPARENT ? (last ? R_ABSENT : R_DANGLING) : sub.r;
                out->dangling_last = last && sub.r == R_NOPARENT;
                return;
            }
        }
        if (!n) {
            out->r = last ? R_ABSENT : R_NOPARENT;
            if (snprintf(out->path, sizeof out->path, "%s%s%s", cand, last ? "" : "/",
                         last ? "" : slash + 1) >= (int)sizeof out->path)
                out->r = R_LOOP;
            return;
        }
        if (n->type == XN_UNKNOWN) {
            out->r = R_UNKNOWN;
            return;
        }
        if (!last && (n->type == XN_FILE || n->type == XN_FIFO)) {
            out->r = R_NOTDIR;
            return;
        }
        snprintf(cur, sizeof cur, "%s", cand);
        if (last) {
            out->r = R_FOUND;
            out->node = n;
            snprintf(out->path, sizeof out->path, "%s", cand);
            return;
        }
        p = slash + 1;
    }
    out->r = R_FOUND;
    out->node = find(m, cur);
    snprintf(out->path, sizeof out->path, "%s", cur);
}

static void resolve(struct xmodel *m, const char *path, bool follow_last, struct resolved *out)
{
    resolve_depth(m, path, follow_last, 0, out);
    /* A link whose target chain ends in an unknown node is unknown too. */
    if (out->r == R_FOUND && !out->node) out->r = R_UNKNOWN;
}

/* Marks path unknown, and with it what links below it point to: an
 * operation the model cannot follow may reach those targets through the
 * links (a PUT writes through one, a DELETE may remove the target, S5). */
static void mark_unknown_deep(struct xmodel *m, const char *path, int depth)
{
    if (!path[0] || depth > MAX_LINK_DEPTH) return;
    char **targets = NULL;
    size_t n = 0;
    for (size_t i = 0; i < m->n_nodes; i++) {
        struct xnode *x = &m->nodes[i];
        if (x->type != XN_LINK || !x->target) continue;
        if (strcmp(x->path, path) != 0 && !under(x->path, path)) continue;
        char **grown = realloc(targets, (n + 2) * sizeof *grown);
        if (!grown) abort();
        targets = grown;
        targets[n++] = strdup(x->target);
        struct resolved r;
        resolve(m, x->target, true, &r);
        targets[n++] = r.r == R_FOUND || r.r == R_ABSENT ? strdup(r.path) : strdup("");
    }
    mark_unknown(m, path);
    for (size_t i = 0; i < n; i++) {
        if (targets[i]) mark_unknown_deep(m, targets[i], depth + 1);
        free(targets[i]);
    }
    free(targets);
}

/* ---- findings ---------------------------------------------------------- */

static int finding(struct xfinding *f, const char *clause, const struct xans *a,
                   const char *expected_fmt, ...) __attribute__((format(printf, 4, 5)));

static int finding(struct xfinding *f, const char *clause, const struct xans *a,
                   const char *expected_fmt, ...)
{
    va_list ap;
    va_start(ap, expected_fmt);
    f->expected = text_vfmt(expected_fmt, ap);
    va_end(ap);
    snprintf(f->clause, sizeof f->clause, "%s", clause);
    f->observed = xans_render(a);
    return 1;
}

static const char *code_of_status(long status)
{
    switch (status) {
    case 400:
        return "INVALID_ARGUMENT";
    case 403:
        return "PERMISSION_DENIED";
    case 404:
        return "NOT_FOUND";
    case 409:
        return "CONFLICT";
    case 500:
        return "INTERNAL";
    case 503:
        return "UNAVAILABLE";
    default:
        return NULL;
    }
}

static bool is_json(const struct xans *a)
{
    return a->ctype && strncasecmp(a->ctype, "application/json", 16) == 0 &&
           (a->ctype[16] == '\0' || a->ctype[16] == ';' || a->ctype[16] == ' ');
}

/* F13: every 4xx/5xx carries a JSON Error whose code matches the status. */
static int check_error_body(const struct xans *a, struct xfinding *f)
{
    if (a->status < 400 || a->head) return 0;
    if (!is_json(a) || !a->error_shape)
        return finding(f, "F13", a, "a JSON Error body {code, message} with HTTP %ld", a->status);
    const char *want = code_of_status(a->status);
    if (want && strcmp(a->code, want) != 0)
        return finding(f, "F13", a, "Error code %s with HTTP %ld", want, a->status);
    return 0;
}

/* Allowed statuses: up to four, or any 4xx when any4xx. */
struct allowed {
    long st[4];
    size_t n;
    bool any4xx;
};

static bool status_ok(const struct allowed *al, long status)
{
    if (al->any4xx && status >= 400 && status < 500) return true;
    for (size_t i = 0; i < al->n; i++)
        if (al->st[i] == status) return true;
    return false;
}

static int expect_status(const struct xans *a, struct xfinding *f, const char *clause,
                         const struct allowed *al, const char *what)
{
    if (a->transport_error) return finding(f, clause, a, "%s", what);
    if (!status_ok(al, a->status)) return finding(f, clause, a, "%s", what);
    return check_error_body(a, f);
}

static struct allowed one(long s)
{
    return (struct allowed){.st = {s}, .n = 1};
}
static struct allowed two(long s1, long s2)
{
    return (struct allowed){.st = {s1, s2}, .n = 2};
}

/* ---- REST: PUT --------------------------------------------------------- */

static bool mode_valid(const char *m)
{
    return strlen(m) == 4 && m[0] == '0' && m[1] >= '0' && m[1] <= '7' && m[2] >= '0' &&
           m[2] <= '7' && m[3] >= '0' && m[3] <= '7';
}

static int step_put(struct xmodel *m, const struct xop *op, const struct xans *a,
                    struct xfinding *f)
{
    bool bad_mode = op->has_mode && op->mode[0] && !mode_valid(op->mode);
    bool bad_body = op->multipart && op->mp_nofile;
    struct resolved r;
    resolve(m, op->path, true, &r);
    bool success = a->status >= 200 && a->status < 300 && !a->transport_error;
    if (!success && r.r == R_NOPARENT) mark_missing_parent(m, r.path);
    if (r.r == R_UNKNOWN || r.dangling_last ||
        (op->trailing_slash && r.r == R_FOUND && r.node->type != XN_DIR) ||
        (op->trailing_slash && r.r != R_FOUND)) {
        /* Not fixed (a trailing slash after a file name), or not known. */
        if (success && r.r == R_NOPARENT) mark_missing_parent(m, r.path);
        if (success) {
            mark_unknown_deep(m, op->path, 0);
            /* What the path names through a link (the file under its
             * canonical name) is unknown as well. */
            if (r.dangling_last || (r.via_link && (r.r == R_FOUND || r.r == R_ABSENT)))
                mark_unknown_deep(m, r.path, 0);
        }
        return 0;
    }
    const char *path_clause = NULL;
    struct allowed path_err = {0};
    if (r.r == R_NOTDIR || r.r == R_DANGLING || r.r == R_LOOP) {
        path_clause = "F14";
        path_err = two(400, 409);
    } else if (r.r == R_FOUND && r.node->type == XN_DIR) {
        path_clause = "F5";
        path_err = one(400);
    } else if (r.r == R_FOUND && r.node->type == XN_FIFO) {
        path_clause = "S9";
        path_err.any4xx = true;
    }
    if (bad_mode || bad_body) {
        struct allowed al = path_clause ? path_err : one(400);
        if (path_clause && !status_ok(&al, 400)) al.st[al.n++] = 400;
        if (expect_status(a, f, bad_mode ? "F3" : "F4", &al,
                          bad_mode ? "400 INVALID_ARGUMENT for an invalid mode, nothing written"
                                   : "400 INVALID_ARGUMENT for a multipart body without a file "
                                     "part"))
            return 1;
        return 0;
    }
    if (path_clause)
        return expect_status(a, f, path_clause, &path_err,
                             r.r == R_FOUND && r.node->type == XN_DIR
                                 ? "400 INVALID_ARGUMENT: PUT onto a directory"
                             : r.r == R_FOUND ? "a prompt 4xx Error for a FIFO"
                                              : "400 or 409: the path cannot be resolved");
    if (expect_status(a, f, r.r == R_NOPARENT ? "F2" : "F1", &(struct allowed){.st = {204}, .n = 1},
                      "204 with an empty body: the file is stored"))
        return 1;
    if (a->body_len) return finding(f, "F1", a, "204 with an empty body");
    make_parents(m, r.path);
    struct xnode *n = node_set(m, r.path, XN_FILE);
    n->data = xop_content(op, &n->size);
    n->mode = op->has_mode && op->mode[0] ? (unsigned)strtoul(op->mode, NULL, 8) : 0644u;
    return 0;
}

/* ---- REST: listing ------------------------------------------------------ */

static bool rfc3339(const char *s)
{
    /* YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM) */
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    for (size_t i = 0; shape[i]; i++) {
        if (shape[i] == 'd' ? !isdigit((unsigned char)s[i])
                            : toupper((unsigned char)s[i]) != shape[i])
            return false;
    }
    const char *p = s + sizeof shape - 1;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'Z' || *p == 'z') return p[1] == '\0';
    if (*p != '+' && *p != '-') return false;
    return isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) && p[3] == ':' &&
           isdigit((unsigned char)p[4]) && isdigit((unsigned char)p[5]) && p[6] == '\0';
}

static int fold_cmp(const char *x, const char *y)
{
    for (;; x++, y++) {
        int a = tolower((unsigned char)*x), b = tolower((unsigned char)*y);
        if (a != b || !a) return a - b;
    }
}

/* What the listing of dir must show for one child. */
struct expect_entry {
    const char *name;
    bool optional;    /* may be absent (unknown) */
    bool must_miss;   /* dangling link: left out (S6) */
    const char *type; /* "file", "directory" or NULL = any */
    long long size;   /* -1 = any */
    int mode;         /* -1 = any */
    bool seen;
};

static int check_listing(struct xmodel *m, const char *dir, const struct xans *a,
                         struct xfinding *f)
{
    if (a->status != 200 || !is_json(a))
        return finding(f, "F8", a, "200 application/json DirectoryListing of a directory");
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)a->body, a->body_len, 0, &jerr);
    json_t *entries = doc ? json_object_get(doc, "entries") : NULL;
    if (!json_is_object(doc) || !json_is_array(entries) ||
        !json_is_string(json_object_get(doc, "path"))) {
        json_decref(doc);
        return finding(f, "F8", a, "a DirectoryListing: {\"path\": string, \"entries\": [...]}");
    }
    size_t n_exp = 0;
    struct expect_entry *exp = calloc(m->n_nodes + 1, sizeof *exp);
    if (!exp) abort();
    char parent[XOP_PATH_MAX * 2];
    for (size_t i = 0; i < m->n_nodes; i++) {
        struct xnode *n = &m->nodes[i];
        if (!n->path[0]) continue;
        parent_of(n->path, parent, sizeof parent);
        if (strcmp(parent, dir) != 0) continue;
        struct expect_entry *e = &exp[n_exp++];
        e->name = last_component(n->path);
        e->size = -1;
        e->mode = -1;
        struct xnode *t = n;
        if (n->type == XN_LINK) {
            struct resolved r;
            resolve(m, n->path, true, &r);
            if (r.r == R_ABSENT) {
                e->must_miss = true;
                continue;
            }
            if (r.r != R_FOUND) {
                e->optional = true;
                continue;
            }
            t = r.node;
        }
        if (t->type == XN_UNKNOWN) {
            e->optional = true;
        } else if (t->type == XN_FILE) {
            e->type = "file";
            e->size = (long long)t->size;
            if (n->type == XN_FILE) e->mode = (int)t->mode;
        } else if (t->type == XN_DIR) {
            e->type = "directory";
        }
    }
    int rc = 0;
    const char *prev = NULL;
    bool sorted_bytes = true, sorted_fold = true;
    size_t idx;
    json_t *ent;
    json_array_foreach(entries, idx, ent)
    {
        const char *name = json_string_value(json_object_get(ent, "name"));
        const char *type = json_string_value(json_object_get(ent, "type"));
        const char *mt = json_string_value(json_object_get(ent, "modified_at"));
        json_t *size = json_object_get(ent, "size");
        json_t *mode = json_object_get(ent, "mode");
        if (!name || !type || !mt || !json_is_integer(size) || (mode && !json_is_string(mode))) {
            rc = finding(f, "F8", a, "entries with name, size, type, modified_at (and mode)");
            break;
        }
        if (strcmp(type, "file") != 0 && strcmp(type, "directory") != 0) {
            rc = finding(f, "F8", a, "entry \"%s\": type \"file\" or \"directory\", not \"%s\"",
                         name, type);
            break;
        }
        if (!rfc3339(mt)) {
            rc = finding(f, "F8", a, "entry \"%s\": modified_at an RFC 3339 date-time", name);
            break;
        }
        const char *ms = mode ? json_string_value(mode) : NULL;
        if (ms && !mode_valid(ms)) {
            rc = finding(f, "F8", a, "entry \"%s\": mode an octal string like \"0644\"", name);
            break;
        }
        if (prev) {
            if (strcmp(prev, name) > 0) sorted_bytes = false;
            if (fold_cmp(prev, name) > 0) sorted_fold = false;
        }
        prev = name;
        struct expect_entry *e = NULL;
        for (size_t k = 0; k < n_exp; k++)
            if (strcmp(exp[k].name, name) == 0) e = &exp[k];
        if (!e || e->must_miss || e->seen) {
            bool temp = strncmp(name, ".sbx", 4) == 0 || strstr(name, "tmp");
            rc = finding(f,
                         temp                ? "F6"
                         : e && e->must_miss ? "S6"
                                             : "F8",
                         a, "%s: the listing of \"%s\" shows \"%s\"",
                         e && e->seen ? "each entry once"
                         : e          ? "a dangling symlink is left out"
                         : temp       ? "no temporary file left beside a stored file"
                                      : "only the names the workspace holds",
                         dir, name);
            break;
        }
        e->seen = true;
        if (e->type && strcmp(e->type, type) != 0) {
            rc = finding(f, "F8", a, "entry \"%s\" of type %s", name, e->type);
            break;
        }
        if (e->size >= 0 && json_integer_value(size) != e->size) {
            rc = finding(f, "F8", a, "entry \"%s\" of size %lld", name, e->size);
            break;
        }
        if (e->mode >= 0 && ms && strtol(ms, NULL, 8) != e->mode) {
            rc = finding(f, "F3", a, "entry \"%s\" with mode 0%03o", name, (unsigned)e->mode);
            break;
        }
    }
    if (!rc)
        for (size_t k = 0; k < n_exp; k++)
            if (!exp[k].seen && !exp[k].optional && !exp[k].must_miss) {
                rc = finding(f, "F8", a, "the listing of \"%s\" holds \"%s\"", dir, exp[k].name);
                break;
            }
    if (!rc && !sorted_bytes && !sorted_fold) rc = finding(f, "F8", a, "entries sorted by name");
    free(exp);
    json_decref(doc);
    return rc;
}

/* ---- REST: GET, HEAD, DELETE ------------------------------------------ */

static bool range_slice(const struct xop *op, size_t size, size_t *off, size_t *len)
{
    if (op->ra < 0) {
        if (op->rb <= 0 || size == 0) return false;
        *len = (size_t)op->rb < size ? (size_t)op->rb : size;
        *off = size - *len;
        return true;
    }
    if ((size_t)op->ra >= size) return false;
    *off = (size_t)op->ra;
    size_t end = op->rb < 0 || (size_t)op->rb >= size ? size - 1 : (size_t)op->rb;
    *len = end - *off + 1;
    return true;
}

static int step_read(struct xmodel *m, const struct xop *op, const struct xans *a,
                     struct xfinding *f)
{
    bool head = op->kind == XOP_HEAD;
    const char *clause = head ? "F9" : "F7";
    struct resolved r;
    resolve(m, op->path, true, &r);
    if (r.r == R_UNKNOWN || (op->trailing_slash && r.r == R_FOUND && r.node->type != XN_DIR))
        return 0;
    if (r.r == R_NOTDIR || r.r == R_DANGLING || r.r == R_LOOP)
        return expect_status(a, f, "F14", &(struct allowed){.st = {404}, .n = 1},
                             "404 NOT_FOUND: the path cannot be resolved");
    if (r.r == R_ABSENT || r.r == R_NOPARENT)
        return expect_status(a, f, clause, &(struct allowed){.st = {404}, .n = 1},
                             "404 NOT_FOUND for an absent path");
    struct xnode *n = r.node;
    if (n->type == XN_FIFO)
        return expect_status(a, f, "S9", &(struct allowed){.any4xx = true},
                             "a prompt 4xx Error for a FIFO");
    if (head) {
        if (expect_status(a, f, "F9", &(struct allowed){.st = {200}, .n = 1},
                          "200 for an existing file or directory"))
            return 1;
        if (a->body_len) return finding(f, "F9", a, "no body in a HEAD answer");
        return 0;
    }
    if (n->type == XN_DIR) return check_listing(m, r.path, a, f);
    if (op->ranged) {
        size_t off = 0, len = 0;
        if (!range_slice(op, n->size, &off, &len)) return 0; /* not satisfiable: open */
        if (a->status != 206 || a->body_len != len || memcmp(a->body, n->data + off, len) != 0)
            return finding(f, "F7", a, "206 with bytes %zu-%zu of the %zu-byte file", off,
                           off + len - 1, n->size);
        return 0;
    }
    if (a->status != 200 || !a->ctype || strncasecmp(a->ctype, "application/octet-stream", 24))
        return finding(f, "F7", a, "200 application/octet-stream with the file's %zu bytes",
                       n->size);
    if (a->body_len != n->size || (n->size && memcmp(a->body, n->data, n->size) != 0))
        return finding(f, "F1", a, "the %zu bytes stored", n->size);
    return 0;
}

static bool has_children(struct xmodel *m, const char *dir, bool *unknown_child)
{
    bool any = false;
    char parent[XOP_PATH_MAX * 2];
    *unknown_child = false;
    for (size_t i = 0; i < m->n_nodes; i++) {
        if (!m->nodes[i].path[0]) continue;
        parent_of(m->nodes[i].path, parent, sizeof parent);
        if (strcmp(parent, dir) != 0) continue;
        if (m->nodes[i].type == XN_UNKNOWN)
            *unknown_child = true;
        else
            any = true;
    }
    return any;
}

static int step_delete(struct xmodel *m, const struct xop *op, const struct xans *a,
                       struct xfinding *f)
{
    struct resolved r;
    resolve(m, op->path, false, &r);
    bool success = a->status >= 200 && a->status < 300;
    bool banana = op->recursive == XREC_BANANA;
    if (r.r == R_UNKNOWN || (op->trailing_slash && !(r.r == R_FOUND && r.node->type == XN_DIR) &&
                             r.r != R_ABSENT && r.r != R_NOPARENT)) {
        if (success || a->status >= 500) {
            mark_unknown_deep(m, op->path, 0);
            if (r.via_link && (r.r == R_FOUND || r.r == R_ABSENT)) mark_unknown_deep(m, r.path, 0);
        }
        return 0;
    }
    if (r.r == R_NOTDIR || r.r == R_DANGLING || r.r == R_LOOP) {
        struct allowed al = banana ? two(404, 400) : one(404);
        return expect_status(a, f, "F14", &al, "404 NOT_FOUND: the path cannot be resolved");
    }
    if (r.r == R_ABSENT || r.r == R_NOPARENT) {
        struct allowed al = banana ? two(404, 400) : one(404);
        return expect_status(a, f, "F10", &al, "404 NOT_FOUND for an absent path");
    }
    struct xnode *n = r.node;
    if (banana)
        return expect_status(a, f, "F10", &(struct allowed){.st = {400}, .n = 1},
                             "400 INVALID_ARGUMENT for recursive=banana on an existing path");
    if (n->type == XN_LINK) {
        /* S5: whether the link or its target goes is not fixed. */
        if (a->status >= 500 || a->transport_error)
            return finding(f, "S5", a, "a 2xx or 4xx answer to DELETE of a symlink");
        if (success) {
            struct resolved t;
            resolve(m, op->path, true, &t);
            mark_unknown_deep(m, n->path, 0);
            if (t.r == R_FOUND && t.path[0]) mark_unknown_deep(m, t.path, 0);
        }
        return 0;
    }
    if (n->type == XN_DIR) {
        bool unknown_child = false;
        bool full = has_children(m, n->path, &unknown_child);
        if (!full && unknown_child && op->recursive != XREC_TRUE) {
            if (success) remove_tree(m, n->path);
            return 0;
        }
        if (full && op->recursive != XREC_TRUE)
            return expect_status(a, f, "F10", &(struct allowed){.st = {409}, .n = 1},
                                 "409 CONFLICT for a non-empty directory without recursive=true");
    }
    if (expect_status(a, f, "F10", &(struct allowed){.st = {204}, .n = 1},
                      "204: the path (and the tree below it) is gone"))
        return 1;
    remove_tree(m, n->path);
    return 0;
}

/* ---- Execute ------------------------------------------------------------ */

static int expect_exec(const struct xans *a, struct xfinding *f, const char *clause, int exit_code,
                       const void *out, size_t out_len, const char *what)
{
    if (a->transport_error || a->gcode != 0) return finding(f, "P1", a, "status OK (%s)", what);
    if (exit_code >= 0 && a->exit_code != exit_code)
        return finding(f, clause, a, "exit code %d (%s)", exit_code, what);
    if (exit_code == -2 && a->exit_code == 0)
        return finding(f, clause, a, "a non-zero exit code (%s)", what);
    if (out && (a->out_len != out_len || memcmp(a->out, out, out_len) != 0))
        return finding(f, clause, a, "stdout of %zu bytes (%s)", out_len, what);
    return 0;
}

#define EXIT_ANY (-1)
#define EXIT_NONZERO (-2)

void xmodel_link_text(const struct xop *op, char *buf, size_t len)
{
    size_t ups = 0;
    for (const char *p = op->path; *p; p++)
        ups += *p == '/';
    buf[0] = '\0';
    for (size_t i = 0; i < ups && strlen(buf) + 4 < len; i++)
        strcat(buf, "../");
    if (op->target[0])
        strncat(buf, op->target, len - strlen(buf) - 1);
    else if (!buf[0])
        snprintf(buf, len, ".");
}

/* cwd of a process: P4's answers for a directory that is not one. 0 = the
 * cwd is a directory; 1 = finding; 2 = the expected error came (or open). */
static int check_cwd(struct xmodel *m, const char *path, const struct xans *a, bool started,
                     struct xfinding *f)
{
    struct resolved r;
    resolve(m, path, true, &r);
    if (r.r == R_UNKNOWN) return 2;
    if (r.r == R_FOUND && r.node->type == XN_DIR) return 0;
    if (started) return finding(f, "P8", a, "no process started for a cwd that is not a directory");
    if (a->transport_error || a->gcode == 0)
        return finding(f, "P4", a, "an error status for a cwd that is not a directory");
    if ((r.r == R_ABSENT || r.r == R_NOPARENT) && a->gcode != SBX_GRPC_NOT_FOUND)
        return finding(f, "P4", a, "NOT_FOUND for a cwd that does not exist");
    return 2;
}

static int step_exec(struct xmodel *m, const struct xop *op, const struct xans *a,
                     struct xfinding *f)
{
    struct resolved r;
    switch (op->kind) {
    case XOP_MKDIR:
        resolve(m, op->path, true, &r);
        if (r.r == R_UNKNOWN) {
            mark_unknown_deep(m, op->path, 0);
            return 0;
        }
        if (!r.dangling_last &&
            (r.r == R_ABSENT || r.r == R_NOPARENT || (r.r == R_FOUND && r.node->type == XN_DIR))) {
            if (expect_exec(a, f, "P1", 0, NULL, 0, "mkdir -p of a creatable path")) return 1;
            if (r.r != R_FOUND) {
                make_parents(m, r.path);
                node_set(m, r.path, XN_DIR);
            }
            return 0;
        }
        return expect_exec(a, f, "P1", EXIT_NONZERO, NULL, 0, "mkdir -p over a non-directory");
    case XOP_SYMLINK:
    case XOP_MKFIFO: {
        resolve(m, op->path, false, &r);
        if (r.r == R_UNKNOWN) {
            mark_unknown_deep(m, op->path, 0);
            /* A link made where the model cannot follow makes its target
             * reachable by paths the model cannot follow either. */
            if (op->kind == XOP_SYMLINK) {
                struct resolved t;
                resolve(m, op->target, true, &t);
                mark_unknown_deep(m, op->target, 0);
                if (t.r == R_FOUND || t.r == R_ABSENT) mark_unknown_deep(m, t.path, 0);
            }
            return 0;
        }
        if (op->kind == XOP_SYMLINK && r.via_link)
            return expect_exec(a, f, "P1", 5, NULL, 0, "ln -s refused below a symlink");
        if (r.r == R_FOUND) return expect_exec(a, f, "P1", 3, NULL, 0, "the name exists");
        if (r.r != R_ABSENT)
            return expect_exec(a, f, "P1", EXIT_NONZERO, NULL, 0, "no parent directory");
        if (expect_exec(a, f, "P1", 0, NULL, 0, "a new name in an existing directory")) return 1;
        struct xnode *n = node_set(m, r.path, op->kind == XOP_SYMLINK ? XN_LINK : XN_FIFO);
        if (op->kind == XOP_SYMLINK) {
            n->target = strdup(op->target);
            if (!n->target) abort();
        }
        return 0;
    }
    case XOP_CAT: {
        if (op->in_parent && strchr(op->path, '/')) {
            char parent[XOP_PATH_MAX];
            parent_of(op->path, parent, sizeof parent);
            int c = check_cwd(m, parent, a, false, f);
            if (c) return c == 1;
        }
        resolve(m, op->path, true, &r);
        if (r.r == R_UNKNOWN) return 0;
        if (r.r == R_FOUND && r.node->type == XN_FILE)
            return expect_exec(a, f, "P18", 0, r.node->data, r.node->size,
                               "cat prints the bytes stored through REST");
        if (r.r == R_FOUND && r.node->type == XN_FIFO)
            return expect_exec(a, f, "P1", 4, NULL, 0, "a FIFO is not read");
        return expect_exec(a, f, "P18", EXIT_NONZERO, NULL, 0, "cat of a name that is no file");
    }
    case XOP_STAT: {
        resolve(m, op->path, true, &r);
        if (r.r == R_UNKNOWN) return 0;
        if (r.r == R_FOUND && r.node->type == XN_FILE) {
            char want[16];
            snprintf(want, sizeof want, "%o\n", r.node->mode);
            return expect_exec(a, f, "F3", 0, want, strlen(want), "the mode PUT set");
        }
        if (r.r == R_FOUND) return expect_exec(a, f, "P1", 0, NULL, 0, "stat of an existing name");
        return expect_exec(a, f, "P1", EXIT_NONZERO, NULL, 0, "stat of an absent name");
    }
    case XOP_ENV:
        return expect_exec(a, f, "P3", 0, op->input, strlen(op->input),
                           "the request's environment variable");
    case XOP_BADCMD:
        if (op->empty_argv) {
            if (a->gcode != SBX_GRPC_INVALID_ARGUMENT)
                return finding(f, "P5", a, "INVALID_ARGUMENT for an empty command");
        } else if (a->gcode != SBX_GRPC_NOT_FOUND) {
            return finding(f, "P6", a, "NOT_FOUND for a command that cannot be found");
        }
        return 0;
    default:
        return 0;
    }
}

/* ---- processes ------------------------------------------------------------ */

static struct xslot *slot_at(struct xmodel *m, int slot)
{
    if (slot < 0) return NULL;
    if ((size_t)slot >= m->n_slots) {
        size_t n = (size_t)slot + 8;
        struct xslot *grown = realloc(m->slots, n * sizeof *grown);
        if (!grown) abort();
        memset(grown + m->n_slots, 0, (n - m->n_slots) * sizeof *grown);
        m->slots = grown;
        m->n_slots = n;
    }
    return &m->slots[slot];
}

/* P7: the events after the InitEvent: output, one exit, then status OK. */
static int check_stream_end(const struct xans *a, struct xfinding *f, const char *why)
{
    if (a->drain_timeout)
        return finding(f, why[0] == 'e' ? "P12" : "P13", a, "the stream ends (%s)", why);
    size_t n = strlen(a->events);
    if (a->n_exits != 1 || n == 0 || a->events[n - 1] != 'X' || strchr(a->events, 'I'))
        return finding(f, "P7", a, "output events, then exactly one ExitEvent as the last (%s)",
                       why);
    if (a->end_code != 0) return finding(f, "P7", a, "the stream ends with status OK (%s)", why);
    return 0;
}

static bool unknown_status(int code)
{
    return code == SBX_GRPC_NOT_FOUND;
}

static int step_process(struct xmodel *m, const struct xop *op, const struct xans *a,
                        struct xfinding *f)
{
    struct xslot *s = slot_at(m, op->slot);
    enum xslot_state st = s ? s->st : XS_NONE;
    if (a->skipped) return 0;
    switch (op->kind) {
    case XOP_START: {
        if (op->has_cwd) {
            int c = check_cwd(m, op->path, a, a->init, f);
            if (c == 1) {
                s->st = a->init ? XS_LIVE : XS_FAILED;
                s->pid = a->pid;
                s->pty = op->pty;
                return 1;
            }
            if (c == 2) {
                s->st = a->init ? XS_LIVE : XS_FAILED;
                s->pid = a->pid;
                s->pty = op->pty;
                return 0;
            }
        }
        if (!a->init) {
            s->st = XS_FAILED;
            return finding(f, "P7", a, "an InitEvent as the first message");
        }
        for (size_t i = 0; i < m->n_slots; i++)
            if (m->slots[i].st == XS_LIVE && m->slots[i].pid == a->pid)
                return finding(f, "P9", a, "a process id unique among live processes (#%zu has %d)",
                               i, (int)a->pid);
        s->st = XS_LIVE;
        s->pid = a->pid;
        s->pty = op->pty;
        return 0;
    }
    case XOP_WRITE:
        if (st != XS_LIVE) {
            if (a->gcode != SBX_GRPC_NOT_FOUND)
                return finding(f, "P12", a, "NOT_FOUND for %s",
                               st == XS_ENDED ? "a process whose stream ended" : "an unknown id");
            return 0;
        }
        if (!op->eof) {
            if (!op->input[0]) {
                if (a->gcode != 0 && a->gcode != SBX_GRPC_INVALID_ARGUMENT)
                    return finding(f, "P12", a, "OK (or INVALID_ARGUMENT) for an empty input");
                return 0;
            }
            if (a->gcode != 0) return finding(f, "P12", a, "status OK: the bytes reach stdin");
            size_t n = strlen(op->input);
            uint8_t *grown = realloc(s->input, s->input_len + n);
            if (!grown) abort();
            memcpy(grown + s->input_len, op->input, n);
            s->input = grown;
            s->input_len += n;
            return 0;
        }
        s->st = XS_ENDED;
        if (a->gcode != 0) return finding(f, "P12", a, "status OK for eof");
        if (check_stream_end(a, f, "eof ends cat")) return 1;
        if (a->stream_exit != 0)
            return finding(f, s->pty ? "P15" : "P12", a, "cat exits 0 after eof");
        if (!s->pty && (a->sout_len != s->input_len ||
                        (s->input_len && memcmp(a->sout, s->input, s->input_len) != 0)))
            return finding(f, "P11", a, "stdout events that concatenate to the %zu bytes written",
                           s->input_len);
        return 0;
    case XOP_SIGNAL: {
        bool valid = op->sig == 2 || op->sig == 9 || op->sig == 15;
        if (!valid) {
            if (a->gcode == SBX_GRPC_INVALID_ARGUMENT) return 0;
            if (st != XS_LIVE && unknown_status(a->gcode)) return 0;
            return finding(f, "P13", a, "INVALID_ARGUMENT for signal %d", op->sig);
        }
        if (st == XS_ENDED) {
            if (a->gcode == 0 || unknown_status(a->gcode)) return 0;
            return finding(f, "P13", a, "OK or NOT_FOUND for a process whose stream ended");
        }
        if (st != XS_LIVE) {
            if (!unknown_status(a->gcode))
                return finding(f, "P13", a, "NOT_FOUND for an unknown id");
            return 0;
        }
        s->st = XS_ENDED;
        if (a->gcode != 0) return finding(f, "P13", a, "status OK: the signal is delivered");
        if (check_stream_end(a, f, "signal ends cat")) return 1;
        if (a->stream_exit == 0)
            return finding(f, "P13", a, "a non-zero exit code for a death by signal");
        if (!s->pty && (a->sout_len > s->input_len ||
                        (a->sout_len && memcmp(a->sout, s->input, a->sout_len) != 0)))
            return finding(f, "P11", a, "stdout a prefix of the %zu bytes written", s->input_len);
        return 0;
    }
    case XOP_RESIZE:
        if (st == XS_LIVE && s->pty) {
            if (a->gcode != 0) return finding(f, "P14", a, "status OK for a PTY process");
            return 0;
        }
        if (st == XS_LIVE) {
            if (a->gcode != SBX_GRPC_FAILED_PRECONDITION)
                return finding(f, "P14", a, "FAILED_PRECONDITION for a process without a PTY");
            return 0;
        }
        if (st == XS_ENDED) {
            if (a->gcode == SBX_GRPC_NOT_FOUND || a->gcode == SBX_GRPC_FAILED_PRECONDITION)
                return 0;
            return finding(f, "P14", a, "NOT_FOUND for a process whose stream ended");
        }
        if (a->gcode != SBX_GRPC_NOT_FOUND)
            return finding(f, "P14", a, "NOT_FOUND for an unknown id");
        return 0;
    default:
        return 0;
    }
}

/* ---- health and metadata --------------------------------------------------- */

static bool has_marker(const char *name)
{
    static const char *const markers[] = {"TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "KEY"};
    char up[256];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof up; i++)
        up[i] = (char)toupper((unsigned char)name[i]);
    up[i] = '\0';
    for (size_t k = 0; k < sizeof markers / sizeof markers[0]; k++)
        if (strstr(up, markers[k])) return true;
    return false;
}

static int step_service(const struct xop *op, const struct xans *a, struct xfinding *f)
{
    json_t *doc = a->status == 200 && is_json(a)
                      ? json_loadb((const char *)a->body, a->body_len, 0, NULL)
                      : NULL;
    int rc = 0;
    if (op->kind == XOP_HEALTH) {
        const char *st = json_string_value(json_object_get(doc, "status"));
        if (!st || strcmp(st, "ok") != 0) rc = finding(f, "M1", a, "200 {\"status\":\"ok\"}");
    } else {
        json_t *env = json_object_get(doc, "env");
        if (!json_is_object(env)) {
            rc = finding(f, "M3", a, "200 {\"env\": {...}} (an object)");
        } else {
            const char *k;
            json_t *v;
            json_object_foreach(env, k, v)
            {
                if (has_marker(k)) {
                    rc = finding(f, "M4", a,
                                 "no variable whose name holds a credential marker "
                                 "(served: %s)",
                                 k);
                    break;
                }
            }
        }
    }
    if (rc && op->kind == XOP_METADATA) {
        /* A runtime that fails M3/M4 may be serving secrets: the report names
         * what was served, never a value. */
        free(f->observed);
        struct sbuf names = {0};
        sbuf_printf(&names, "HTTP %ld, variables served (values withheld):", a->status);
        json_t *env = json_object_get(doc, "env");
        const char *k;
        json_t *v;
        if (json_is_object(env)) {
            json_object_foreach(env, k, v)
            {
                sbuf_printf(&names, " %s", k);
            }
        } else {
            sbuf_puts(&names, " no env object");
        }
        f->observed = sbuf_take(&names);
    }
    json_decref(doc);
    return rc;
}

/* ---- dispatch ---------------------------------------------------------------- */

int xmodel_step(struct xmodel *m, const struct xop *op, const struct xans *a, struct xfinding *f)
{
    memset(f, 0, sizeof *f);
    if (a->skipped) return 0;
    bool rest = op->kind == XOP_PUT || op->kind == XOP_GET || op->kind == XOP_HEAD ||
                op->kind == XOP_DELETE || op->kind == XOP_LIST;
    if (rest && op->nul) {
        if (op->kind == XOP_PUT) {
            struct resolved r;
            resolve(m, op->path, true, &r);
            if (r.r == R_NOPARENT) mark_missing_parent(m, r.path);
        }
        /* S8: NUL answers 400; which error wins beside another is not fixed. */
        return expect_status(a, f, "S8", &(struct allowed){.any4xx = true},
                             "a 4xx Error (400) for a path holding %00");
    }
    if (rest && strchr(op->path, '\\') && a->status >= 400 && a->status < 500) {
        /* S8: a backslash may be taken literally or refused with a 4xx Error. */
        if (op->kind == XOP_PUT) {
            struct resolved r;
            resolve(m, op->path, true, &r);
            if (r.r == R_NOPARENT) mark_missing_parent(m, r.path);
        }
        return check_error_body(a, f);
    }
    switch (op->kind) {
    case XOP_PUT:
        return step_put(m, op, a, f);
    case XOP_GET:
    case XOP_HEAD:
    case XOP_LIST:
        return step_read(m, op, a, f);
    case XOP_DELETE:
        return step_delete(m, op, a, f);
    case XOP_MKDIR:
    case XOP_SYMLINK:
    case XOP_MKFIFO:
    case XOP_CAT:
    case XOP_STAT:
    case XOP_ENV:
    case XOP_BADCMD:
        return step_exec(m, op, a, f);
    case XOP_START:
    case XOP_WRITE:
    case XOP_SIGNAL:
    case XOP_RESIZE:
        return step_process(m, op, a, f);
    case XOP_HEALTH:
    case XOP_METADATA:
        return step_service(op, a, f);
    case XOP__COUNT:
        break;
    }
    return 0;
}
