/* SPDX-License-Identifier: Apache-2.0 */
/* Removal beneath the root without following symlinks (see remove_tree.h). */
#include "fs/remove_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fs_behaviour.h"
#include "fs/resolve.h"

#define MAX_DEPTH 512

static int map_errno(int e)
{
    switch (e) {
    case ENOENT:
        return FS_NOTFOUND;
    case ENOTEMPTY:
    case EEXIST:
        return FS_RM_NOTEMPTY;
    case ENOTDIR:
        return FS_NOTDIR;
    default:
        errno = e;
        return FS_IOERR;
    }
}

int fs_remove_entry_real(int dir_fd, const char *name, int recursive, int depth)
{
    struct stat sb;
    if (fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) return map_errno(errno);
    if (!S_ISDIR(sb.st_mode)) return unlinkat(dir_fd, name, 0) == 0 ? 0 : map_errno(errno);
    if (recursive) {
        if (depth >= MAX_DEPTH) {
            errno = ELOOP;
            return FS_IOERR;
        }
        /* O_NOFOLLOW: a directory swapped for a symlink is not entered. */
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ELOOP || errno == ENOTDIR)
                return unlinkat(dir_fd, name, 0) == 0 ? 0 : map_errno(errno);
            return map_errno(errno);
        }
        int rc = fs_behaviour->empty_dir(fd, depth + 1);
        close(fd);
        if (rc != 0) return rc;
    }
    return unlinkat(dir_fd, name, AT_REMOVEDIR) == 0 ? 0 : map_errno(errno);
}

int fs_empty_dir_real(int dir_fd, int depth)
{
    int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return map_errno(errno);
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return map_errno(errno);
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        int r = fs_behaviour->remove_entry(dirfd(d), e->d_name, 1, depth);
        if (r != 0 && r != FS_NOTFOUND) { /* gone meanwhile is fine */
            rc = r;
            break;
        }
    }
    closedir(d);
    return rc;
}

int fs_remove(int dir_fd, const char *name, int recursive)
{
    return fs_behaviour->remove_entry(dir_fd, name, recursive, 0);
}

int fs_empty_dir(int dir_fd)
{
    return fs_behaviour->empty_dir(dir_fd, 0);
}
