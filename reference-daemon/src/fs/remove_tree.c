/* Removal beneath the root without following symlinks (see remove_tree.h). */
#include "fs/remove_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fs/resolve.h"

#define MAX_DEPTH 512

static int empty_dir(int dir_fd, int depth);

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

static int remove_at(int dir_fd, const char *name, int recursive, int depth)
{
    struct stat sb;
    if (fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) return map_errno(errno);
    if (recursive && S_ISLNK(sb.st_mode) && fault_active(FAULT_DELETE_RECURSIVE_FOLLOW)) {
        /* The fault: a link to a directory is entered and emptied. */
        int lfd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lfd >= 0) {
            empty_dir(lfd, depth + 1);
            close(lfd);
        }
    }
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
        int rc = empty_dir(fd, depth + 1);
        close(fd);
        if (rc != 0) return rc;
    }
    return unlinkat(dir_fd, name, AT_REMOVEDIR) == 0 ? 0 : map_errno(errno);
}

static int empty_dir(int dir_fd, int depth)
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
        int r = remove_at(dirfd(d), e->d_name, 1, depth);
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
    return remove_at(dir_fd, name, recursive, 0);
}

int fs_empty_dir(int dir_fd)
{
    return empty_dir(dir_fd, 0);
}
