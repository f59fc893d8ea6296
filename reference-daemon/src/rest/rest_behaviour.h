#ifndef SBX_REST_BEHAVIOUR_H
#define SBX_REST_BEHAVIOUR_H
/* The decisions of rest/ that another build of the daemon may wrap; the
 * handlers call through rest_behaviour, rest_real holds the daemon's own.
 *
 * rest_behaviour is chosen at link time, like fs_behaviour (fs/
 * fs_behaviour.h): the real daemon links rest/rest_behaviour_real.c;
 * sandboxd-ref-faulty links its wrappers from reference-daemon/faults/
 * instead. Both are constant while the daemon runs. */
#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon_state.h"
#include "fs/atomic_write.h"

struct multipart;
struct rest_request;

struct rest_behaviour {
    /* Opens a request path like open(2), beneath the root (GET, HEAD):
     * a descriptor or an fs_resolve_error. */
    int (*open_path)(const struct daemon_state *st, const char *path, int flags);
    /* Opens the parent directory of a request path (DELETE) and copies the
     * last component into name: an O_PATH descriptor or an error. */
    int (*open_parent)(const struct daemon_state *st, const char *path, char *name, size_t cap);
    /* Begins the atomic write of a PUT (fs_atomic_begin beneath the root). */
    int (*begin_write)(struct fs_atomic_file *w, const struct daemon_state *st, const char *path,
                       int create_parents);
    /* Before routing a /v1/files request whose raw path after "/v1/files/"
     * is raw_rest: true when a response was queued instead (*ret). */
    bool (*answer_early)(struct MHD_Connection *c, const char *raw_rest, enum MHD_Result *ret);
    /* A HEAD of the regular file open as fd was answered. */
    void (*head_answered)(struct rest_request *rq, int fd);
    /* The request is over, before its state is freed; completed when the
     * whole response went out. Releases rq->extension. */
    void (*request_done)(struct rest_request *rq, struct MHD_Connection *c, bool completed);

    /* Responses (http_response.c). */
    /* The Error code of an HTTP status (F13). */
    const char *(*error_code)(unsigned status);
    /* The Content-Type of JSON bodies. */
    const char *(*json_media_type)(void);
    /* Completes a JSON body before it is encoded (body may be NULL). */
    void (*complete_json)(json_t *body);
    /* The response of an Error with status and message (NULL on failure). */
    struct MHD_Response *(*error_response)(unsigned status, const char *message);
    /* Adds to a 405 response the headers that name the allowed methods. */
    void (*method_refused)(struct MHD_Response *r, const char *allow);
    /* Answers a resolver or file-system error code (rest_reply_fs_error). */
    enum MHD_Result (*reply_fs_error)(struct MHD_Connection *c, int code, bool for_write);

    /* Request paths (request_path.c). */
    /* The raw {path} as it is percent-decoded: a malloc'd copy (NULL when
     * out of memory). */
    char *(*path_before_decode)(const char *raw);
    /* Percent-decodes in[0..len) into out (pct_decode). */
    ssize_t (*path_decode)(const char *in, size_t len, char *out);
    /* Checks a decoded path, which it may rewrite in place without
     * growing it: 0, or an HTTP status with *why set. */
    int (*path_decoded)(char *path, const char **why);

    /* Before routing any request: true when a response was queued
     * instead (*ret). */
    bool (*answer_first)(struct MHD_Connection *c, const char *url, const char *method,
                         enum MHD_Result *ret);
    /* A request's headers arrived and it is handled (not refused for its
     * framing). */
    void (*request_begins)(struct rest_request *rq);
    /* Answers a request for a route that does not exist. */
    enum MHD_Result (*reply_unknown_route)(struct MHD_Connection *c);

    /* Probes (probes.c). */
    /* Whether /v1/health answers 503. */
    bool (*health_unavailable)(const struct daemon_state *st);
    /* The body of a 200 health answer (NULL on failure). */
    json_t *(*health_body)(const struct daemon_state *st);
    /* Whether /v1/metadata shows the variable name under prefix. */
    bool (*metadata_name_allowed)(const char *name, const char *prefix);
    /* The JSON value of a shown variable's value (NULL leaves it out). */
    json_t *(*metadata_value)(const char *value);
    /* The "env" member answered for the object of shown variables
     * (reference taken over). */
    json_t *(*metadata_env)(json_t *env);

    /* Uploads (files_write.c). */
    /* Begins reading a multipart/form-data body (multipart_new). */
    struct multipart *(*multipart_begin)(const char *content_type);
};

/* The daemon's own operations that rest_real points to. */
struct MHD_Response *rest_error_response_real(unsigned status, const char *message);
enum MHD_Result rest_reply_fs_error_real(struct MHD_Connection *c, int code, bool for_write);
json_t *rest_health_body_real(const struct daemon_state *st);

extern const struct rest_behaviour rest_real;
extern const struct rest_behaviour *const rest_behaviour;

#endif
