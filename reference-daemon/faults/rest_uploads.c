/* SPDX-License-Identifier: Apache-2.0 */
/* The upload faults of the fault build (see rest_uploads.h). Each acts
 * while its fault is on and otherwise calls rest_real. */
#include "rest_uploads.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fs/resolve.h"
#include "rest/http_response.h"
#include "rest/multipart.h"
#include "rest/request.h"
#include "rest/request_params.h"
#include "rest_request_state.h"

#define FAULT_TRUNCATE_AT (64 * 1024)
#define FAULT_CORRUPT_AT (1024 * 1024)

/* empty-params-invalid, put-default-0600, put-accept-bad-mode. */
int fault_put_mode(const char *arg, bool bad, mode_t *mode)
{
    int rc = rest_real.put_mode(arg, bad, mode);
    if (fault_active(FAULT_EMPTY_PARAMS_INVALID) && arg && !*arg) rc = -1;
    if (fault_active(FAULT_PUT_DEFAULT_0600) && rc == 0 && (!arg || !*arg)) *mode = 0600;
    if (rc != 0 && fault_active(FAULT_PUT_ACCEPT_BAD_MODE)) {
        *mode = SBX_DEFAULT_FILE_MODE;
        rc = 0;
    }
    return rc;
}

/* multipart-raw: a multipart body stored raw. */
bool fault_body_is_multipart(const char *content_type)
{
    return !fault_active(FAULT_MULTIPART_RAW) && rest_real.body_is_multipart(content_type);
}

/* put-link-refused, put-replace-link: whether the last component of the
 * path is a symlink, wherever it points; with unlink_it the link is
 * removed, so the write creates a new file in its place. */
static bool put_is_link(struct rest_request *rq, bool unlink_it)
{
    char name[FS_NAME_MAX + 1];
    int pfd = fs_open_parent(rq->st->root_fd, rq->path, 0, name, sizeof(name));
    if (pfd < 0) return false;
    struct stat sb;
    bool link = fstatat(pfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode);
    if (link && unlink_it) unlinkat(pfd, name, 0);
    close(pfd);
    return link;
}

/* Whether the request's body comes in the chunked transfer coding. */
static bool body_is_chunked(struct MHD_Connection *c)
{
    const char *te =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    return te && strcasestr(te, "chunked");
}

/* Whether the entry a PUT names is a directory (the root included). */
static bool put_is_dir(struct rest_request *rq)
{
    int fd = fs_open_beneath(rq->st->root_fd, rq->path, O_PATH, 0);
    if (fd < 0) return false;
    struct stat sb;
    bool dir = fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode);
    close(fd);
    return dir;
}

/* Whether the parent directory of the entry a PUT names is missing. */
static bool put_parent_missing(struct rest_request *rq)
{
    char name[FS_NAME_MAX + 1];
    int pfd = fs_open_parent(rq->st->root_fd, rq->path, 0, name, sizeof(name));
    if (pfd >= 0) close(pfd);
    return pfd == FS_NOTFOUND;
}

/* put-chunked-refused, put-link-refused, put-no-parents, put-dir-500: a
 * PUT whose headers the broken daemon answers itself (true, *ret);
 * put-chunked-truncate and put-replace-link prepare what follows. */
static bool answer_headers(struct rest_request *rq, struct MHD_Connection *c, enum MHD_Result *ret)
{
    if (fault_active(FAULT_PUT_CHUNKED_REFUSED) && body_is_chunked(c)) {
        *ret = rest_reply_error(c, 411, "a Content-Length is required");
        return true;
    }
    if (fault_active(FAULT_PUT_CHUNKED_TRUNCATE) && body_is_chunked(c)) {
        struct fault_request *fr = fault_request_of(rq);
        if (fr) fr->chunked_first_read_only = true;
    }
    if (fault_active(FAULT_PUT_LINK_REFUSED) && put_is_link(rq, false)) {
        *ret = rest_reply_error(c, 409, "the path is a symbolic link");
        return true;
    }
    if (fault_active(FAULT_PUT_REPLACE_LINK)) put_is_link(rq, true);
    if (fault_active(FAULT_PUT_NO_PARENTS) && put_parent_missing(rq)) {
        *ret = rest_reply_error(c, 404, "parent directory does not exist");
        return true;
    }
    if (fault_active(FAULT_PUT_DIR_500) && put_is_dir(rq)) {
        *ret = rest_reply_error(c, 500, "cannot write a directory");
        return true;
    }
    return false;
}

