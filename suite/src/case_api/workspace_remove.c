/* SPDX-License-Identifier: Apache-2.0 */
/* Workspace removal that cannot escape the sandbox root (workspace_remove.h). */
#include "workspace_remove.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_context.h"
#include "process_client.h"
#include "rest_client.h"
#include "text_util.h"

enum {
    REMOVE_TIMEOUT_MS = 15000,
    WALK_MAX_DEPTH = 24,       /* deeper than any tree a case builds */
    WALK_MAX_REQUESTS = 20000, /* bounds the walk on a runtime that lists garbage */
};

int workspace_remove_links(struct case_ctx *ctx, const char *dir, char *why, size_t why_len)
{
    /* find never follows links (-P is its default); -type l matches links
     * only, and rm -f of a link removes the link. */
    const char *argv[] = {"find", "-P", dir,  "-type", "l", "-exec",
                          "rm",   "-f", "--", "{}",    "+", NULL};
    /* Without gRPC no case could plant a link (only Execute makes them), and
     * asking for Execute would mark the finished case skipped. */
    if (case_grpc_unusable(ctx)) return 0;
    return rpc_execute_ok(ctx, argv, REMOVE_TIMEOUT_MS, why, why_len);
}

/* One REST request on the case's endpoint; the status, or 0 on transport
 * failure. The response is kept when resp is given. */
static long rest_call(struct case_ctx *ctx, const char *method, const char *rel,
                      struct http_response *resp)
{
    char *target = rest_files_target(rel);
    if (!target) return 0;
    struct http_request req = {.method = method, .target = target, .timeout_ms = REMOVE_TIMEOUT_MS};
    struct http_response r;
    long status = rest_do(ctx, &req, &r) == 0 ? r.status : 0;
    free(target);
    if (resp)
        *resp = r;
    else
        http_response_free(&r);
    return status;
}

struct walk {
    struct case_ctx *ctx;
    unsigned requests;
    unsigned left; /* entries that could not be removed */
};

/* A listed name that may be joined to its directory: one component. */
static bool plain_name(const char *name)
{
    return name && *name && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && !strchr(name, '/');
}

/* Deletes rel (a file or directory the listing of its parent showed),
 * children first, never with recursive=true. */
static void walk_remove(struct walk *w, const char *rel, bool is_dir, int depth)
{
    if (++w->requests > WALK_MAX_REQUESTS) {
        w->left++;
        return;
    }
    if (is_dir && depth < WALK_MAX_DEPTH) {
        struct http_response r;
        long s = rest_call(w->ctx, "GET", rel, &r);
        json_t *doc = s == 200 && r.body ? json_loadb(r.body, r.body_len, 0, NULL) : NULL;
        http_response_free(&r);
        json_t *entries = json_object_get(doc, "entries");
        size_t i;
        json_t *e;
        json_array_foreach(entries, i, e)
        {
            const char *name = json_string_value(json_object_get(e, "name"));
            const char *type = json_string_value(json_object_get(e, "type"));
            if (!plain_name(name) || !type) continue;
            char *child = text_fmt("%s/%s", rel, name);
            if (child) walk_remove(w, child, strcmp(type, "directory") == 0, depth + 1);
            free(child);
        }
        json_decref(doc);
    }
    long s = rest_call(w->ctx, "DELETE", rel, NULL);
    if (s != 204 && s != 200 && s != 404) w->left++;
}

int workspace_remove(struct case_ctx *ctx, const char *dir, char *why, size_t why_len)
{
    char rm_why[400] = "";
    const char *rm_argv[] = {"rm", "-rf", "--", dir, NULL};
    bool rm_ok = rpc_execute_ok(ctx, rm_argv, REMOVE_TIMEOUT_MS, rm_why, sizeof rm_why) == 0;
    /* What is left is checked over REST: a runtime whose Execute runs
     * somewhere else may have removed nothing. */
    long s = rest_call(ctx, "HEAD", dir, NULL);
    if (s == 404) return 0;
    if (s / 100 != 2) {
        /* REST cannot tell: rm's word is all there is. */
        if (rm_ok) return 0;
        snprintf(why, why_len, "%s; HEAD of %s answered %ld", rm_why, dir, s);
        return -1;
    }
    struct walk w = {.ctx = ctx};
    walk_remove(&w, dir, true, 0);
    if (rest_call(ctx, "HEAD", dir, NULL) == 404) return 0;
    snprintf(why, why_len,
             "%s%s%s is still there after removing entry by entry over REST (%u entries could "
             "not be removed, %u requests)",
             rm_ok ? "" : rm_why, rm_ok ? "" : "; ", dir, w.left, w.requests);
    return -1;
}
