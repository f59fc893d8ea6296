/* SPDX-License-Identifier: Apache-2.0 */
/* Redirects: S1 and S3 let a server answer raw dot segments and "//" with
 * a redirect to a normalised URL. Where the redirect leads is followed (same
 * method and body, at most REDIRECT_HOPS hops, only on the same server) and
 * judged by the same universal checks: following it must never reach
 * outside either. */
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
int trav_send_following(struct case_ctx *ctx, const struct http_request *req,
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
