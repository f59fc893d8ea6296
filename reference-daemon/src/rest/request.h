/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_REQUEST_H
#define SBX_REST_REQUEST_H
/* Per-request state kept by the HTTP server between the calls it makes for
 * one request (headers, each body chunk, end of body, completion), and the
 * handlers of the routes. */
#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon_state.h"
#include "fs/atomic_write.h"
#include "rest/multipart.h"

struct rest_request {
    struct daemon_state *st;
    bool started;    /* the first (headers) call has been handled */
    bool responded;  /* a response is queued */
    char *path;      /* decoded {path} of /v1/files */
    void *extension; /* owned by the rest_behaviour in use (rest_behaviour.h),
                        released by its end_request */
    /* GET and HEAD on an event-loop thread, with the resolver in its
     * cached-only mode: files_get answers only what needs no disk wait and
     * otherwise sets must_wait with nothing queued, for the blocking pool. */
    bool on_loop;
    bool must_wait;
    /* GET and HEAD on the loop: a small file's bytes, read while checking
     * that they are cached, for its response to take instead of reading
     * the file again (NULL when not read). */
    char *cached_body;
    size_t cached_len;

    /* PUT: the upload in progress. */
    bool writing;
    struct fs_atomic_file file;
    struct multipart *mp;
    mode_t mode;
    uint64_t body_bytes;  /* bytes of body received (the file part's for multipart) */
    unsigned fail_status; /* set when the upload failed mid-body */
    char fail_msg[160];
};

/* Routes a request of method for url to its handler (rest_server.c):
 * called like the server's access handler, for the headers and, for a PUT,
 * each body chunk and the end of the body. must_wait, when not NULL: on
 * the event loop, which answers only what needs no disk wait and
 * otherwise sets *must_wait with nothing queued, for the blocking pool to
 * route again. */
enum MHD_Result rest_route(struct rest_request *rq, struct MHD_Connection *c, const char *url,
                           const char *method, const char *upload_data, size_t *upload_size,
                           bool *must_wait);
/* The raw (still encoded) path of a /v1/files URL, "" for /v1/files
 * itself, or NULL for a URL outside it. */
const char *rest_files_raw_path(const char *url);
/* The methods rest_route serves at url, as its 405's Allow header lists
 * them ("GET, HEAD"), or NULL for a route it does not serve. */
const char *rest_route_allow(const char *url);

/* GET and HEAD of /v1/files/{path} (on_loop: see above). */
enum MHD_Result files_get(struct rest_request *rq, struct MHD_Connection *c, bool head);

/* PUT of /v1/files/{path}: called for the headers, each body chunk and the
 * end of the body, like the server's access handler. */
enum MHD_Result files_put(struct rest_request *rq, struct MHD_Connection *c, const char *data,
                          size_t *size);

/* Frees what an unfinished PUT holds (temporary file included). */
void files_put_cleanup(struct rest_request *rq);

/* DELETE of /v1/files/{path}. */
enum MHD_Result files_delete(struct rest_request *rq, struct MHD_Connection *c);

/* GET /v1/health and GET /v1/metadata. */
enum MHD_Result probe_health(struct rest_request *rq, struct MHD_Connection *c);
enum MHD_Result probe_metadata(struct rest_request *rq, struct MHD_Connection *c);

/* Maps a resolver or file-system error code to an HTTP error response.
 * for_write selects 409 instead of 404 for unresolvable parents (F14). */
enum MHD_Result rest_reply_fs_error(struct MHD_Connection *c, int code, bool for_write,
                                    const char *path);

/* A query argument, percent-decoded (NULL when absent); *bad set on an
 * invalid encoding. Caller frees. */
char *rest_query_arg(struct MHD_Connection *c, const char *key, bool *bad);

#endif
