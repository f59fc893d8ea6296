/* SPDX-License-Identifier: Apache-2.0 */
/* Symlink confinement (S2, S4, S5, S6): links built through Execute inside
 * the case directory point at canaries outside the root, absolutely and
 * relatively, directly, through chains (in -> in -> out), as a parent
 * directory and in the middle of a path; plus dangling links whose target
 * would be created outside, and loops. Every request is followed by an
 * Execute check that nothing outside changed. (A link as process cwd is
 * P4's business.) */
#include "case_api.h"
#include "common/conf_util.h"
#include "common/rest_expect.h"
#include "common/step_budget.h"
#include "confinement/canary.h"
#include "rest_client.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sl_env {
    struct canary_set c;
    int up;          /* levels from <case_dir>/links to the root's parent */
    char inside[64]; /* content of links/real/inner.txt */
    /* Each request and its Execute check is a step; the links' and the
     * canaries' removal follow the last. */
    struct step_budget budget;
};

/* Links (in <case_dir>/links) and what they lead to. */
static const char *const escaping_links[] = {
    "abs_file", "rel_file", "tmp_file", "fchain1", "fchain2", "abs_dir",
    "rel_dir",  "chain1",   "chain2",   "upchain", "sibdir",
};
static const char *const dangling_links[] = {
    "dang_out_abs", "dang_out_rel", "dang_out_tmp", "dchain", "dang_dir_out", "dang_in",
};

static char *links_script(const struct sl_env *e)
{
    const struct canary_set *c = &e->c;
    struct sbuf up = {0}, up2 = {0};
    for (int i = 0; i < e->up; i++)
        sbuf_puts(&up, "../");
    for (int i = 0; i < e->up + 1; i++)
        sbuf_puts(&up2, "../");
    char *qp = conf_sh_quote(c->parent);
    char *qsib = conf_sh_quote(c->sib);
    char *script = conf_xasprintf(
        "set -e\nP=%s; ID='%s'; SIB=%s; U='%s'; U2='%s'\n"
        "rm -rf links; mkdir -p links/real links/tree/a/b; cd links\n"
        "printf %%s '%s' > real/inner.txt\n"
        /* escaping, direct and relative */
        "ln -s \"$P/$ID-file\" abs_file\n"
        "ln -s \"$U$ID-file\" rel_file\n"
        "ln -s \"/tmp/$ID-tmpfile\" tmp_file\n"
        "ln -s \"$P/$ID-dir\" abs_dir\n"
        "ln -s \"$U$ID-dir\" rel_dir\n"
        "ln -s \"$U$ID-dir/../$ID-dir\" upchain\n"
        "ln -s \"$U$SIB\" sibdir\n"
        /* chains: in -> in -> out */
        "ln -s fchain2 fchain1; ln -s rel_file fchain2\n"
        "ln -s chain2 chain1; ln -s abs_dir chain2\n"
        /* links in the middle of a path */
        "ln -s \"$P/$ID-dir\" real/mid\n"
        "ln -s \"$U2$ID-dir\" real/midrel\n"
        "ln -s real in_dir; ln -s real/inner.txt in_file\n"
        /* dangling: targets that would be created outside, and inside */
        "ln -s \"$P/$ID-new-dangabs\" dang_out_abs\n"
        "ln -s \"$U$ID-new-dangrel\" dang_out_rel\n"
        "ln -s \"/tmp/$ID-new-dangtmp\" dang_out_tmp\n"
        "ln -s dang_out_abs dchain\n"
        "ln -s \"$P/$ID-new-dangdir\" dang_dir_out\n"
        "ln -s nothere dang_in\n"
        "ln -s loop2 loop1; ln -s loop1 loop2\n"
        /* a tree for recursive deletes */
        "printf %%s '%s' > tree/plain.txt\n"
        "ln -s \"$P/$ID-file\" tree/abs_file; ln -s \"$P/$ID-dir\" tree/abs_dir\n"
        "ln -s \"$U2$ID-dir\" tree/rel_dir; ln -s abs_dir tree/chain\n"
        "ln -s \"/tmp/$ID-tmpfile\" tree/tmp_file\n"
        "ln -s \"$P/$ID-dir\" tree/a/b/deep_dir; ln -s \"$P/$ID-file\" tree/a/b/deep_file\n"
        "ln -s \"$U2$SIB\" tree/sibdir\n",
        qp, c->id, qsib, up.s ? up.s : "", up2.s ? up2.s : "", e->inside, e->inside);
    free(qp);
    free(qsib);
    sbuf_free(&up);
    sbuf_free(&up2);
    return script;
}

