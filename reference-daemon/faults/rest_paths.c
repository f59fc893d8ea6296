/* SPDX-License-Identifier: Apache-2.0 */
/* Deliberately unsafe path resolution for the fault build (see
 * rest_paths.h). */
#include "rest_paths.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fs/resolve.h"

static bool beneath(const char *real, const char *real_root)
{
    size_t rl = strlen(real_root);
    return strncmp(real, real_root, rl) == 0 && (real[rl] == '\0' || real[rl] == '/');
}

/* toctou-realpath: what a check-then-use runtime does, and nothing more
 * (no pause): realpath() the path (or, for a name not there yet, its
 * parent), check the prefix, and hand back the resolved string for the
 * caller to open again by name. The race window is the few microseconds
 * between the check and that open. */
static int checked_real_path(const char *root, const char *path, char *out, size_t cap)
{
    char norm[FS_PATH_MAX + 1], joined[PATH_MAX * 2], real_root[PATH_MAX], real[PATH_MAX];
    int rc = fs_path_normalize(path, norm, sizeof(norm));
    if (rc < 0) return rc;
    snprintf(joined, sizeof joined, "%s/%s", root, norm);
    if (!realpath(root, real_root)) return fs_error_from_errno(errno);
    if (realpath(joined, real)) {
        if (!beneath(real, real_root)) return FS_ESCAPE;
        snprintf(out, cap, "%s", real);
        return 0;
    }
    int e = errno;
    char *slash = strrchr(joined, '/');
    if (e != ENOENT || !slash || slash == joined) return fs_error_from_errno(e);
    *slash = '\0';
    if (!realpath(joined, real)) {
        /* Parents still to be created: the string as it is. */
        *slash = '/';
        snprintf(out, cap, "%s", joined);
        return 0;
    }
    if (!beneath(real, real_root)) return FS_ESCAPE;
    snprintf(out, cap, "%s/%s", real, slash + 1);
    return 0;
}

/* The host path a faulty daemon would use, or FAULT_PATH_UNUSED. */
static int host_path(const struct daemon_state *st, const char *path, char *out, size_t cap)
{
    const char *root = st->cfg->root_dir;
    if ((fault_active(FAULT_ABSOLUTE_HOST) || fault_active(FAULT_ABSOLUTE_ROOT_HOST)) &&
        path[0] == '/') {
        snprintf(out, cap, "%s", path);
        return 0;
    }
    if (fault_active(FAULT_EMPTY_PATH_CWD) && path[0] == '\0') {
        snprintf(out, cap, ".");
        return 0;
    }
    if (fault_active(FAULT_RESOLVE_NAIVE)) {
        snprintf(out, cap, "%s/%s", root, path);
        return 0;
    }
    if (fault_active(FAULT_TOCTOU_REALPATH)) return checked_real_path(root, path, out, cap);
    if (fault_active(FAULT_SYMLINK_FOLLOW_OUT) || fault_active(FAULT_TOCTOU)) {
        char norm[FS_PATH_MAX + 1];
        int rc = fs_path_normalize(path, norm, sizeof(norm));
        if (rc < 0) return rc;
        snprintf(out, cap, "%s/%s", root, norm);
        if (fault_active(FAULT_TOCTOU)) {
            /* Check by string, then use by path: the gap is the bug. */
            char real_root[PATH_MAX], real[PATH_MAX];
            if (realpath(root, real_root) && realpath(out, real)) {
                size_t rl = strlen(real_root);
                if (strncmp(real, real_root, rl) != 0 || (real[rl] && real[rl] != '/'))
                    return FS_ESCAPE;
            }
            usleep(20000);
        }
        return 0;
    }
    return FAULT_PATH_UNUSED;
}

int fault_open_path(const struct daemon_state *st, const char *path, int flags)
{
    char hp[PATH_MAX * 2];
    int rc = host_path(st, path, hp, sizeof(hp));
    if (rc != 0) return rc;
    int fd = open(hp, flags | O_CLOEXEC);
    return fd >= 0 ? fd : fs_error_from_errno(errno);
}

int fault_open_parent(const struct daemon_state *st, const char *path, int create, char *name,
                      size_t cap)
{
    char hp[PATH_MAX * 2];
    int rc = host_path(st, path, hp, sizeof(hp));
    if (rc != 0) return rc;
    size_t n = strlen(hp);
    while (n > 1 && hp[n - 1] == '/')
        hp[--n] = '\0';
    char *slash = strrchr(hp, '/');
    if (!slash || strlen(slash + 1) + 1 > cap || !slash[1]) return FS_INVALID;
    strcpy(name, slash + 1);
    *slash = '\0';
    const char *dir = hp[0] ? hp : "/";
    if (create) {
        for (char *p = hp + 1; *p; p++) {
            if (*p != '/') continue;
            *p = '\0';
            mkdir(hp, 0755);
            *p = '/';
        }
        mkdir(dir, 0755);
    }
    int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : fs_error_from_errno(errno);
}
