/* SPDX-License-Identifier: Apache-2.0 */
/* The working-directory faults of the fault build (see process_cwd.h):
 * the broken resolutions the suite must catch. Otherwise proc_real's. */
#include "process_cwd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fault.h"
#include "fs/resolve.h"
#include "process/proc_behaviour.h"

static int open_host(const char *path)
{
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : fs_error_from_errno(errno);
}

int fault_open_cwd(int root_fd, const char *root_abs, const char *cwd)
{
    if (fault_active(FAULT_CWD_DEFAULT_DAEMON) && cwd[0] == '\0') return open_host(".");
    if (fault_active(FAULT_CWD_IGNORE))
        return fs_open_beneath(root_fd, "", O_PATH | O_DIRECTORY, 0);
    if (fault_active(FAULT_CWD_ABSOLUTE_HOST) && cwd[0] == '/') return open_host(cwd);
    if (fault_active(FAULT_CWD_NO_SYMLINKS) && cwd[0] != '/') {
        /* Over-strict: a symlink anywhere on a relative cwd is refused as an
         * escape, even one that stays inside the root. */
        char prefix[4096];
        for (size_t i = 0; i < sizeof(prefix) - 1 && cwd[i]; i++) {
            if (cwd[i + 1] != '/' && cwd[i + 1] != '\0') continue;
            memcpy(prefix, cwd, i + 1);
            prefix[i + 1] = '\0';
            struct stat st;
            if (fstatat(root_fd, prefix, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                return FS_ESCAPE;
        }
    }
    if (fault_active(FAULT_CWD_ESCAPE)) {
        char path[8192];
        if (snprintf(path, sizeof(path), "%s/%s", root_abs, cwd) >= (int)sizeof(path))
            return FS_INVALID;
        return open_host(path);
    }
    return proc_real.open_cwd(root_fd, root_abs, cwd);
}