static int sl_links(struct case_ctx *ctx, struct sl_env *e)
{
    char *script = links_script(e);
    char why[400];
    int rc = conf_sh(ctx, script, NULL, why, sizeof why);
    free(script);
    if (rc != 0) {
        case_error(ctx, "could not build the symlinks through Execute (`ln -s`): %s", why);
        return -1;
    }
    return 0;
}

static int sl_setup(struct case_ctx *ctx, struct sl_env *e)
{
    memset(e, 0, sizeof *e);
    step_budget_init(&e->budget, 2);
    if (canary_plant(ctx, &e->c) != 0) return -1;
    e->up = conf_path_depth(case_dir(ctx)) + 2;
    snprintf(e->inside, sizeof e->inside, "INSIDE-%s", e->c.hex);
    if (sl_links(ctx, e) != 0) return -1;
    /* Renew the baseline: nothing outside may have changed by now. */
    char *diff = NULL;
    if (canary_check(ctx, &e->c, &diff) != 0) {
        case_error(ctx, "outside state changed while building links: %s", diff ? diff : "");
        free(diff);
        return -1;
    }
    return 0;
}

static void sl_teardown(struct case_ctx *ctx, struct sl_env *e)
{
    step_budget_conclude(ctx, &e->budget, 0, "requests");
    /* The links go first, through Execute (rm never follows them), so the
     * runner's recursive clean-up of the case directory over REST never
     * meets a link to outside, whatever the runtime does with links. */
    char why[200];
    if (e->c.parent) conf_sh(ctx, "rm -rf links", NULL, why, sizeof why);
    canary_remove(ctx, &e->c);
    canary_free(&e->c);
}

/* Whether the canaries a path needs exist. */
static bool sl_available(const struct sl_env *e, const char *rel)
{
    if (strstr(rel, "tmp")) return e->c.have_tmp;
    return e->c.have_parent;
}

static char *sl_target(struct case_ctx *ctx, const char *rel, const char *query)
{
    char *path = conf_xasprintf("%s/links/%s", case_dir(ctx), rel);
    char *t = rest_files_target(path);
    char *out = conf_xasprintf("%s%s%s", t, query ? "?" : "", query ? query : "");
    free(t);
    free(path);
    return out;
}

/* After a request: the body reveals nothing outside and nothing outside
 * changed. */
static void sl_after(struct case_ctx *ctx, struct sl_env *e, const char *method, const char *target,
                     const struct http_response *resp)
{
    char why[200];
    if (resp->status &&
        canary_body_leaks(&e->c, resp->body, resp->body_len, target, why, sizeof why))
        case_fail(ctx, "nothing outside the root is revealed", "%s", why);
    if (canary_length_leaks(&e->c, method, resp))
        case_fail(ctx, "nothing outside the root is revealed",
                  "status %ld with Content-Length %lld, the size of a canary outside the root",
                  resp->status, resp->content_length);
    char *diff = NULL;
    int ch = canary_check(ctx, &e->c, &diff);
    if (ch == 1) {
        case_request(ctx, "%s %s", method, target);
        case_fail(ctx, "nothing outside the root is created, changed or removed", "%s", diff);
    } else if (ch < 0)
        case_error(ctx, "%s", diff);
    free(diff);
}

/* One request through a link; returns the status (0 = none, or not sent
 * because the case's time is running out: see sl_teardown). */
