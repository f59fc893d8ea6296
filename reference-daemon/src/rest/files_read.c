/* SPDX-License-Identifier: Apache-2.0 */
/* GET and HEAD of /v1/files/{path} (F7, F8, F9, S1-S3, S6, S9, C1, C4): a
 * file is streamed from its open descriptor (sendfile), so a delete during
 * the transfer does not cut it short and memory does not grow with its
 * size; a directory answers its JSON listing. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "fs/listing.h"
#include "fs/resolve.h"
#include "rest/byte_range.h"
#include "rest/rest_behaviour.h"
#include "rest/http_response.h"
#include "rest/json_text.h"
#include "rest/request.h"

#define SMALL_BODY (64 * 1024) /* bodies up to this are sent from memory */

/* A small body is read at once and leaves with the headers in one send
 * (an fd response sends the headers, then the body with sendfile: two
 * segments, two wake-ups of the client). NULL: serve it from the fd. */
static struct MHD_Response *small_file_response(struct rest_request *rq, int fd, uint64_t start,
                                                uint64_t len)
{
    if (len > SMALL_BODY) return NULL;
    if (rq->cached_body && len && start + len <= rq->cached_len) {
        bool whole = start == 0 && len == rq->cached_len;
        struct MHD_Response *r =
            whole ? MHD_create_response_from_buffer((size_t)len, rq->cached_body,
                                                    MHD_RESPMEM_MUST_FREE)
                  : MHD_create_response_from_buffer((size_t)len, rq->cached_body + start,
                                                    MHD_RESPMEM_MUST_COPY);
        if (r) {
            if (whole) rq->cached_body = NULL; /* the response's now */
            close(fd);
            return r;
        }
    }
    char *buf = malloc(len ? (size_t)len : 1);
    if (!buf) return NULL;
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, buf + got, (size_t)len - got, (off_t)(start + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    /* The file shrank meanwhile: the fd response reports it as it always did. */
    struct MHD_Response *r =
        got == len ? MHD_create_response_from_buffer((size_t)len, buf, MHD_RESPMEM_MUST_FREE)
                   : NULL;
    if (!r) {
        free(buf);
        return NULL;
    }
    close(fd);
    return r;
}

struct MHD_Response *rest_file_response_real(struct rest_request *rq, int fd, uint64_t start,
                                             uint64_t len, bool head)
{
    (void)head;
    struct MHD_Response *r = small_file_response(rq, fd, start, len);
    if (!r) r = MHD_create_response_from_fd_at_offset64(len, fd, start);
    if (r) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, REST_FILE_MEDIA_TYPE);
    return r;
}

static enum MHD_Result serve_file(struct rest_request *rq, struct MHD_Connection *c, int fd,
                                  const struct stat *sb, bool head)
{
    uint64_t size = (uint64_t)sb->st_size, start = 0, len = size;
    unsigned status = 200;
    enum byte_range_result rr = rest_behaviour->file_range(c, size, &start, &len);
    char content_range[96];
    if (rr == RANGE_UNSATISFIABLE) {
        close(fd);
        snprintf(content_range, sizeof(content_range), "bytes */%" PRIu64, size);
        json_t *body = json_pack("{s:s, s:s}", "code", rest_error_code(416), "message",
                                 "requested range not satisfiable");
        char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
        json_decref(body);
        if (!text) return MHD_NO;
        struct MHD_Response *r =
            MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
        if (!r) {
            free(text);
            return MHD_NO;
        }
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rest_json_type());
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_RANGE, content_range);
        return rest_queue(c, 416, r);
    }
    if (rr == RANGE_OK) {
        status = 206;
        snprintf(content_range, sizeof(content_range), "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64,
                 start, start + len - 1, size);
    }
    struct MHD_Response *r = rest_behaviour->file_response(rq, fd, start, len, head);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
    if (status == 206) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_RANGE, content_range);
    return rest_queue(c, status, r);
}

