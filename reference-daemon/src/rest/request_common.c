/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the route handlers: error mapping and query arguments. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs/atomic_write.h"
#include "fs/remove_tree.h"
#include "fs/resolve.h"
#include "rest/http_response.h"
#include "rest/request.h"
#include "rest/request_path.h"
#include "rest/rest_behaviour.h"

enum MHD_Result rest_reply_fs_error(struct MHD_Connection *c, int code, bool for_write,
                                    const char *path)
{
    (void)path;
    return rest_behaviour->reply_fs_error(c, code, for_write);
}

enum MHD_Result rest_reply_fs_error_real(struct MHD_Connection *c, int code, bool for_write)
{
    switch (code) {
    case FS_ESCAPE:
        return rest_reply_error(c, 403, "path resolves outside the sandbox root");
    case FS_NOTFOUND:
        if (for_write)
            return rest_reply_error(c, 409,
                                    "a parent of the path cannot be resolved "
                                    "(dangling symlink or removed directory)");
        return rest_reply_error(c, 404, "no such file or directory");
    case FS_NOTDIR:
        if (for_write) return rest_reply_error(c, 409, "a parent of the path is not a directory");
        return rest_reply_error(c, 404, "a component of the path is not a directory");
    case FS_LOOP:
        return rest_reply_error(c, for_write ? 409 : 404, "too many levels of symbolic links");
    case FS_INVALID:
        return rest_reply_error(c, 400, "invalid path (empty, too long or a name too long)");
    case FS_W_ISDIR:
        return rest_reply_error(c, 400, "path is a directory");
    case FS_W_SPECIAL:
        return rest_reply_error(c, 400, "path is not a regular file");
    case FS_RM_NOTEMPTY:
        return rest_reply_error(c, 409, "directory is not empty");
    default: {
        int e = errno;
        if (e == EACCES || e == EPERM || e == EROFS)
            return rest_reply_error(c, 403, "%s", strerror(e));
        if (e == ENAMETOOLONG) return rest_reply_error(c, 400, "%s", strerror(e));
        if (e == ENXIO || e == EISDIR) return rest_reply_error(c, 400, "%s", strerror(e));
        return rest_reply_error(c, 500, "%s", strerror(e));
    }
    }
}

char *rest_query_arg(struct MHD_Connection *c, const char *key, bool *bad)
{
    const char *raw = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
    char *out = NULL;
    if (rest_decode_query(raw, &out) != 0) *bad = true;
    return out;
}