static long sl_do(struct case_ctx *ctx, struct sl_env *e, const char *method, const char *rel,
                  const char *query, const char *body, struct http_response *resp)
{
    memset(resp, 0, sizeof *resp);
    if (!step_budget_next(ctx, &e->budget)) return 0;
    char *target = sl_target(ctx, rel, query);
    static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
    bool got = rx_send(ctx, NULL, method, target, body, body ? strlen(body) : 0,
                       body ? octet : NULL, resp);
    sl_after(ctx, e, method, target, resp);
    step_budget_done(&e->budget);
    free(target);
    return got ? resp->status : 0;
}

/* The request must answer 403 (with an Error body of PERMISSION_DENIED
 * unless HEAD). */
static void sl_expect_403(struct case_ctx *ctx, struct sl_env *e, const char *method,
                          const char *rel, const char *query, const char *body)
{
    if (!sl_available(e, rel)) return;
    struct http_response resp;
    long s = sl_do(ctx, e, method, rel, query, body, &resp);
    if (s) {
        if (strcmp(method, "HEAD") == 0)
            CASE_CHECK(ctx, s == 403, "403 for a path through a symlink leading outside",
                       "status %ld", s);
        else
            expect_error_body(ctx, &resp, 403, "PERMISSION_DENIED");
    }
    http_response_free(&resp);
}

static char *marker(const struct sl_env *e, const char *what)
{
    return conf_xasprintf("sbxmarker-%s-%s", e->c.hex, what);
}

/* ---- S2: reads and listings through escaping links ------------------------ */

static void s2_reads(struct case_ctx *ctx)
{
    struct sl_env e;
    if (sl_setup(ctx, &e) != 0) {
        sl_teardown(ctx, &e);
        return;
    }
    const struct canary_set *c = &e.c;
    char *files[] = {
        conf_xstrdup("abs_file"),
        conf_xstrdup("rel_file"),
        conf_xstrdup("tmp_file"),
        conf_xstrdup("fchain1"),
        conf_xasprintf("abs_dir/%s", c->pinner),
        conf_xasprintf("rel_dir/%s", c->pinner),
        conf_xasprintf("chain1/%s", c->pinner),
        conf_xasprintf("real/mid/%s", c->pinner),
        conf_xasprintf("real/midrel/%s", c->pinner),
        conf_xasprintf("in_dir/mid/%s", c->pinner),
        conf_xasprintf("upchain/%s", c->pinner),
        conf_xasprintf("sibdir/%s", c->sibfile),
    };
    const char *dirs[] = {"abs_dir",     "abs_dir/",   "rel_dir", "chain1",   "real/mid",
                          "real/midrel", "in_dir/mid", "upchain", "upchain/", "sibdir"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        sl_expect_403(ctx, &e, "GET", files[i], NULL, NULL);
        sl_expect_403(ctx, &e, "HEAD", files[i], NULL, NULL);
        free(files[i]);
    }
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        sl_expect_403(ctx, &e, "GET", dirs[i], NULL, NULL);
        sl_expect_403(ctx, &e, "HEAD", dirs[i], NULL, NULL);
    }
    sl_teardown(ctx, &e);
}
SBX_CASE(s2_reads, .id = "S2-001",
         .title = "Symlinks leading outside cannot be read, stat'ed or listed (403)",
         .clauses = "S2", .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 60,
         .catches = "symlinks followed out of the root for GET, HEAD or listings: absolute and "
                    "relative links, chains (in -> in -> out), links to directories used as "
                    "parents, a link in the middle of a path, a link through the root's parent, a "
                    "link to a sibling whose name extends the root's",
         .how = "builds links with Execute `ln -s` in the case directory to canaries outside the "
                "root (its parent and /tmp); GET and HEAD through each must answer 403 (GET with "
                "an Error body of code PERMISSION_DENIED, checked against the OpenAPI document), "
                "no body may carry canary content or names, and Execute confirms nothing "
                "outside changed");

/* ---- S2: writes through escaping links ---------------------------------- */

