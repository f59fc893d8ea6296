/* Working-directory resolution for processes. */
#include "cwd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fs/resolve.h"

/* Strips root_abs from cwd when it is a whole-component prefix. */
static const char *strip_root_prefix(const char *root_abs, const char *cwd)
{
    if (!root_abs || root_abs[0] != '/') return cwd;
    size_t n = strlen(root_abs);
    while (n > 1 && root_abs[n - 1] == '/')
        n--;
    if (n == 1) /* the root is "/": every path is already beneath it */
        return cwd;
    if (strncmp(cwd, root_abs, n) == 0 && (cwd[n] == '\0' || cwd[n] == '/')) return cwd + n;
    return cwd;
}

static int errno_to_fs(int e)
{
    switch (e) {
    case ENOENT:
        return FS_NOTFOUND;
    case ENOTDIR:
        return FS_NOTDIR;
    case ELOOP:
        return FS_LOOP;
    default:
        return FS_IOERR;
    }
}

/* Fault injection only: the broken resolutions the suite must catch. */
static int cwd_open_faulty(int root_fd, const char *root_abs, const char *cwd, int *out)
{
    if (fault_active(FAULT_CWD_DEFAULT_DAEMON) && cwd[0] == '\0') {
        int fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        *out = fd >= 0 ? fd : errno_to_fs(errno);
        return 1;
    }
    if (fault_active(FAULT_CWD_IGNORE)) {
        *out = fs_open_beneath(root_fd, "", O_PATH | O_DIRECTORY, 0);
        return 1;
    }
    if (fault_active(FAULT_CWD_ABSOLUTE_HOST) && cwd[0] == '/') {
        int fd = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
        *out = fd >= 0 ? fd : errno_to_fs(errno);
        return 1;
    }
    if (fault_active(FAULT_CWD_NO_SYMLINKS) && cwd[0] != '/') {
        /* Over-strict: a symlink anywhere on a relative cwd is refused as an
         * escape, even one that stays inside the root. */
        char prefix[4096];
        for (size_t i = 0; i < sizeof(prefix) - 1 && cwd[i]; i++) {
            if (cwd[i + 1] != '/' && cwd[i + 1] != '\0') continue;
            memcpy(prefix, cwd, i + 1);
            prefix[i + 1] = '\0';
            struct stat st;
            if (fstatat(root_fd, prefix, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
                *out = FS_ESCAPE;
                return 1;
            }
        }
    }
    if (fault_active(FAULT_CWD_ESCAPE)) {
        char path[8192];
        if (snprintf(path, sizeof(path), "%s/%s", root_abs, cwd) >= (int)sizeof(path)) {
            *out = FS_INVALID;
            return 1;
        }
        int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        *out = fd >= 0 ? fd : errno_to_fs(errno);
        return 1;
    }
    return 0;
}

int cwd_open(int root_fd, const char *root_abs, const char *cwd)
{
    if (!cwd) cwd = "";
    int fd;
    if (cwd_open_faulty(root_fd, root_abs, cwd, &fd)) return fd;
    if (cwd[0] == '/') cwd = strip_root_prefix(root_abs, cwd);
    /* The resolver takes leading '/' as the root. */
    return fs_open_beneath(root_fd, cwd, O_PATH | O_DIRECTORY, 0);
}
