/* SPDX-License-Identifier: Apache-2.0 */
/* The traversal driver: every vector of the corpus tried with GET, HEAD,
 * PUT and DELETE against the canaries, each answer judged by the universal
 * checks and the clause's own judge. */
#include "confinement/traversal_internal.h"

#include "confinement/traversal.h"

#include "case_api.h"
#include "common/step_budget.h"
#include "data_dir.h"
#include "rest_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *const methods[] = {"GET", "HEAD", "PUT", "DELETE"};

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
    if (trav_expand(tmpl, &e, rel, &needs, err, errlen) != 0) return -2;
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
    int rc = trav_send_following(ctx, &req, &resp, &last, &hops, &via);
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
    trav_fixture_script(&run);
    trav_read_host_secret(ctx, &run);
    char *names_before = trav_root_names(ctx, &run);
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
    size_t vectors = 0, selected = 0;
    for (size_t i = 0; i < corpus.n; i++)
        if (opts->classes & TC_BIT(corpus.v[i].cls)) selected++;
    /* A vector (four requests and an Execute check) is a step; the debris
     * and canary removal follow the last. */
    struct step_budget budget;
    step_budget_init(&budget, 3);
    for (size_t i = 0; i < corpus.n && !st.stop; i++) {
        const struct trav_vector *v = &corpus.v[i];
        if (!(opts->classes & TC_BIT(v->cls))) continue;
        if (!step_budget_next(ctx, &budget)) break;
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
        step_budget_done(&budget);
    }
    step_budget_conclude(ctx, &budget, (unsigned)selected, "vectors");
    size_t tried = st.tried, skipped = st.skipped;
    case_note(ctx, "%zu vectors, %zu requests tried, %zu skipped (canary location unavailable)",
              vectors, tried, skipped);
    if (tried == 0 && !case_failed(ctx))
        case_skip(ctx, "no vector of this case could be tried (no canary location)");
    trav_remove_root_debris(ctx, &run, names_before);
out:
    free(names_before);
    canary_remove(ctx, &run.canaries);
    canary_free(&run.canaries);
    free(run.host_secret);
    trav_free(&corpus);
}