static void s2_writes(struct case_ctx *ctx)
{
    struct sl_env e;
    if (sl_setup(ctx, &e) != 0) {
        sl_teardown(ctx, &e);
        return;
    }
    struct canary_set *c = &e.c;
    char n[16][96];
    char *paths[] = {
        conf_xstrdup("abs_file"),
        conf_xstrdup("rel_file"),
        conf_xstrdup("tmp_file"),
        conf_xstrdup("fchain1"),
        conf_xasprintf("abs_dir/%s", c->pinner),
        conf_xasprintf("abs_dir/%s", canary_new_name(c, n[0], sizeof n[0])),
        conf_xasprintf("rel_dir/%s", canary_new_name(c, n[1], sizeof n[1])),
        conf_xasprintf("chain1/%s", canary_new_name(c, n[2], sizeof n[2])),
        conf_xasprintf("real/mid/%s", canary_new_name(c, n[3], sizeof n[3])),
        conf_xasprintf("real/midrel/%s", canary_new_name(c, n[4], sizeof n[4])),
        conf_xasprintf("in_dir/mid/%s", canary_new_name(c, n[5], sizeof n[5])),
        conf_xasprintf("upchain/%s", canary_new_name(c, n[6], sizeof n[6])),
        conf_xasprintf("upchain/%s", c->pinner),
        conf_xasprintf("sibdir/%s", canary_new_name(c, n[7], sizeof n[7])),
        conf_xasprintf("abs_dir/%s/%s", canary_new_name(c, n[8], sizeof n[8]), c->pinner),
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char *m = marker(&e, paths[i]);
        sl_expect_403(ctx, &e, "PUT", paths[i], NULL, m);
        free(m);
        free(paths[i]);
    }
    sl_teardown(ctx, &e);
}
SBX_CASE(s2_writes, .id = "S2-002",
         .title = "Symlinks leading outside cannot be written through (403)", .clauses = "S2",
         .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 60,
         .catches = "PUT following a link out of the root: overwriting an outside file through "
                    "a link to it (direct, relative, chained), creating files through a "
                    "symlinked parent directory, a link in the middle of the path, or creating "
                    "parent directories beneath one",
         .how = "PUT through each escaping link (at the last component and as a parent) must "
                "answer 403 with an Error body of code PERMISSION_DENIED; after each, Execute "
                "confirms every canary unchanged and no new name outside");

/* ---- S2: deletes through escaping parents -------------------------------- */

static void s2_deletes(struct case_ctx *ctx)
{
    struct sl_env e;
    if (sl_setup(ctx, &e) != 0) {
        sl_teardown(ctx, &e);
        return;
    }
    const struct canary_set *c = &e.c;
    char *paths[] = {
        conf_xasprintf("abs_dir/%s", c->pinner),     conf_xasprintf("rel_dir/%s", c->pinner),
        conf_xasprintf("chain1/%s", c->pinner),      conf_xasprintf("real/mid/%s", c->pinner),
        conf_xasprintf("real/midrel/%s", c->pinner), conf_xasprintf("in_dir/mid/%s", c->pinner),
        conf_xasprintf("upchain/%s", c->pinner),     conf_xasprintf("sibdir/%s", c->sibfile),
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        sl_expect_403(ctx, &e, "DELETE", paths[i], NULL, NULL);
        free(paths[i]);
    }
    /* Only ever at our own canary directory: a recursive delete through a
     * parent link. */
    char *p = conf_xasprintf("real/mid/%s", c->pinner);
    sl_expect_403(ctx, &e, "DELETE", p, "recursive=true", NULL);
    free(p);
    sl_teardown(ctx, &e);
}
SBX_CASE(s2_deletes, .id = "S2-003",
         .title = "Files outside cannot be deleted through a symlinked parent (403)",
         .clauses = "S2", .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 60,
         .catches = "DELETE resolving a symlinked parent directory (absolute, relative, chained, "
                    "in the middle of the path, through the root's parent) and removing the "
                    "outside file",
         .how = "DELETE of <link>/<canary> for each escaping directory link must answer 403 "
                "with an Error body of code PERMISSION_DENIED, and Execute must find every "
                "canary still there, unchanged");

