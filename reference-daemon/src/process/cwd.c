/* SPDX-License-Identifier: Apache-2.0 */
/* Working-directory resolution for processes. */
#include "cwd.h"

#include <fcntl.h>
#include <string.h>

#include "fs/resolve.h"
#include "process/proc_behaviour.h"

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

int cwd_open(int root_fd, const char *root_abs, const char *cwd)
{
    return proc_behaviour->open_cwd(root_fd, root_abs, cwd ? cwd : "");
}

int cwd_open_real(int root_fd, const char *root_abs, const char *cwd)
{
    if (cwd[0] == '/') cwd = strip_root_prefix(root_abs, cwd);
    /* The resolver takes leading '/' as the root. */
    return fs_open_beneath(root_fd, cwd, O_PATH | O_DIRECTORY, 0);
}