json_t *rest_entry_json_real(const struct fs_entry *e)
{
    char when[64], mode[16];
    rest_behaviour->format_time(&e->mtime, when, sizeof(when));
    snprintf(mode, sizeof(mode), "%04o", (unsigned)(e->mode & 0777));
    json_t *name = json_text(e->name);
    if (!name) return NULL;
    return json_pack("{s:o, s:I, s:s, s:s, s:s}", "name", name, "size", (json_int_t)e->size, "type",
                     e->is_dir ? "directory" : "file", "modified_at", when, "mode", mode);
}

static enum MHD_Result serve_listing(struct rest_request *rq, struct MHD_Connection *c, int fd)
{
    char norm[FS_PATH_MAX + 1];
    if (fs_path_normalize(rq->path, norm, sizeof(norm)) != 0) norm[0] = '\0';
    struct fs_entry *entries;
    size_t n;
    int rc = fs_list_dir(rq->st->root_fd, fd, norm, &entries, &n);
    close(fd);
    if (rc != 0) return rest_reply_fs_error(c, rc, false, rq->path);
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        json_t *e = rest_behaviour->entry_json(&entries[i]);
        if (e) json_array_append_new(arr, e); /* a name that is not UTF-8 is left out */
    }
    fs_entries_free(entries, n);
    if (!arr) return rest_reply_error(c, 500, "out of memory");
    char shown[FS_PATH_MAX + 2];
    snprintf(shown, sizeof(shown), "/%s", norm);
    json_t *path = json_text(shown);
    return rest_reply_json(c, 200, json_pack("{s:o, s:o}", "path", path, "entries", arr));
}

/* A file open as fd, its stat sb: a listing, a file, or refused. */
static enum MHD_Result serve_opened(struct rest_request *rq, struct MHD_Connection *c, int fd,
                                    const struct stat *sb, bool head)
{
    if (S_ISDIR(sb->st_mode)) return serve_listing(rq, c, fd);
    if (!S_ISREG(sb->st_mode)) {
        close(fd);
        return rest_reply_error(c, 400, "not a regular file or directory");
    }
    return serve_file(rq, c, fd, sb, head);
}

/* Whether the first len bytes of fd are in the page cache: read at once
 * (RWF_NOWAIT) into rq->cached_body, or not at all. */
static bool read_cached(struct rest_request *rq, int fd, uint64_t len)
{
    if (len == 0) return true;
    char *buf = malloc((size_t)len);
    if (!buf) return false;
    struct iovec iov = {buf, (size_t)len};
    ssize_t n = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
    if (n != (ssize_t)len) {
        free(buf);
        return false;
    }
    rq->cached_body = buf;
    rq->cached_len = (size_t)len;
    return true;
}

/* On the loop: nothing queued, the blocking pool answers instead. */
static enum MHD_Result leave_to_pool(struct rest_request *rq)
{
    rq->must_wait = true;
    return MHD_YES;
}

/* O_NONBLOCK: opening a FIFO must not wait for a writer (S9). */
#define GET_OPEN_FLAGS (O_RDONLY | O_NOCTTY | O_NONBLOCK)

enum MHD_Result files_get(struct rest_request *rq, struct MHD_Connection *c, bool head)
{
    int fd = rest_behaviour->open_path(rq->st, rq->path, GET_OPEN_FLAGS);
    if (fd == FS_WOULDBLOCK) return leave_to_pool(rq);
    if (fd < 0) return rest_reply_fs_error(c, fd, false, rq->path);
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return rest_reply_error(c, 500, "cannot stat: %s", strerror(errno));
    }
    /* On the loop, a listing (which reads the directory and stats every
     * entry) and a small file whose bytes are not cached (it is answered
     * from memory) are the pool's; a bigger file leaves by sendfile from
     * the loop like every download. */
    if (rq->on_loop &&
        (S_ISDIR(sb.st_mode) || (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size <= SMALL_BODY &&
                                 !read_cached(rq, fd, (uint64_t)sb.st_size)))) {
        close(fd);
        return leave_to_pool(rq);
    }
    enum MHD_Result r = serve_opened(rq, c, fd, &sb, head);
    free(rq->cached_body); /* not taken: a range, an error, or a fault's response */
    rq->cached_body = NULL;
    return r;
}
