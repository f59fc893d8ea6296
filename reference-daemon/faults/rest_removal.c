/* SPDX-License-Identifier: Apache-2.0 */
/* The DELETE faults and variants of the fault build (see rest_removal.h).
 * Each acts while its fault is on and otherwise calls rest_real. */
#include "rest_removal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fs/remove_tree.h"
#include "fs/resolve.h"
#include "rest/http_response.h"
#include "rest/request.h"

/* empty-params-invalid: an empty recursive= is refused;
 * delete-bad-recursive-ok: an unparseable one is taken as true. */
int fault_delete_recursive(const char *arg, bool bad, bool *recursive)
{
    int rc = rest_real.delete_recursive(arg, bad, recursive);
    if (fault_active(FAULT_EMPTY_PARAMS_INVALID) && arg && !*arg) rc = -1;
    if (rc != 0 && fault_active(FAULT_DELETE_BAD_RECURSIVE_OK)) {
        *recursive = true;
        rc = 0;
    }
    return rc;
}

/* absolute-root-host, empty-path-cwd: the directory a broken daemon takes
 * for the root. */
int fault_open_root_to_empty(const struct rest_request *rq)
{
    const char *wrong_root = NULL;
    if (fault_active(FAULT_ABSOLUTE_ROOT_HOST) && rq->path[0] == '/') wrong_root = "/";
    if (!wrong_root && fault_active(FAULT_EMPTY_PATH_CWD) && rq->path[0] == '\0') wrong_root = ".";
    if (!wrong_root) return rest_real.open_root_to_empty(rq);
    int fd = open(wrong_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? FS_IOERR : fd;
}

/* Whether the DELETE rq names the root (an alias of it included) and asks
 * for recursive=true. */
static bool empties_root(struct rest_request *rq, struct MHD_Connection *c)
{
    char norm[FS_PATH_MAX + 1];
    if (fs_path_normalize(rq->path, norm, sizeof(norm)) != 0 || norm[0] != '\0') return false;
    bool bad = false, recursive = false;
    char *arg = rest_query_arg(c, "recursive", &bad);
    int rc = rest_behaviour->delete_recursive(arg, bad, &recursive);
    free(arg);
    return rc == 0 && recursive;
}

/* Opens the parent of the entry rq names and examines the entry without
 * following it: the parent's descriptor, or an fs_resolve_error. */
static int examine_entry(struct rest_request *rq, char *name, size_t cap, struct stat *sb)
{
    int pfd = rest_behaviour->open_parent(rq->st, rq->path, name, cap);
    if (pfd < 0) return pfd;
    if (fstatat(pfd, name, sb, AT_SYMLINK_NOFOLLOW) == 0) return pfd;
    int e = errno;
    close(pfd);
    return e == ENOENT ? FS_NOTFOUND : FS_IOERR;
}

/* delete-follow-symlink: the link's target is removed, wherever it is. */
static enum MHD_Result remove_link_target(struct rest_request *rq, struct MHD_Connection *c)
{
    char host[PATH_MAX * 2], real[PATH_MAX];
    snprintf(host, sizeof(host), "%s/%s", rq->st->cfg->root_dir, rq->path);
    if (!realpath(host, real) || unlink(real) != 0)
        return rest_reply_error(c, 404, "cannot remove the link target");
    return rest_reply_empty(c, 204);
}

/* delete-nonempty-ok: a directory is removed with its contents whatever
 * recursive says (an invalid one is still refused). */
static enum MHD_Result remove_dir_anyway(struct rest_request *rq, struct MHD_Connection *c, int pfd,
                                         const char *name)
{
    bool bad = false, recursive = false;
    char *arg = rest_query_arg(c, "recursive", &bad);
    int valid = rest_behaviour->delete_recursive(arg, bad, &recursive);
    free(arg);
    if (valid != 0) return rest_reply_error(c, 400, "recursive must be true or false");
    int rc = fs_remove(pfd, name, 1);
    if (rc != 0) return rest_reply_fs_error(c, rc, false, rq->path);
    return rest_reply_empty(c, 204);
}

/* delete-absent-204, delete-follow-symlink, delete-nonempty-ok: a DELETE
 * of an entry that the broken daemon answers itself (true, *ret). */
static bool answer_entry(struct rest_request *rq, struct MHD_Connection *c, enum MHD_Result *ret)
{
    if (!fault_active(FAULT_DELETE_ABSENT_204) && !fault_active(FAULT_DELETE_FOLLOW_SYMLINK) &&
        !fault_active(FAULT_DELETE_NONEMPTY_OK))
        return false;
    char norm[FS_PATH_MAX + 1];
    if (fs_path_normalize(rq->path, norm, sizeof(norm)) == 0 && norm[0] == '\0') return false;
    char name[FS_NAME_MAX + 1];
    struct stat sb;
    int pfd = examine_entry(rq, name, sizeof(name), &sb);
    bool answered = true;
    if (pfd == FS_NOTFOUND && fault_active(FAULT_DELETE_ABSENT_204))
        *ret = rest_reply_empty(c, 204);
    else if (pfd >= 0 && S_ISLNK(sb.st_mode) && fault_active(FAULT_DELETE_FOLLOW_SYMLINK))
        *ret = remove_link_target(rq, c);
    else if (pfd >= 0 && S_ISDIR(sb.st_mode) && fault_active(FAULT_DELETE_NONEMPTY_OK))
        *ret = remove_dir_anyway(rq, c, pfd, name);
    else
        answered = false;
    if (pfd >= 0) close(pfd);
    return answered;
}

/* The DELETE handler of the fault build: the entry faults above answer
 * some DELETEs themselves; delete-root and delete-root-alias remove the
 * root after the real handler emptied it (rmdir fails unless it did). */
enum MHD_Result fault_files_delete(struct rest_request *rq, struct MHD_Connection *c)
{
    enum MHD_Result ret;
    if (answer_entry(rq, c, &ret)) return ret;
    bool remove_root = (fault_active(FAULT_DELETE_ROOT) ||
                        (fault_active(FAULT_DELETE_ROOT_ALIAS) && rq->path[0] != '\0')) &&
                       empties_root(rq, c);
    ret = rest_real.files_delete(rq, c);
    if (remove_root) rmdir(rq->st->cfg->root_dir);
    return ret;
}

/* variant-symlink-delete-link: removing only the link conforms too (S5). */
bool fault_escaping_link_refused(void)
{
    return !fault_active(FAULT_VARIANT_SYMLINK_DELETE_LINK) && rest_real.escaping_link_refused();
}