/* ---- S4: PUT through dangling links and symlinked parents -------------- */

static void s4_put_dangling(struct case_ctx *ctx)
{
    struct sl_env e;
    if (sl_setup(ctx, &e) != 0) {
        sl_teardown(ctx, &e);
        return;
    }
    struct canary_set *c = &e.c;
    char n[8][96];
    char *paths[] = {
        conf_xstrdup("dang_out_abs"),
        conf_xstrdup("dang_out_rel"),
        conf_xstrdup("dang_out_tmp"),
        conf_xstrdup("dchain"),
        conf_xasprintf("dang_dir_out/%s", canary_new_name(c, n[0], sizeof n[0])),
        conf_xasprintf("dang_dir_out/%s/%s", canary_new_name(c, n[1], sizeof n[1]), c->pinner),
        conf_xasprintf("abs_dir/%s", canary_new_name(c, n[2], sizeof n[2])),
        conf_xasprintf("upchain/%s", canary_new_name(c, n[3], sizeof n[3])),
        conf_xasprintf("real/mid/%s/%s", canary_new_name(c, n[4], sizeof n[4]), c->pinner),
        conf_xasprintf("chain1/%s", c->pinner),
        conf_xstrdup("loop1"),
        conf_xasprintf("loop1/%s", canary_new_name(c, n[5], sizeof n[5])),
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        if (!sl_available(&e, paths[i])) {
            free(paths[i]);
            continue;
        }
        char *m = marker(&e, paths[i]);
        struct http_response resp;
        long s = sl_do(ctx, &e, "PUT", paths[i], NULL, m, &resp);
        if (s >= 200 && s < 300)
            case_note(ctx, "PUT %s answered %ld (nothing outside changed)", paths[i], s);
        http_response_free(&resp);
        free(m);
        free(paths[i]);
        /* A link replaced by a file must not let the next PUT pass. */
        if (e.budget.out_of_time || sl_links(ctx, &e) != 0) break;
    }
    sl_teardown(ctx, &e);
}
SBX_CASE(s4_put_dangling, .id = "S4-001",
         .title = "PUT through a dangling symlink or symlinked parent never writes outside",
         .clauses = "S4", .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 60,
         .catches = "PUT that creates the target of a dangling link outside the root (absolute, "
                    "relative, in /tmp, chained), creates directories through a dangling parent "
                    "link, writes through a symlinked parent, or follows a link loop anywhere",
         .how = "PUT through each link (rebuilt before every request); whatever the status, "
                "Execute must find no new name outside (the would-be targets carry a unique id) "
                "and every canary unchanged");

/* ---- S5: DELETE of links ------------------------------------------------- */

static bool sl_link_present(struct case_ctx *ctx, const char *rel, bool *present)
{
    char *q = conf_sh_quote(rel);
    char *script = conf_xasprintf("if [ -L links/%s ]; then echo present; fi", q);
    char *out = NULL;
    char why[200];
    int rc = conf_sh(ctx, script, &out, why, sizeof why);
    *present = out && strstr(out, "present");
    free(out);
    free(script);
    free(q);
    return rc == 0;
}

