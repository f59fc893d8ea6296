/* rest_real: the daemon's own REST decisions (see rest_behaviour.h). */
#include "rest/rest_behaviour.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fs/resolve.h"
#include "rest/json_text.h"
#include "rest/metadata_filter.h"
#include "rest/http_response.h"
#include "rest/multipart.h"
#include "rest/percent_decode.h"

static int open_path(const struct daemon_state *st, const char *path, int flags)
{
    return fs_open_beneath(st->root_fd, path, flags, 0);
}

static int open_parent(const struct daemon_state *st, const char *path, char *name, size_t cap)
{
    return fs_open_parent(st->root_fd, path, 0, name, cap);
}

static int begin_write(struct fs_atomic_file *w, const struct daemon_state *st, const char *path,
                       int create_parents)
{
    return fs_atomic_begin(w, st->root_fd, path, create_parents);
}

static bool answer_early(struct MHD_Connection *c, const char *raw_rest, enum MHD_Result *ret)
{
    (void)c;
    (void)raw_rest;
    (void)ret;
    return false;
}

static void head_answered(struct rest_request *rq, int fd)
{
    (void)rq;
    (void)fd;
}

static void request_done(struct rest_request *rq, struct MHD_Connection *c, bool completed)
{
    (void)rq;
    (void)c;
    (void)completed;
}

static const char *error_code(unsigned status)
{
    switch (status) {
    case 400:
        return "INVALID_ARGUMENT";
    case 403:
        return "PERMISSION_DENIED";
    case 404:
        return "NOT_FOUND";
    case 405: /* the contract fixes no code for 405 */
        return "METHOD_NOT_ALLOWED";
    case 409:
        return "CONFLICT";
    case 503:
        return "UNAVAILABLE";
    default:
        return status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
    }
}

static const char *json_media_type(void)
{
    return "application/json";
}

static void complete_json(json_t *body)
{
    (void)body;
}

static void method_refused(struct MHD_Response *r, const char *allow)
{
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
}

static char *path_before_decode(const char *raw)
{
    return strdup(raw);
}

static int path_decoded(char *path, const char **why)
{
    (void)path;
    (void)why;
    return 0;
}

static bool answer_first(struct MHD_Connection *c, const char *url, const char *method,
                         enum MHD_Result *ret)
{
    (void)c;
    (void)url;
    (void)method;
    (void)ret;
    return false;
}

static void request_begins(struct rest_request *rq)
{
    (void)rq;
}

static enum MHD_Result reply_unknown_route(struct MHD_Connection *c)
{
    return rest_reply_error(c, 404, "no such route");
}

static bool health_unavailable(const struct daemon_state *st)
{
    return atomic_load(&st->shutting_down);
}

static json_t *metadata_value(const char *value)
{
    return json_text(value);
}

static json_t *metadata_env(json_t *env)
{
    return env;
}

const struct rest_behaviour rest_real = {
    .open_path = open_path,
    .open_parent = open_parent,
    .begin_write = begin_write,
    .answer_early = answer_early,
    .head_answered = head_answered,
    .request_done = request_done,
    .error_code = error_code,
    .json_media_type = json_media_type,
    .complete_json = complete_json,
    .error_response = rest_error_response_real,
    .method_refused = method_refused,
    .reply_fs_error = rest_reply_fs_error_real,
    .path_before_decode = path_before_decode,
    .path_decode = pct_decode,
    .path_decoded = path_decoded,
    .answer_first = answer_first,
    .request_begins = request_begins,
    .reply_unknown_route = reply_unknown_route,
    .health_unavailable = health_unavailable,
    .health_body = rest_health_body_real,
    .metadata_name_allowed = metadata_name_allowed,
    .metadata_value = metadata_value,
    .metadata_env = metadata_env,
    .multipart_begin = multipart_new,
};
