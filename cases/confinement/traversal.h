/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_TRAVERSAL_H
#define SBX_CASES_TRAVERSAL_H
/* The traversal corpus (traversal.yaml) and the driver that tries each
 * vector with GET, HEAD, PUT and DELETE against canaries planted outside the
 * root. The cases in traversal_cases.c differ only in which classes they
 * take and in how they judge a response (their clause's expectation); the
 * driver applies the checks common to all of them (nothing outside read,
 * created, changed or removed). */
#include "common/conf_util.h"
#include "confinement/canary.h"

#include <stdbool.h>
#include <stddef.h>

struct case_ctx;
struct http_response;

enum trav_class {
    TC_ESCAPE_ENCODED,  /* percent-encoded dot segments leading outside: S1 MUST 403 */
    TC_ESCAPE_RAW,      /* raw ../ in the request line: S1 SHOULD 403 (or redirect) */
    TC_ABSOLUTE,        /* absolute-looking host paths: S3 never the host file */
    TC_ABSOLUTE_INSIDE, /* absolute-looking path of a file inside: S3 resolved beneath */
    TC_LITERAL,         /* look-alikes that are names (%252e%252e, "...", "..;") */
    TC_INSIDE,          /* dot segments that stay inside the root */
    TC_BACKSLASH,       /* backslashes: S8 never a separator */
    TC_OVERLONG_UTF8,   /* overlong UTF-8: S8 never a dot or a slash */
    TC_NUL,             /* %00: S8 MUST no touch, SHOULD 400 */
    TC_BAD_ENCODING,    /* invalid percent-encoding: S8 MUST no touch, SHOULD 400 */
    TC_OVERLONG_NAME,   /* a component longer than NAME_MAX: S8 SHOULD 4xx */
    TC_OVERLONG_PATH,   /* a path longer than PATH_MAX: S8 SHOULD 4xx */
    TC_COUNT
};
#define TC_BIT(c) (1u << (c))

struct trav_vector {
    char *id;
    enum trav_class cls;
    char *path;         /* template (see traversal.yaml) */
    char *put_path;     /* template for PUT (default: path) */
    char *delete_path;  /* template for DELETE (default: path) */
    char *delete_query; /* e.g. "recursive=true" */
    bool put_overwrite; /* PUT targets the existing canary instead of a new name */
    bool escapes;       /* also escapes the root (a second fault: 403 is acceptable) */
    bool raw;           /* contains raw dot segments (a redirect is acceptable) */
    char *about;
};

struct trav_corpus {
    struct trav_vector *v;
    size_t n;
};

/* Loads cases/confinement/traversal.yaml (found via $SBX_CASES_DIR or the
 * data directory, data_dir.h). Returns 0, or -1 with err. */
int trav_load(struct trav_corpus *corpus, char *err, size_t errlen);
void trav_free(struct trav_corpus *corpus);
const char *trav_class_name(enum trav_class c);

/* One tried request, as the judge sees it. */
struct trav_obs {
    const struct trav_vector *v;
    const char *method;
    const char *target; /* the request-target sent */
    const char *rel;    /* the expanded vector, relative to its base (case dir or root) */
    const struct http_response *resp;
    int rc;              /* rest_do result: -1 = no response */
    const char *marker;  /* PUT body */
    const char *in_name; /* what {in} stood for */
    bool names_canary;   /* the path names a canary file or directory outside */
};

struct trav_run;

/* Appends a description of what is wrong (if anything) to problems. */
typedef void (*trav_judge_fn)(struct case_ctx *ctx, struct trav_run *run,
                              const struct trav_obs *obs, struct sbuf *problems);

struct trav_opts {
    unsigned classes;    /* TC_BIT mask */
    trav_judge_fn judge; /* clause-specific expectation (may be NULL) */
    bool health_after;   /* S8: the daemon must still answer health after each vector */
};

/* What a judge may consult. */
struct trav_run {
    struct canary_set canaries;
    char known[64];    /* content of <case_dir>/known.txt */
    char subinner[64]; /* content of <case_dir>/sub/inner.txt */
    char *host_secret; /* first line of the host's /etc/passwd, or NULL */
};

/* Plants canaries and the in-root fixture, runs every vector of the chosen
 * classes with every method, records one failure per failing request, and
 * removes the canaries. */
void trav_run_cases(struct case_ctx *ctx, const struct trav_opts *opts);

/* For a 2xx PUT: true when the marker landed at the vector taken literally
 * (decoded once, '/' the only separator) relative to the case directory;
 * otherwise why says where it is not. */
bool trav_put_landed_literally(struct case_ctx *ctx, const struct trav_obs *obs, char *why,
                               size_t whylen);

/* For a 3xx answer to a request for current_target: the request-target
 * its Location leads to on the same server (malloc'd), or NULL with why
 * when the Location is missing or names another server. */
char *trav_redirect_target(const char *rest_addr, const char *current_target,
                           const struct http_response *resp, char *why, size_t whylen);

/* True when the body holds one of the in-root fixture contents. */
bool trav_body_has_fixture(const struct trav_run *run, const struct http_response *resp);

#endif
