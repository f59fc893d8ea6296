/* SPDX-License-Identifier: Apache-2.0 */
/* The REST faults and variants of sandboxd-ref-faulty that replace a whole
 * decision (rest/rest_behaviour.h): wrappers linked instead of
 * rest/rest_behaviour_real.c. Each acts while its fault is on and
 * otherwise calls rest_real. */

#include "fault.h"
#include "rest/rest_behaviour.h"
#include "rest/request.h"
#include "rest_downloads.h"
#include "rest_file_slash.h"
#include "rest_head_body.h"
#include "rest_listings.h"
#include "rest_multipart.h"
#include "rest_path_decode.h"
#include "rest_paths.h"
#include "rest_probes.h"
#include "rest_redirect.h"
#include "rest_removal.h"
#include "rest_request_state.h"
#include "rest_responses.h"
#include "rest_routing.h"
#include "rest_uploads.h"

/* resolve-naive, symlink-follow-out, absolute-host, absolute-root-host,
 * empty-path-cwd, toctou, toctou-realpath: host path strings. */
static int open_path_by_string(const struct daemon_state *st, const char *path, int flags)
{
    int fd = fault_open_path(st, path, flags);
    return fd != FAULT_PATH_UNUSED ? fd : rest_real.open_path(st, path, flags);
}

/* The above, and variant-file-slash-ignored. */
static int open_path_slash(const struct daemon_state *st, const char *path, int flags)
{
    return variant_file_slash_open(st, path, flags, open_path_by_string);
}

/* The above, and fifo-block, list-root-404, sweep-get-404. */
static int open_path(const struct daemon_state *st, const char *path, int flags)
{
    return fault_download_open(st, path, flags, open_path_slash);
}

static int open_parent(const struct daemon_state *st, const char *path, char *name, size_t cap)
{
    int fd = fault_open_parent(st, path, 0, name, cap);
    return fd != FAULT_PATH_UNUSED ? fd : rest_real.open_parent(st, path, name, cap);
}

/* put-follow-dangling, put-no-parents, and the path faults above. */
static int begin_write(struct fs_atomic_file *w, const struct daemon_state *st, const char *path,
                       int create_parents)
{
    if (fault_follow_dangling(w, st, path)) return 0;
    create_parents = create_parents && fault_creates_parents();
    char name[FS_NAME_MAX + 1];
    int pfd = fault_open_parent(st, path, create_parents, name, sizeof(name));
    if (pfd == FAULT_PATH_UNUSED) return rest_real.begin_write(w, st, path, create_parents);
    return pfd < 0 ? pfd : fs_atomic_begin_in(w, pfd, name);
}

/* variant-file-slash-ignored: a trailing '/' on a file's name is
 * overlooked. */
static bool slash_names_directory(const char *method)
{
    return !variant_file_slash_ignored() && rest_real.slash_names_directory(method);
}

/* variant-redirect-dotdot. */
static bool answer_early(struct MHD_Connection *c, const char *raw_rest, enum MHD_Result *ret)
{
    return variant_redirect_unclean(c, raw_rest, ret) || rest_real.answer_early(c, raw_rest, ret);
}

/* head-sends-body, serialize-requests: what the faults kept for the
 * request goes, before the request itself. */
static void end_request(struct MHD_Connection *c, void **con_cls, bool completed)
{
    struct rest_request *rq = *con_cls;
    if (rq && rq->extension) {
        fault_head_body_send(rq, c, completed);
        fault_request_unserialize(rq);
        fault_request_free(rq);
    }
    if (!rq) fault_request_abandoned(c);
    rest_real.end_request(c, con_cls, completed);
}

/* list-null-entries, metadata-null-env, variant-extra-fields: every JSON
 * body passes here before it is encoded. */
static void complete_json(json_t *body)
{
    fault_listing_body(body);
    fault_metadata_body(body);
    fault_complete_json(body);
}

static const struct rest_behaviour rest_faulty = {
    .open_path = open_path,
    .open_parent = open_parent,
    .begin_write = begin_write,
    .answer_early = answer_early,
    .end_request = end_request,
    .error_code = fault_error_code,
    .json_media_type = fault_json_media_type,
    .complete_json = complete_json,
    .error_response = fault_error_response,
    .reply_fs_error = fault_reply_fs_error,
    .path_decode = fault_path_decode,
    .path_decoded = fault_path_decoded,
    .route = fault_route,
    .serve_request = fault_serve_request,
    .close_server = fault_close_server,
    .files_get = fault_files_get,
    .file_range = fault_file_range,
    .file_response = fault_file_response,
    .format_time = fault_format_time,
    .entry_json = fault_entry_json,
    .files_delete = fault_files_delete,
    .delete_recursive = fault_delete_recursive,
    .open_root_to_empty = fault_open_root_to_empty,
    .escaping_link_refused = fault_escaping_link_refused,
    .health_unavailable = fault_health_unavailable,
    .health_body = fault_health_body,
    .metadata_name_allowed = fault_metadata_name_allowed,
    .metadata_value = fault_metadata_value,
    .slash_names_directory = slash_names_directory,
    .files_put = fault_files_put,
    .put_mode = fault_put_mode,
    .body_is_multipart = fault_body_is_multipart,
    .multipart_begin = fault_multipart_begin,
    .store = fault_store,
    .multipart_stored = fault_multipart_stored,
};

const struct rest_behaviour *const rest_behaviour = &rest_faulty;
