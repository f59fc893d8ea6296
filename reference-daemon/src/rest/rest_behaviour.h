/* SPDX-License-Identifier: Apache-2.0 */
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
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "daemon_state.h"
#include "fs/atomic_write.h"
#include "fs/listing.h"
#include "rest/byte_range.h"

struct multipart;
struct rest_request;
struct rest_server;

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
    /* The request on c is over (libmicrohttpd's completion notice; completed
     * when the whole response went out): frees its state, *con_cls (the
     * rest_request, NULL when none was made), rq->extension included
     * (rest_end_request). */
    void (*end_request)(struct MHD_Connection *c, void **con_cls, bool completed);

    /* Responses (http_response.c). */
    /* The Error code of an HTTP status (F13). */
    const char *(*error_code)(unsigned status);
    /* The Content-Type of JSON bodies. */
    const char *(*json_media_type)(void);
    /* Completes a JSON body (a listing, metadata, health, an Error)
     * before it is encoded (body may be NULL). */
    void (*complete_json)(json_t *body);
    /* The response of an Error with status and message (NULL on failure). */
    struct MHD_Response *(*error_response)(unsigned status, const char *message);
    /* Answers a resolver or file-system error code (rest_reply_fs_error). */
    enum MHD_Result (*reply_fs_error)(struct MHD_Connection *c, int code, bool for_write);

    /* Request paths (request_path.c). */
    /* Percent-decodes the raw {path} in[0..len) into out, which holds
     * len + 1 bytes (pct_decode). */
    ssize_t (*path_decode)(const char *in, size_t len, char *out);
    /* Checks a decoded path, which it may rewrite in place without
     * growing it: 0, or an HTTP status with *why set. */
    int (*path_decoded)(char *path, const char **why);

    /* Answers a request by routing it to its handler (rest_route), so
     * that another build may answer some requests itself. */
    enum MHD_Result (*route)(struct rest_request *rq, struct MHD_Connection *c, const char *url,
                             const char *method, const char *upload_data, size_t *upload_size,
                             bool *must_wait);
    /* Serves one call of libmicrohttpd's access handler for a request on c
     * whose header block is complete (rest_serve_request): the first call
     * (*con_cls NULL) makes the request's state, a rest_request, and
     * refuses bad framing; the next ones carry the body and route it. A
     * call that leaves *con_cls NULL and suspends c hears the headers
     * again once c is resumed. */
    enum MHD_Result (*serve_request)(struct rest_server *srv, struct MHD_Connection *c,
                                     const char *url, const char *method, const char *upload_data,
                                     size_t *upload_size, void **con_cls);
    /* Stops the server once no call is left on the blocking pool: closes
     * every connection (libmicrohttpd refuses to stop while one is
     * suspended) and the listener, and frees srv (rest_server_close). */
    void (*close_server)(struct rest_server *srv);

    /* Removal (files_delete.c). */
    /* Answers a DELETE of /v1/files/{path} (files_delete): the handler,
     * so that another build may answer some DELETEs itself. */
    enum MHD_Result (*files_delete)(struct rest_request *rq, struct MHD_Connection *c);
    /* The recursive argument of a DELETE (NULL when absent; bad: not
     * decodable): 0 with *recursive, or -1 to refuse it. */
    int (*delete_recursive)(const char *arg, bool bad, bool *recursive);
    /* Opens the directory a recursive DELETE of the root empties: an
     * O_RDONLY|O_DIRECTORY descriptor or an fs_resolve_error. */
    int (*open_root_to_empty)(const struct rest_request *rq);
    /* Whether DELETE of a symlink that leads outside the root is refused
     * (403) rather than the link removed (S5 allows both). */
    bool (*escaping_link_refused)(void);

    /* Probes (probes.c). */
    /* Whether /v1/health answers 503. */
    bool (*health_unavailable)(const struct daemon_state *st);
    /* The body of a 200 health answer (NULL on failure). */
    json_t *(*health_body)(const struct daemon_state *st);
    /* Whether /v1/metadata shows the variable name under prefix. */
    bool (*metadata_name_allowed)(const char *name, const char *prefix);
    /* The JSON value of a shown variable's value (NULL leaves it out). */
    json_t *(*metadata_value)(const char *value);

    /* Downloads (files_read.c). */
    /* Answers a GET or HEAD (head) of /v1/files/{path} (files_get), so
     * that another build may answer some itself. */
    enum MHD_Result (*files_get)(struct rest_request *rq, struct MHD_Connection *c, bool head);
    /* The byte range a GET of a file of size bytes answers (its Range
     * header). */
    enum byte_range_result (*file_range)(struct MHD_Connection *c, uint64_t size, uint64_t *start,
                                         uint64_t *len);
    /* The response carrying len bytes from start of the file open as fd,
     * with its Content-Type (fd taken over, also on failure: NULL); head
     * for a HEAD. */
    struct MHD_Response *(*file_response)(struct rest_request *rq, int fd, uint64_t start,
                                          uint64_t len, bool head);
    /* Listings: how modified_at is written; the JSON object of an entry
     * (NULL leaves it out). */
    void (*format_time)(const struct timespec *ts, char *out, size_t cap);
    json_t *(*entry_json)(const struct fs_entry *e);

    /* Whether a trailing '/' makes a request path name a directory, for a
     * request of method (PUT, DELETE). */
    bool (*slash_names_directory)(const char *method);

    /* Uploads (files_write.c). */
    /* Answers a PUT of /v1/files/{path} (files_put: called for the
     * headers, each body chunk and the end of the body), so that another
     * build may answer some PUTs itself. */
    enum MHD_Result (*files_put)(struct rest_request *rq, struct MHD_Connection *c,
                                 const char *data, size_t *size);
    /* The mode of a PUT from its mode argument (NULL when absent; bad: not
     * decodable): 0 with *mode, or -1 to refuse it. */
    int (*put_mode)(const char *arg, bool bad, mode_t *mode);
    /* Whether a body of content_type is read as multipart/form-data. */
    bool (*body_is_multipart)(const char *content_type);
    /* Begins reading a multipart/form-data body (multipart_new). */
    struct multipart *(*multipart_begin)(const char *content_type);
    /* Writes the next len bytes of the content, at offset at of it, to
     * rq->file: 0 or -1 with errno. */
    int (*store)(struct rest_request *rq, uint64_t at, const char *data, size_t len);
    /* Whether a multipart body that ended with status (multipart_finish)
     * is stored. */
    bool (*multipart_stored)(int status);
};

/* The daemon's own operations that rest_real points to. */
struct MHD_Response *rest_error_response_real(unsigned status, const char *message);
enum MHD_Result rest_reply_fs_error_real(struct MHD_Connection *c, int code, bool for_write);
json_t *rest_health_body_real(const struct daemon_state *st);
struct MHD_Response *rest_file_response_real(struct rest_request *rq, int fd, uint64_t start,
                                             uint64_t len, bool head);
json_t *rest_entry_json_real(const struct fs_entry *e);
enum MHD_Result rest_serve_request(struct rest_server *srv, struct MHD_Connection *c,
                                   const char *url, const char *method, const char *upload_data,
                                   size_t *upload_size, void **con_cls);
void rest_end_request(struct MHD_Connection *c, void **con_cls, bool completed);
void rest_server_close(struct rest_server *srv);

extern const struct rest_behaviour rest_real;
extern const struct rest_behaviour *const rest_behaviour;

#endif
