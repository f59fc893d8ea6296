/* SPDX-License-Identifier: Apache-2.0 */
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

#include "rest/rest_behaviour.h"
#include "rest/http_response.h"
#include "rest/multipart.h"
#include "rest/request.h"
#include "rest/request_params.h"

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
    return rest_behaviour->store(rq, at, data, len);
}

/* The headers are in: validate everything and open the temporary file
 * before any body byte is accepted. */
static enum MHD_Result begin(struct rest_request *rq, struct MHD_Connection *c)
{
    bool bad = false;
    char *mode_s = rest_query_arg(c, "mode", &bad);
    int mrc = rest_behaviour->put_mode(mode_s, bad, &rq->mode);
    free(mode_s);
    if (mrc != 0) return rest_reply_error(c, 400, "mode must match ^0[0-7]{3}$");

    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    if (rest_behaviour->body_is_multipart(ct)) {
        rq->mp = rest_behaviour->multipart_begin(ct);
        if (!rq->mp)
            return rest_reply_error(c, 400, "multipart/form-data without a valid boundary");
    }

    /* "a.txt/" names a directory, which PUT never writes: a directory
     * there is F5's 400, a file there is not a directory (409, as for
     * a.txt/x), and nothing there is an invalid file path (F14). */
    size_t plen = strlen(rq->path);
    if (plen > 0 && rq->path[plen - 1] == '/' &&
        rest_behaviour->slash_names_directory(MHD_HTTP_METHOD_PUT)) {
        int t = fs_open_beneath(rq->st->root_fd, rq->path, O_PATH, 0);
        struct stat sb;
        bool dir = t >= 0 && fstat(t, &sb) == 0 && S_ISDIR(sb.st_mode);
        if (t >= 0) close(t);
        if (dir) return rest_reply_fs_error(c, FS_W_ISDIR, true, rq->path);
        if (t >= 0) return rest_reply_fs_error(c, FS_NOTDIR, true, rq->path);
        if (t == FS_NOTFOUND) return rest_reply_error(c, 400, "a file path cannot end with '/'");
        return rest_reply_fs_error(c, t, true, rq->path);
    }
    int rc = rest_behaviour->begin_write(&rq->file, rq->st, rq->path, 1);
    if (rc == FS_INVALID) {
        char norm[FS_PATH_MAX + 1];
        if (fs_path_normalize(rq->path, norm, sizeof(norm)) == 0 && norm[0] == '\0')
            rc = FS_W_ISDIR; /* the root itself */
    }
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
        if (!rest_behaviour->multipart_stored(mrc)) {
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
    fs_atomic_release(&rq->file);
    rq->writing = false;
    multipart_free(rq->mp);
    rq->mp = NULL;
}
