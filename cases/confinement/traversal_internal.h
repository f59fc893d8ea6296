/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_TRAVERSAL_INTERNAL_H
#define SBX_TRAVERSAL_INTERNAL_H
/* What the traversal files share behind traversal.h: template expansion
 * (traversal_expand.c), the probes of the root (traversal_probes.c) and
 * redirect following (traversal_redirect.c), for the driver in
 * traversal.c. */
#include <stdbool.h>

#include "case_api.h"
#include "confinement/traversal.h"
#include "rest_client.h"

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

/* Expands a vector's template with e's names and depths into *out (bits of
 * the needs it implies in *needs). 0, or -1 with the reason in err. */
int trav_expand(const char *tmpl, const struct expand_env *e, char **out, unsigned *needs,
                char *err, size_t errlen);

/* Lays down the in-root fixture and removes names of ours at the top of the
 * root. */
void trav_fixture_script(struct trav_run *run);

/* The names at the top of the root, one a line (NULL if unreadable). */
char *trav_root_names(struct case_ctx *ctx, const struct trav_run *run);

/* Removes what the run's PUTs left at the top of the root (names of ours
 * that were not there before). */
void trav_remove_root_debris(struct case_ctx *ctx, const struct trav_run *run, const char *before);

/* Reads the first line of the host's /etc/passwd (a secret outside the
 * root a traversal must never return). */
void trav_read_host_secret(struct case_ctx *ctx, struct trav_run *run);

/* Sends req and follows a redirect on the same server (see
 * traversal_redirect.c). */
int trav_send_following(struct case_ctx *ctx, const struct http_request *req,
                        struct http_response *first, struct http_response *last, int *hops,
                        struct sbuf *via);

#endif
