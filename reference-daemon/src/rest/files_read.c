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
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "fault.h"
#include "fs/listing.h"
#include "fs/resolve.h"
#include "rest/byte_range.h"
#include "rest/rest_behaviour.h"
#include "rest/http_response.h"
#include "rest/json_text.h"
#include "rest/request.h"

#define STREAM_BLOCK (256 * 1024)
#define SMALL_BODY (64 * 1024) /* bodies up to this are sent from memory */

/* Reader of the get-no-length and get-reopen-by-path faults: a callback
 * response instead of the descriptor response. */
struct fault_stream {
    struct daemon_state *st;
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

/* A small body is read at once and leaves with the headers in one send
 * (an fd response sends the headers, then the body with sendfile: two
 * segments, two wake-ups of the client). NULL: serve it from the fd. */
static struct MHD_Response *small_file_response(int fd, uint64_t start, uint64_t len)
{
    if (len > SMALL_BODY) return NULL;
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

static struct MHD_Response *file_response(struct rest_request *rq, int fd, uint64_t start,
                                          uint64_t len, bool head)
{
    bool reopen = fault_active(FAULT_GET_REOPEN_BY_PATH);
    /* Not for HEAD: libmicrohttpd ends a chunked HEAD answer with the last
     * chunk "0\r\n\r\n", a body HEAD must not have (F9). */
    bool chunked =
        !head && (fault_active(FAULT_GET_NO_LENGTH) || fault_active(FAULT_VARIANT_CHUNKED_GET));
    if (!reopen && !chunked) {
        struct MHD_Response *r = small_file_response(fd, start, len);
        return r ? r : MHD_create_response_from_fd_at_offset64(len, fd, start);
    }
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
    if (!r) fault_stream_free(fs);
    return r;
}

static enum MHD_Result serve_file(struct rest_request *rq, struct MHD_Connection *c, int fd,
                                  const struct stat *sb, bool head)
{
    uint64_t size = (uint64_t)sb->st_size, start = 0, len = size;
    unsigned status = 200;
    enum byte_range_result rr = RANGE_NONE;
    if (!fault_active(FAULT_GET_RANGE_IGNORED))
        rr =
            parse_byte_range(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE),
                             size, &start, &len);
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
    struct MHD_Response *r = file_response(rq, fd, start, len, head);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            fault_active(FAULT_GET_WRONG_TYPE) ? "text/plain"
                                                               : "application/octet-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
    if (status == 206) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_RANGE, content_range);
    return rest_queue(c, status, r);
}

static void format_time(const struct timespec *ts, char *out, size_t cap)
{
    if (fault_active(FAULT_LIST_BAD_TIME)) {
        snprintf(out, cap, "%lld", (long long)ts->tv_sec);
        return;
    }
    struct tm tm;
    time_t t = ts->tv_sec;
    if (fault_active(FAULT_VARIANT_TIME_OFFSET)) {
        /* RFC 3339 allows any offset and fractional seconds. */
        t += 2 * 3600;
        gmtime_r(&t, &tm);
        size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(out + n, cap - n, ".%09ld+02:00", (long)ts->tv_nsec);
        return;
    }
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *entry_json(const struct fs_entry *e)
{
    char when[64], mode[16];
    format_time(&e->mtime, when, sizeof(when));
    if (fault_active(FAULT_LIST_NO_MODE_PATTERN))
        snprintf(mode, sizeof(mode), "%u", (unsigned)(e->mode & 0777));
    else
        snprintf(mode, sizeof(mode), "%04o", (unsigned)(e->mode & 0777));
    const char *type = e->is_dir ? "directory" : "file";
    if (e->is_link && fault_active(FAULT_LIST_SYMLINK_TYPE)) type = "symlink";
    json_t *name = json_text(e->name);
    if (!name) return NULL;
    json_t *entry = json_pack("{s:o, s:I, s:s, s:s, s:s}", "name", name, "size",
                              (json_int_t)e->size, "type", type, "modified_at", when, "mode", mode);
    if (entry && fault_active(FAULT_VARIANT_EXTRA_FIELDS))
        json_object_set_new(entry, "x_inode_kind", json_string(e->is_link ? "link" : "plain"));
    return entry;
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
        json_t *e = entry_json(&entries[i]);
        if (e) json_array_append_new(arr, e); /* a name that is not UTF-8 is left out */
    }
    fs_entries_free(entries, n);
    if (!arr) return rest_reply_error(c, 500, "out of memory");
    if (json_array_size(arr) == 0 && fault_active(FAULT_LIST_NULL_ENTRIES)) {
        json_decref(arr);
        arr = json_null();
    }
    char shown[FS_PATH_MAX + 2];
    snprintf(shown, sizeof(shown), "/%s", norm);
    json_t *path = json_text(shown);
    return rest_reply_json(c, 200, json_pack("{s:o, s:o}", "path", path, "entries", arr));
}

enum MHD_Result files_get(struct rest_request *rq, struct MHD_Connection *c, bool head)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (S9). */
    int flags = O_RDONLY | O_NOCTTY | (fault_active(FAULT_FIFO_BLOCK) ? 0 : O_NONBLOCK);
    if (fault_active(FAULT_LIST_ROOT_404) && rq->path[0] == '\0')
        return rest_reply_error(c, 404, "no such file or directory");
    int fd = rest_behaviour->open_path(rq->st, rq->path, flags);
    if (fd < 0) {
        if (head && fault_active(FAULT_HEAD_ABSENT_200) && fd == FS_NOTFOUND)
            return rest_reply_empty(c, 200);
        return rest_reply_fs_error(c, fd, false, rq->path);
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return rest_reply_error(c, 500, "cannot stat: %s", strerror(errno));
    }
    if (S_ISDIR(sb.st_mode)) return serve_listing(rq, c, fd);
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return rest_reply_error(c, 400, "not a regular file or directory");
    }
    if (fault_active(FAULT_SWEEP_GET_404)) {
        close(fd);
        return rest_reply_error(c, 404, "no such file or directory");
    }
    if (head) rest_behaviour->head_answered(rq, fd);
    return serve_file(rq, c, fd, &sb, head);
}
