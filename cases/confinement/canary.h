/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_CANARY_H
#define SBX_CASES_CANARY_H
/* Canaries planted OUTSIDE the sandbox root through Execute, so that a case
 * can see whether a request read, created, changed or removed anything out
 * there.
 *
 * Every name created outside contains the set's unique id, so the state
 * check can list exactly our names and the clean-up removes exactly them:
 *   <parent>/<id>-file            secret file (mode 0640, fixed mtime)
 *   <parent>/<id>-dir/<id>-inner  secret file in a secret directory
 *   <parent>/<rootname>-<id>/<id>-sibfile   a sibling whose name starts with
 *                                 the root's own name (prefix-check bugs)
 *   /tmp/<id>-tmpfile             secret file in /tmp
 * <parent> is the parent of the root's physical path. Every secret content
 * contains "SBXSECRET-<hex>"; sizes are distinct and odd so a leaked size is
 * recognisable. */
#include <stdbool.h>
#include <stddef.h>

struct case_ctx;
struct http_response;

enum { CANARY_FILES = 4 };

struct canary_set {
    char hex[17];        /* random part of the id */
    char id[40];         /* "sbxcanary-<hex>" */
    char secret_tag[40]; /* "SBXSECRET-<hex>": present in every canary content */
    char *root;          /* physical root path */
    char *parent;        /* its parent directory (absolute) */
    int parent_depth;    /* components in parent */
    bool have_parent;    /* parent canaries planted */
    bool have_tmp;       /* /tmp canary planted (and /tmp outside the root) */
    char pfile[64];      /* names (not paths) */
    char pdir[64];
    char pinner[64];
    char sib[320];
    char sibfile[64];
    char tfile[64];
    size_t sizes[CANARY_FILES]; /* pfile, pinner, sibfile, tfile */
    char *baseline;             /* state right after planting */
    unsigned next_new;          /* counter for would-be-created names */
    char *fixture;              /* optional script run (in case_dir) before each check */
};

/* Determines the physical root and plants the canaries. Returns 0 when at
 * least one location could be planted; otherwise records skip/error on ctx
 * and returns -1. */
int canary_plant(struct case_ctx *ctx, struct canary_set *c);

/* Compares the outside state with the baseline. Returns 0 when unchanged,
 * 1 when changed (*diff describes it; the canaries are then restored and the
 * baseline renewed), -1 when the check itself failed (*diff says why). The
 * request recorded with case_request() is the same afterwards. */
int canary_check(struct case_ctx *ctx, struct canary_set *c, char **diff);

/* Removes everything the set created outside (by our names only). */
void canary_remove(struct case_ctx *ctx, struct canary_set *c);

/* A fresh name that must never appear outside ("<id>-new-<n>"). Static
 * buffer per call site is not used: the result is written to buf. */
const char *canary_new_name(struct canary_set *c, char *buf, size_t buflen);

/* True when the body reveals a canary: a secret content, or a canary name
 * that does not occur in `target` (so an Error message that echoes the
 * request path is not taken for a leak). why gets the detail. */
bool canary_body_leaks(const struct canary_set *c, const void *body, size_t len, const char *target,
                       char *why, size_t whylen);

/* True when n equals the size of one of the canary files. */
bool canary_size_matches(const struct canary_set *c, long long n);

/* True when a 2xx answer's Content-Length betrays a canary: it equals a
 * canary's size and the body that would show it is not there to judge (a
 * HEAD, or a GET body cut short). A JSON body (a listing) or a complete
 * body is judged by its bytes instead, so a listing whose length happens
 * to equal a canary's size is not taken for a leak. */
bool canary_length_leaks(const struct canary_set *c, const char *method,
                         const struct http_response *resp);

void canary_free(struct canary_set *c);

#endif
