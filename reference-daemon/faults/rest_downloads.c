/* SPDX-License-Identifier: Apache-2.0 */
/* The download faults and variants of the fault build (see
 * rest_downloads.h). Each acts while its fault is on and otherwise calls
 * rest_real. */
#include "rest_downloads.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fs/resolve.h"
#include "rest/http_response.h"
#include "rest/request.h"
#include "rest_head_body.h"

#define STREAM_BLOCK (256 * 1024)

/* special-link-followed: the name's own type (lstat) decides whether the
 * path may be a special file; a symlink is not one, so it is opened as a
 * regular file would be, blocking, and the open follows it. */
static bool name_is_symlink(const struct daemon_state *st, const char *path)
{
    char name[FS_NAME_MAX + 1];
    int pfd = fs_open_parent(st->root_fd, path, 0, name, sizeof(name));
    if (pfd < 0) return false;
    struct stat sb;
    bool link = fstatat(pfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode);
    close(pfd);
    return link;
}

int fault_download_open(const struct daemon_state *st, const char *path, int flags,
                        int (*open)(const struct daemon_state *st, const char *path, int flags))
{
    /* fifo-block: opening a FIFO waits for a writer. */
    if (fault_active(FAULT_FIFO_BLOCK)) flags &= ~O_NONBLOCK;
    if (fault_active(FAULT_SPECIAL_LINK_FOLLOWED) && name_is_symlink(st, path))
        flags &= ~O_NONBLOCK;
    /* list-root-404: the root itself is not found. */
    if (fault_active(FAULT_LIST_ROOT_404) && path[0] == '\0') return FS_NOTFOUND;
    int fd = open(st, path, flags);
    /* sweep-get-404: no regular file is found. */
    struct stat sb;
    if (fd >= 0 && fault_active(FAULT_SWEEP_GET_404) && fstat(fd, &sb) == 0 &&
        S_ISREG(sb.st_mode)) {
        close(fd);
        return FS_NOTFOUND;
    }
    return fd;
}

/* head-absent-200: HEAD of an absent path answers 200. */
enum MHD_Result fault_files_get(struct rest_request *rq, struct MHD_Connection *c, bool head)
{
    if (head && fault_active(FAULT_HEAD_ABSENT_200)) {
        int fd = rest_behaviour->open_path(rq->st, rq->path, O_PATH);
        if (fd == FS_NOTFOUND) return rest_reply_empty(c, 200);
        if (fd >= 0) close(fd);
    }
    return rest_real.files_get(rq, c, head);
}

/* get-range-ignored: 200 with the whole file whatever Range asks. */
enum byte_range_result fault_file_range(struct MHD_Connection *c, uint64_t size, uint64_t *start,
                                        uint64_t *len)
{
    if (fault_active(FAULT_GET_RANGE_IGNORED)) return RANGE_NONE;
    return rest_real.file_range(c, size, start, len);
}

/* The reader of get-no-length, variant-chunked-get and get-reopen-by-path:
 * a callback response instead of the descriptor response. */
struct fault_stream {
    const struct daemon_state *st;
    char *path; /* set: reopen by path for every block (get-reopen-by-path) */
    int fd;
    uint64_t start, len;
};

static ssize_t fault_stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct fault_stream *fs = cls;
    if (pos >= fs->len) return MHD_CONTENT_READER_END_OF_STREAM;
    if (max > fs->len - pos) max = (size_t)(fs->len - pos);
    int fd = fs->fd;
    if (fs->path) {
        fd = fs_open_beneath(fs->st->root_fd, fs->path, O_RDONLY | O_NONBLOCK, 0);
        if (fd < 0) return MHD_CONTENT_READER_END_OF_STREAM;
    }
    ssize_t n = pread(fd, buf, max, (off_t)(fs->start + pos));
    if (fs->path) close(fd);
    if (n <= 0)
        return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
    return n;
}

static void fault_stream_free(void *cls)
{
    struct fault_stream *fs = cls;
    if (fs->fd >= 0) close(fs->fd);
    free(fs->path);
    free(fs);
}

/* The callback response of get-no-length, variant-chunked-get and
 * get-reopen-by-path, instead of the descriptor response. */
static struct MHD_Response *stream_response(struct rest_request *rq, int fd, uint64_t start,
                                            uint64_t len, bool chunked, bool reopen)
{
    struct fault_stream *fs = calloc(1, sizeof(*fs));
    if (!fs) {
        close(fd);
        return NULL;
    }
    fs->st = rq->st;
    fs->fd = fd;
    fs->start = start;
    fs->len = len;
    if (reopen) fs->path = strdup(rq->path);
    uint64_t size = chunked ? MHD_SIZE_UNKNOWN : len;
    struct MHD_Response *r = MHD_create_response_from_callback(
        size, STREAM_BLOCK, fault_stream_read, fs, fault_stream_free);
    if (!r) {
        fault_stream_free(fs);
        return NULL;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, REST_FILE_MEDIA_TYPE);
    return r;
}

/* head-sends-body keeps the file's first bytes; get-wrong-type serves
 * text/plain. */
struct MHD_Response *fault_file_response(struct rest_request *rq, int fd, uint64_t start,
                                         uint64_t len, bool head)
{
    if (head && fault_active(FAULT_HEAD_SENDS_BODY)) fault_head_body_keep(rq, fd);
    bool reopen = fault_active(FAULT_GET_REOPEN_BY_PATH);
    /* Not for HEAD: libmicrohttpd ends a chunked HEAD answer with the last
     * chunk "0\r\n\r\n", a body HEAD must not have (F9). */
    bool chunked =
        !head && (fault_active(FAULT_GET_NO_LENGTH) || fault_active(FAULT_VARIANT_CHUNKED_GET));
    struct MHD_Response *r = reopen || chunked
                                 ? stream_response(rq, fd, start, len, chunked, reopen)
                                 : rest_real.file_response(rq, fd, start, len, head);
    if (r && fault_active(FAULT_GET_WRONG_TYPE)) {
        MHD_del_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, REST_FILE_MEDIA_TYPE);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
    }
    return r;
}
