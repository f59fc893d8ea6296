/* DELETE of /v1/files/{path} (F10, F11, S5): files, empty directories and,
 * with recursive=true, whole trees, removed without following symlinks; the
 * root is never removed, only emptied. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fs/remove_tree.h"
#include "fs/resolve.h"
#include "rest/rest_behaviour.h"
#include "rest/http_response.h"
#include "rest/request.h"
#include "rest/request_params.h"

/* absolute-root-host, empty-path-cwd: the directory a broken daemon takes
 * for the root, or NULL for the real one. */
static const char *fault_root_dir(const struct rest_request *rq)
{
    if (fault_active(FAULT_ABSOLUTE_ROOT_HOST) && rq->path[0] == '/') return "/";
    if (fault_active(FAULT_EMPTY_PATH_CWD) && rq->path[0] == '\0') return ".";
    return NULL;
}

static enum MHD_Result delete_root(struct rest_request *rq, struct MHD_Connection *c,
                                   bool recursive)
{
    if (!recursive)
        return rest_reply_error(c, 409,
                                "the sandbox root cannot be removed; use recursive=true "
                                "to empty it");
    const char *wrong_root = fault_root_dir(rq);
    int fd = wrong_root ? open(wrong_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                        : fs_open_beneath(rq->st->root_fd, "", O_RDONLY | O_DIRECTORY, 0);
    if (wrong_root && fd < 0) fd = FS_IOERR;
    if (fd < 0) return rest_reply_fs_error(c, fd, false, rq->path);
    int rc = fs_empty_dir(fd);
    close(fd);
    if (rc != 0) return rest_reply_fs_error(c, rc, false, rq->path);
    if (fault_active(FAULT_DELETE_ROOT) ||
        (fault_active(FAULT_DELETE_ROOT_ALIAS) && rq->path[0] != '\0'))
        rmdir(rq->st->cfg->root_dir);
    return rest_reply_empty(c, 204);
}

/* delete-follow-symlink: the link's target is removed, wherever it is. */
static enum MHD_Result fault_delete_target(struct rest_request *rq, struct MHD_Connection *c)
{
    char host[PATH_MAX * 2], real[PATH_MAX];
    snprintf(host, sizeof(host), "%s/%s", rq->st->cfg->root_dir, rq->path);
    if (!realpath(host, real) || unlink(real) != 0)
        return rest_reply_error(c, 404, "cannot remove the link target");
    return rest_reply_empty(c, 204);
}

enum MHD_Result files_delete(struct rest_request *rq, struct MHD_Connection *c)
{
    bool bad = false, recursive = false;
    char *rec_s = rest_query_arg(c, "recursive", &bad);
    bool rec_invalid = bad || parse_recursive(rec_s, &recursive) != 0;
    if (fault_active(FAULT_EMPTY_PARAMS_INVALID) && rec_s && !*rec_s) rec_invalid = true;
    free(rec_s);
    if (rec_invalid && fault_active(FAULT_DELETE_BAD_RECURSIVE_OK)) {
        rec_invalid = false;
        recursive = true;
    }

    char norm[FS_PATH_MAX + 1];
    int nrc = fs_path_normalize(rq->path, norm, sizeof(norm));
    if (nrc == 0 && norm[0] == '\0') {
        if (rec_invalid) return rest_reply_error(c, 400, "recursive must be true or false");
        return delete_root(rq, c, recursive);
    }

    char name[FS_NAME_MAX + 1];
    int pfd = rest_behaviour->open_parent(rq->st, rq->path, name, sizeof(name));
    if (pfd < 0) {
        if (pfd == FS_NOTFOUND && fault_active(FAULT_DELETE_ABSENT_204))
            return rest_reply_empty(c, 204);
        return rest_reply_fs_error(c, pfd, false, rq->path);
    }
    struct stat sb;
    if (fstatat(pfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        int e = errno;
        close(pfd);
        if (e == ENOENT && fault_active(FAULT_DELETE_ABSENT_204)) return rest_reply_empty(c, 204);
        return rest_reply_fs_error(c, e == ENOENT ? FS_NOTFOUND : FS_IOERR, false, rq->path);
    }
    if (rec_invalid) {
        close(pfd);
        return rest_reply_error(c, 400, "recursive must be true or false");
    }
    /* "a.txt/" names a directory: a file there (or a link to one) is not
     * found, as GET, HEAD and PUT of the same path say (F14). */
    size_t plen = strlen(rq->path);
    if (plen > 0 && rq->path[plen - 1] == '/' && !S_ISDIR(sb.st_mode) &&
        !fault_active(FAULT_DELETE_FILE_SLASH_OK)) {
        int t = S_ISLNK(sb.st_mode)
                    ? fs_open_beneath(rq->st->root_fd, rq->path, O_RDONLY | O_DIRECTORY, 0)
                    : FS_NOTDIR;
        if (t < 0) {
            close(pfd);
            return rest_reply_fs_error(c, t == FS_ESCAPE ? FS_ESCAPE : FS_NOTDIR, false, rq->path);
        }
        close(t);
    }
    if (S_ISLNK(sb.st_mode)) {
        if (fault_active(FAULT_DELETE_FOLLOW_SYMLINK)) {
            close(pfd);
            return fault_delete_target(rq, c);
        }
        /* A link that leads out of the root is refused (S5; removing only
         * the link, the variant, conforms too); any other link is removed
         * itself, never its target. */
        int t = fs_open_beneath(rq->st->root_fd, rq->path, O_PATH, 0);
        if (t == FS_ESCAPE && !fault_active(FAULT_VARIANT_SYMLINK_DELETE_LINK)) {
            close(pfd);
            return rest_reply_error(c, 403, "symlink points outside the sandbox root");
        }
        if (t >= 0) close(t);
    }
    if (S_ISDIR(sb.st_mode) && fault_active(FAULT_DELETE_NONEMPTY_OK)) recursive = true;
    int rc = fs_remove(pfd, name, recursive);
    close(pfd);
    if (rc == FS_RM_NOTEMPTY)
        return rest_reply_error(c, 409, "directory is not empty; use recursive=true");
    if (rc != 0) return rest_reply_fs_error(c, rc, false, rq->path);
    return rest_reply_empty(c, 204);
}