static void s5_delete_link(struct case_ctx *ctx)
{
    struct sl_env e;
    if (sl_setup(ctx, &e) != 0) {
        sl_teardown(ctx, &e);
        return;
    }
    static const struct {
        const char *rel, *query;
    } reqs[] = {
        {"abs_file", NULL},
        {"rel_file", NULL},
        {"tmp_file", NULL},
        {"fchain1", NULL},
        {"abs_dir", NULL},
        {"abs_dir", "recursive=true"},
        {"rel_dir", "recursive=true"},
        {"chain1", "recursive=true"},
        {"sibdir", "recursive=true"},
        {"real/mid", "recursive=true"},
        {"real/midrel", "recursive=true"},
        {"abs_dir/", "recursive=true"},
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        if (!sl_available(&e, reqs[i].rel)) continue;
        if (e.budget.out_of_time || (i > 0 && sl_links(ctx, &e) != 0)) break;
        struct http_response resp;
        long s = sl_do(ctx, &e, "DELETE", reqs[i].rel, reqs[i].query, NULL, &resp);
        if (s == 403) {
            expect_error_body(ctx, &resp, 403, "PERMISSION_DENIED");
        } else if (s >= 200 && s < 300) {
            char rel[64];
            snprintf(rel, sizeof rel, "%s", reqs[i].rel);
            size_t rl = strlen(rel);
            if (rl && rel[rl - 1] == '/') rel[rl - 1] = '\0';
            bool present = false;
            if (sl_link_present(ctx, rel, &present) && present)
                case_note(ctx, "DELETE %s answered %ld but the link is still there", reqs[i].rel,
                          s);
        } else if (s) {
            case_fail(ctx, "403, or 2xx removing only the link", "DELETE %s%s%s: status %ld",
                      reqs[i].rel, reqs[i].query ? "?" : "", reqs[i].query ? reqs[i].query : "", s);
        }
        http_response_free(&resp);
    }
    sl_teardown(ctx, &e);
}
SBX_CASE(s5_delete_link, .id = "S5-001",
         .title = "DELETE of a symlink never deletes what it points to outside", .clauses = "S5",
         .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 60,
         .catches = "DELETE of a link to an outside file or directory (absolute, relative, "
                    "chained, with and without recursive=true) that removes or empties the "
                    "target instead of the link",
         .how = "for each link (rebuilt before every request) DELETE must answer 403 (Error "
                "body PERMISSION_DENIED) or 2xx; either way Execute must find the outside "
                "target and its contents intact and nothing else changed outside");

static void s5_recursive_tree(struct case_ctx *ctx)
{
    struct sl_env e;
    if (sl_setup(ctx, &e) != 0) {
        sl_teardown(ctx, &e);
        return;
    }
    const char *trees[] = {"tree", "real"};
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        if (i > 0 && sl_links(ctx, &e) != 0) break;
        char *path = trees[i][0] ? conf_xasprintf("%s/links/%s", case_dir(ctx), trees[i])
                                 : conf_xasprintf("%s/links", case_dir(ctx));
        char *base = rest_files_target(path);
        char *target = conf_xasprintf("%s?recursive=true", base);
        struct http_response resp = {0};
        if (rx_send(ctx, NULL, "DELETE", target, NULL, 0, NULL, &resp)) {
            sl_after(ctx, &e, "DELETE", target, &resp);
            case_note(ctx, "recursive DELETE of %s answered %ld", path, resp.status);
        }
        http_response_free(&resp);
        free(target);
        free(base);
        free(path);
    }
    sl_teardown(ctx, &e);
}
SBX_CASE(s5_recursive_tree, .id = "S5-002",
         .title = "Recursive DELETE never follows symlinks out of the tree", .clauses = "S5",
         .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 60,
         .catches = "a recursive delete that descends into links to outside directories "
                    "(absolute, relative, chained, deep in the tree) or unlinks outside files "
                    "through them",
         .how = "builds trees holding links to the canaries (file, directory, chain, /tmp, a "
                "sibling of the root) and deletes them with recursive=true; whatever the status, "
                "Execute must find every canary and the canary directories' contents intact");

/* ---- S6: listings --------------------------------------------------------- */

static bool looks_like_canary_time(const char *t)
{
    /* The canaries' mtime is 2001-02-03 04:05:06 local time: any entry in
     * early February 2001 betrays one. */
    return t && strncmp(t, "2001-02-0", 9) == 0;
}

