/* PUT of /v1/files/{path} (F1-F6, S1-S4, S7, S9, C1-C3): the body is
 * streamed into a temporary file beside the target as it arrives (raw, or
 * the "file" part of a multipart/form-data body) and renamed over the target
 * only when it is complete; on any failure, a client that goes away
 * included, the temporary file is removed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "rest/rest_behaviour.h"
#include "rest/http_response.h"
#include "rest/multipart.h"
#include "rest/request.h"
#include "rest/request_params.h"

#define FAULT_TRUNCATE_AT (64 * 1024)
#define FAULT_CORRUPT_AT (1024 * 1024)

/* put-link-refused, put-replace-link (fault injection): whether the last
 * component of the path is a symlink, wherever it points; with unlink_it
 * the link is removed, so the write creates a new file in its place. */
static bool fault_put_is_link(struct rest_request *rq, bool unlink_it)
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
static void fail_upload(struct rest_request *rq, unsigned status, const char *msg)
{
    if (rq->fail_status) return;
    rq->fail_status = status;
    snprintf(rq->fail_msg, sizeof(rq->fail_msg), "%s", msg);
    fs_atomic_abort(&rq->file);
    rq->writing = false;
}

/* Stores the next bytes of the file's content. */
static int store(void *user, const char *data, size_t len)
{
    struct rest_request *rq = user;
    uint64_t at = rq->body_bytes;
    rq->body_bytes += len;
    if (fault_active(FAULT_PUT_TRUNCATE)) {
        if (at >= FAULT_TRUNCATE_AT) return 0;
        if (len > FAULT_TRUNCATE_AT - at) len = (size_t)(FAULT_TRUNCATE_AT - at);
    }
    if (fault_active(FAULT_PUT_CORRUPT) && at <= FAULT_CORRUPT_AT && FAULT_CORRUPT_AT < at + len) {
        char *copy = malloc(len);
        if (!copy) return -1;
        memcpy(copy, data, len);
        copy[FAULT_CORRUPT_AT - at] ^= 0x01;
        int rc = fs_atomic_write(&rq->file, copy, len);
        free(copy);
        return rc;
    }
    if (fault_active(FAULT_PUT_STOP_AT_NUL) && memchr(data, 0, len))
        len = (size_t)((const char *)memchr(data, 0, len) - (const char *)data);
    return fs_atomic_write(&rq->file, data, len);
}

/* put-follow-dangling: a dangling symlink at the target is opened and
 * created through, wherever it points. */
