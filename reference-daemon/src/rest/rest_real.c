/* SPDX-License-Identifier: Apache-2.0 */
/* rest_real: the daemon's own REST decisions (see rest_behaviour.h). */
#include "rest/rest_behaviour.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/resolve.h"
#include "rest/json_text.h"
#include "rest/metadata_filter.h"
#include "rest/http_response.h"
#include "rest/multipart.h"
#include "rest/percent_decode.h"
#include "rest/request.h"
#include "rest/request_params.h"

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

static int path_decoded(char *path, const char **why)
{
    (void)path;
    (void)why;
    return 0;
}

static enum byte_range_result file_range(struct MHD_Connection *c, uint64_t size, uint64_t *start,
                                         uint64_t *len)
{
    return parse_byte_range(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE),
                            size, start, len);
}

/* RFC 3339 in UTC, whole seconds. */
static void format_time(const struct timespec *ts, char *out, size_t cap)
{
    struct tm tm;
    time_t t = ts->tv_sec;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool slash_names_directory(const char *method)
{
    (void)method;
    return true;
}

static int put_mode(const char *arg, bool bad, mode_t *mode)
{
    return bad ? -1 : parse_file_mode(arg, mode);
}

static bool body_is_multipart(const char *content_type)
{
    return multipart_is_form_data(content_type);
}

static int store(struct rest_request *rq, uint64_t at, const char *data, size_t len)
{
    (void)at;
    return fs_atomic_write(&rq->file, data, len);
}

static bool multipart_stored(int status)
{
    return status == MP_OK;
}

static int delete_recursive(const char *arg, bool bad, bool *recursive)
{
    return bad || parse_recursive(arg, recursive) != 0 ? -1 : 0;
}

static int open_root_to_empty(const struct rest_request *rq)
{
    return fs_open_beneath(rq->st->root_fd, "", O_RDONLY | O_DIRECTORY, 0);
}

static bool escaping_link_refused(void)
{
    return true;
}

static bool health_unavailable(const struct daemon_state *st)
{
    return atomic_load(&st->shutting_down);
}

static json_t *metadata_value(const char *value)
{
    return json_text(value);
}

const struct rest_behaviour rest_real = {
    .open_path = open_path,
    .open_parent = open_parent,
    .begin_write = begin_write,
    .answer_early = answer_early,
    .end_request = rest_end_request,
    .error_code = error_code,
    .json_media_type = json_media_type,
    .complete_json = complete_json,
    .error_response = rest_error_response_real,
    .reply_fs_error = rest_reply_fs_error_real,
    .path_decode = pct_decode,
    .path_decoded = path_decoded,
    .route = rest_route,
    .serve_request = rest_serve_request,
    .close_server = rest_server_close,
    .files_get = files_get,
    .file_range = file_range,
    .file_response = rest_file_response_real,
    .format_time = format_time,
    .entry_json = rest_entry_json_real,
    .files_delete = files_delete,
    .delete_recursive = delete_recursive,
    .open_root_to_empty = open_root_to_empty,
    .escaping_link_refused = escaping_link_refused,
    .health_unavailable = health_unavailable,
    .health_body = rest_health_body_real,
    .metadata_name_allowed = metadata_name_allowed,
    .metadata_value = metadata_value,
    .slash_names_directory = slash_names_directory,
    .files_put = files_put,
    .put_mode = put_mode,
    .body_is_multipart = body_is_multipart,
    .multipart_begin = multipart_new,
    .store = store,
    .multipart_stored = multipart_stored,
};