static void s6_check_listing(struct case_ctx *ctx, struct sl_env *e, const char *rel,
                             const char *const *absent, size_t nabsent, const char *must_have)
{
    char *path = rel[0] ? conf_xasprintf("%s/links/%s", case_dir(ctx), rel)
                        : conf_xasprintf("%s/links", case_dir(ctx));
    char *target = rest_files_target(path);
    struct http_response resp = {0};
    if (!rx_send(ctx, NULL, "GET", target, NULL, 0, NULL, &resp)) goto out;
    sl_after(ctx, e, "GET", target, &resp);
    json_error_t jerr;
    json_t *doc = resp.status == 200 ? json_loadb(resp.body, resp.body_len, 0, &jerr) : NULL;
    json_t *entries = json_object_get(doc, "entries");
    if (!json_is_array(entries)) {
        case_fail(ctx, "200 with a DirectoryListing (F8) so the listing can be checked",
                  "status %ld, body %s", resp.status, rx_preview(&resp));
        json_decref(doc);
        goto out;
    }
    bool saw_must = false;
    size_t i;
    json_t *ent;
    json_array_foreach(entries, i, ent)
    {
        const char *name = json_string_value(json_object_get(ent, "name"));
        if (!name) continue;
        if (must_have && strcmp(name, must_have) == 0) saw_must = true;
        for (size_t k = 0; k < nabsent; k++)
            if (strcmp(name, absent[k]) == 0)
                case_fail(ctx, "escaping and dangling symlinks are left out of the listing",
                          "listing of %s shows \"%s\"", path, name);
        json_t *size = json_object_get(ent, "size");
        if (json_is_integer(size) && canary_size_matches(&e->c, json_integer_value(size)))
            case_fail(ctx, "no entry reports the size of a file outside the root",
                      "listing of %s: entry \"%s\" has size %lld, a canary's size", path, name,
                      (long long)json_integer_value(size));
        const char *mt = json_string_value(json_object_get(ent, "modified_at"));
        if (looks_like_canary_time(mt))
            case_fail(ctx, "no entry reports the time of a file outside the root",
                      "listing of %s: entry \"%s\" has modified_at %s, the canaries' mtime", path,
                      name, mt);
    }
    if (must_have && !saw_must) case_note(ctx, "listing of %s does not show %s", path, must_have);
    json_decref(doc);
out:
    http_response_free(&resp);
    free(target);
    free(path);
}

static void s6_listing(struct case_ctx *ctx)
{
    struct sl_env e;
    if (sl_setup(ctx, &e) != 0) {
        sl_teardown(ctx, &e);
        return;
    }
    const char *top_absent[sizeof escaping_links / sizeof escaping_links[0] +
                           sizeof dangling_links / sizeof dangling_links[0]];
    size_t n = 0;
    for (size_t i = 0; i < sizeof escaping_links / sizeof escaping_links[0]; i++)
        top_absent[n++] = escaping_links[i];
    for (size_t i = 0; i < sizeof dangling_links / sizeof dangling_links[0]; i++)
        top_absent[n++] = dangling_links[i];
    static const char *const real_absent[] = {"mid", "midrel"};
    static const char *const tree_absent[] = {"abs_file", "abs_dir",  "rel_dir",
                                              "chain",    "tmp_file", "sibdir"};
    static const char *const deep_absent[] = {"deep_dir", "deep_file"};
    s6_check_listing(ctx, &e, "", top_absent, n, "real");
    s6_check_listing(ctx, &e, "real", real_absent, 2, "inner.txt");
    s6_check_listing(ctx, &e, "in_dir", real_absent, 2, "inner.txt");
    s6_check_listing(ctx, &e, "tree", tree_absent, 6, "plain.txt");
    s6_check_listing(ctx, &e, "tree/a/b", deep_absent, 2, NULL);
    sl_teardown(ctx, &e);
}
SBX_CASE(s6_listing, .id = "S6-001",
         .title = "Listings leave out escaping and dangling links and reveal nothing outside",
         .clauses = "S6", .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 60,
         .catches = "listings that show links leading outside or dangling, or that report the "
                    "size, mode or time of an outside file through a link (stat following the "
                    "link)",
         .how =
             "lists directories holding escaping links (absolute, relative, chained, through "
             "the root's parent, to /tmp), dangling links (outside and inside targets) and loops; "
             "no escaping or dangling link may be named, no entry may carry a canary's size or "
             "its February 2001 mtime, no body a canary's content or name; Execute confirms "
             "nothing outside changed");