/* put-ignore-mode, multipart-ignore-mode: 0644 whatever was asked. */
static void ignore_mode(struct rest_request *rq)
{
    if (fault_active(FAULT_PUT_IGNORE_MODE) ||
        (rq->mp && fault_active(FAULT_MULTIPART_IGNORE_MODE)))
        rq->mode = SBX_DEFAULT_FILE_MODE;
}

/* put-status-200: a raw body that was stored answers 200 with
 * {"status":"ok"} instead of 204 (true, *ret). */
static bool answer_stored(struct rest_request *rq, struct MHD_Connection *c, enum MHD_Result *ret)
{
    if (!fault_active(FAULT_PUT_STATUS_200) || rq->fail_status || !rq->writing || rq->mp)
        return false;
    rq->responded = true;
    rq->writing = false;
    if (fs_atomic_commit(&rq->file, rq->mode) != 0)
        *ret = rest_reply_error(c, 500, "cannot store the file");
    else
        *ret = rest_reply_json(c, 200, json_pack("{s:s}", "status", "ok"));
    return true;
}

/* The PUT handler of the fault build: the faults above answer some
 * requests or change what the real handler stores. */
enum MHD_Result fault_files_put(struct rest_request *rq, struct MHD_Connection *c, const char *data,
                                size_t *size)
{
    enum MHD_Result ret;
    if (!rq->started) {
        if (answer_headers(rq, c, &ret)) {
            rq->started = true;
            rq->responded = true;
            return ret;
        }
        ret = rest_real.files_put(rq, c, data, size);
        if (rq->writing) ignore_mode(rq);
        return ret;
    }
    if (*size == 0 && answer_stored(rq, c, &ret)) return ret;
    return rest_real.files_put(rq, c, data, size);
}

bool fault_follow_dangling(struct fs_atomic_file *w, const struct daemon_state *st,
                           const char *path)
{
    if (!fault_active(FAULT_PUT_FOLLOW_DANGLING)) return false;
    char host[8192];
    snprintf(host, sizeof(host), "%s/%s", st->cfg->root_dir, path);
    struct stat sb;
    if (lstat(host, &sb) != 0 || !S_ISLNK(sb.st_mode) || stat(host, &sb) == 0) return false;
    memset(w, 0, sizeof(*w));
    w->dir_fd = -1;
    w->fd = open(host, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd >= 0) return true;
    w->fd = -1;
    return false;
}

bool fault_creates_parents(void)
{
    return !fault_active(FAULT_PUT_NO_PARENTS);
}

/* put-truncate, put-corrupt, put-stop-at-nul, put-chunked-truncate. */
int fault_store(struct rest_request *rq, uint64_t at, const char *data, size_t len)
{
    const struct fault_request *fr = rq->extension;
    if (fr && fr->chunked_first_read_only && at > 0) return 0;
    if (fault_active(FAULT_PUT_TRUNCATE)) {
        if (at >= FAULT_TRUNCATE_AT) return 0;
        if (len > FAULT_TRUNCATE_AT - at) len = (size_t)(FAULT_TRUNCATE_AT - at);
    }
    if (fault_active(FAULT_PUT_CORRUPT) && at <= FAULT_CORRUPT_AT && FAULT_CORRUPT_AT < at + len) {
        char *copy = malloc(len);
        if (!copy) return -1;
        memcpy(copy, data, len);
        copy[FAULT_CORRUPT_AT - at] ^= 0x01;
        int rc = rest_real.store(rq, at, copy, len);
        free(copy);
        return rc;
    }
    if (fault_active(FAULT_PUT_STOP_AT_NUL) && memchr(data, 0, len))
        len = (size_t)((const char *)memchr(data, 0, len) - (const char *)data);
    return rest_real.store(rq, at, data, len);
}

/* multipart-missing-ok, multipart-truncated-stores. */
bool fault_multipart_stored(int status)
{
    return (status == MP_NO_FILE && fault_active(FAULT_MULTIPART_MISSING_OK)) ||
           (status == MP_TRUNCATED && fault_active(FAULT_MULTIPART_TRUNCATED_STORES)) ||
           rest_real.multipart_stored(status);
}