static int fault_follow_dangling(struct rest_request *rq)
{
    char host[8192];
    snprintf(host, sizeof(host), "%s/%s", rq->st->cfg->root_dir, rq->path);
    struct stat sb;
    if (lstat(host, &sb) != 0 || !S_ISLNK(sb.st_mode) || stat(host, &sb) == 0) return 0;
    memset(&rq->file, 0, sizeof(rq->file));
    rq->file.dir_fd = -1;
    rq->file.fd = open(host, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return rq->file.fd >= 0 ? 1 : 0;
}

/* The headers are in: validate everything and open the temporary file
 * before any body byte is accepted. */
static enum MHD_Result begin(struct rest_request *rq, struct MHD_Connection *c)
{
    bool bad = false;
    char *mode_s = rest_query_arg(c, "mode", &bad);
    int mrc = bad ? -1 : parse_file_mode(mode_s, &rq->mode);
    if (fault_active(FAULT_EMPTY_PARAMS_INVALID) && mode_s && !*mode_s) mrc = -1;
    if (fault_active(FAULT_PUT_DEFAULT_0600) && mrc == 0 && (!mode_s || !*mode_s)) rq->mode = 0600;
    free(mode_s);
    if (mrc != 0) {
        if (!fault_active(FAULT_PUT_ACCEPT_BAD_MODE))
            return rest_reply_error(c, 400, "mode must match ^0[0-7]{3}$");
        rq->mode = SBX_DEFAULT_FILE_MODE;
    }
    if (fault_active(FAULT_PUT_IGNORE_MODE)) rq->mode = SBX_DEFAULT_FILE_MODE;

    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    if (multipart_is_form_data(ct) && !fault_active(FAULT_MULTIPART_RAW)) {
        rq->mp = rest_behaviour->multipart_begin(ct);
        if (!rq->mp)
            return rest_reply_error(c, 400, "multipart/form-data without a valid boundary");
        if (fault_active(FAULT_MULTIPART_IGNORE_MODE)) rq->mode = SBX_DEFAULT_FILE_MODE;
    }

    if (fault_active(FAULT_PUT_FOLLOW_DANGLING) && fault_follow_dangling(rq)) {
        rq->writing = true;
        return MHD_YES;
    }
    /* "a.txt/" names a directory, which PUT never writes: a directory
     * there is F5's 400, a file there is not a directory (409, as for
     * a.txt/x), and nothing there is an invalid file path (F14). */
    size_t plen = strlen(rq->path);
    if (plen > 0 && rq->path[plen - 1] == '/' && !fault_active(FAULT_PUT_FILE_SLASH_OK)) {
        int t = fs_open_beneath(rq->st->root_fd, rq->path, O_PATH, 0);
        struct stat sb;
        bool dir = t >= 0 && fstat(t, &sb) == 0 && S_ISDIR(sb.st_mode);
        if (t >= 0) close(t);
        if (dir) return rest_reply_fs_error(c, FS_W_ISDIR, true, rq->path);
        if (t >= 0) return rest_reply_fs_error(c, FS_NOTDIR, true, rq->path);
        if (t == FS_NOTFOUND) return rest_reply_error(c, 400, "a file path cannot end with '/'");
        return rest_reply_fs_error(c, t, true, rq->path);
    }
    if (fault_active(FAULT_PUT_LINK_REFUSED) && fault_put_is_link(rq, false))
        return rest_reply_error(c, 409, "the path is a symbolic link");
    if (fault_active(FAULT_PUT_REPLACE_LINK)) fault_put_is_link(rq, true);
    bool parents = !fault_active(FAULT_PUT_NO_PARENTS);
    int rc = rest_behaviour->begin_write(&rq->file, rq->st, rq->path, parents);
    if (rc == FS_INVALID) {
        char norm[FS_PATH_MAX + 1];
        if (fs_path_normalize(rq->path, norm, sizeof(norm)) == 0 && norm[0] == '\0')
            rc = FS_W_ISDIR; /* the root itself */
    }
    if (rc == FS_NOTFOUND && !parents)
        return rest_reply_error(c, 404, "parent directory does not exist");
    if (rc == FS_W_ISDIR && fault_active(FAULT_PUT_DIR_500))
        return rest_reply_error(c, 500, "cannot write a directory");
    if (rc < 0) return rest_reply_fs_error(c, rc, true, rq->path);
    rq->writing = true;
    return MHD_YES;
}

/* The body is complete: check it and make the new file visible. */
static enum MHD_Result finish(struct rest_request *rq, struct MHD_Connection *c)
{
    if (rq->fail_status) return rest_reply_error(c, rq->fail_status, "%s", rq->fail_msg);
    if (rq->mp) {
        int mrc = multipart_finish(rq->mp);
        bool ok = mrc == MP_OK || (mrc == MP_NO_FILE && fault_active(FAULT_MULTIPART_MISSING_OK)) ||
                  (mrc == MP_TRUNCATED && fault_active(FAULT_MULTIPART_TRUNCATED_STORES));
        if (!ok) {
            fs_atomic_abort(&rq->file);
            rq->writing = false;
            if (mrc == MP_NO_FILE)
                return rest_reply_error(c, 400, "multipart body has no part named \"file\"");
            if (mrc == MP_CALLBACK)
                return rest_reply_error(c, 500, "cannot write the file: %s", rq->fail_msg);
            return rest_reply_error(c, 400, "%s multipart/form-data body",
                                    mrc == MP_TRUNCATED ? "truncated" : "malformed");
        }
    }
    rq->writing = false;
    if (fs_atomic_commit(&rq->file, rq->mode) != 0) {
        int e = errno;
        if (e == ENOENT)
            return rest_reply_error(c, 409, "the directory was removed during the upload");
        return rest_reply_error(c, 500, "cannot store the file: %s", strerror(e));
    }
    if (fault_active(FAULT_PUT_STATUS_200))
        return rest_reply_json(c, 200, json_pack("{s:s}", "status", "ok"));
    return rest_reply_empty(c, 204);
}

enum MHD_Result files_put(struct rest_request *rq, struct MHD_Connection *c, const char *data,
                          size_t *size)
{
    if (!rq->started) {
        rq->started = true;
        enum MHD_Result r = begin(rq, c);
        if (!rq->writing) rq->responded = true; /* an error is queued (or queuing failed) */
        return r;
    }
    if (*size > 0) {
        size_t len = *size;
        *size = 0;
        if (rq->fail_status || !rq->writing) return MHD_YES; /* discard the rest of a failed body */
        if (rq->mp) {
            int rc = multipart_feed(rq->mp, data, len, store, rq);
            if (rc == MP_CALLBACK)
                fail_upload(rq, 500, strerror(errno));
            else if (rc == MP_MALFORMED)
                fail_upload(rq, 400, "malformed multipart/form-data body");
        } else if (store(rq, data, len) != 0) {
            fail_upload(rq, 500, strerror(errno));
        }
        return MHD_YES;
    }
    rq->responded = true;
    return finish(rq, c);
}

void files_put_cleanup(struct rest_request *rq)
{
    fs_atomic_abort(&rq->file);
    rq->writing = false;
    multipart_free(rq->mp);
    rq->mp = NULL;
}
