/* SPDX-License-Identifier: Apache-2.0 */
/* The DELETE faults and variants of the fault build (see rest_removal.h).
 * Each acts while its fault is on and otherwise calls rest_real. */
#include "rest_removal.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fault.h"
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

/* delete-root, delete-root-alias: the emptied root is removed too. */
void fault_root_emptied(const struct rest_request *rq)
{
    if (fault_active(FAULT_DELETE_ROOT) ||
        (fault_active(FAULT_DELETE_ROOT_ALIAS) && rq->path[0] != '\0'))
        rmdir(rq->st->cfg->root_dir);
    rest_real.root_emptied(rq);
}

/* delete-absent-204: DELETE of an absent path answers 204. */
enum MHD_Result fault_reply_delete_error(struct rest_request *rq, struct MHD_Connection *c,
                                         int code)
{
    if (code == FS_NOTFOUND && fault_active(FAULT_DELETE_ABSENT_204))
        return rest_reply_empty(c, 204);
    return rest_real.reply_delete_error(rq, c, code);
}

/* delete-follow-symlink: the link's target is removed, wherever it is. */
bool fault_answer_delete_link(struct rest_request *rq, struct MHD_Connection *c,
                              enum MHD_Result *ret)
{
    if (!fault_active(FAULT_DELETE_FOLLOW_SYMLINK)) return rest_real.answer_delete_link(rq, c, ret);
    char host[PATH_MAX * 2], real[PATH_MAX];
    snprintf(host, sizeof(host), "%s/%s", rq->st->cfg->root_dir, rq->path);
    if (!realpath(host, real) || unlink(real) != 0)
        *ret = rest_reply_error(c, 404, "cannot remove the link target");
    else
        *ret = rest_reply_empty(c, 204);
    return true;
}

/* variant-symlink-delete-link: removing only the link conforms too (S5). */
bool fault_escaping_link_refused(void)
{
    return !fault_active(FAULT_VARIANT_SYMLINK_DELETE_LINK) && rest_real.escaping_link_refused();
}

/* delete-nonempty-ok: a directory is removed with its contents. */
bool fault_removes_recursively(bool asked, bool is_dir)
{
    if (is_dir && fault_active(FAULT_DELETE_NONEMPTY_OK)) return true;
    return rest_real.removes_recursively(asked, is_dir);
}
