/* SPDX-License-Identifier: Apache-2.0 */
/* Atomic file replacement beneath the root (see atomic_write.h). */
#include "fs/atomic_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fs_behaviour.h"

#define TMP_PREFIX ".sbx-tmp-"

/* For a symlink at the target that resolves inside the root: the target's
 * path relative to the root, found through the kernel's name of the opened
 * file and then resolved beneath the root again like any request path. */
static int link_target_path(int root_fd, int target_fd, char *out, size_t cap)
{
    char proc[64], rootp[FS_PATH_MAX + 2], tgt[FS_PATH_MAX + 2];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", root_fd);
    ssize_t rn = readlink(proc, rootp, sizeof(rootp) - 1);
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", target_fd);
    ssize_t tn = readlink(proc, tgt, sizeof(tgt) - 1);
    if (rn <= 0 || tn <= 0 || rn >= (ssize_t)sizeof(rootp) - 1 || tn >= (ssize_t)sizeof(tgt) - 1)
        return FS_INVALID;
    rootp[rn] = '\0';
    tgt[tn] = '\0';
    size_t rl = strcmp(rootp, "/") == 0 ? 0 : (size_t)rn;
    if (strncmp(tgt, rootp, rl) != 0 || tgt[rl] != '/') return FS_ESCAPE;
    if (strlen(tgt + rl) + 1 > cap) return FS_INVALID;
    strcpy(out, tgt + rl);
    return 0;
}

static int classify_target(struct fs_atomic_file *w, int root_fd, const char *path)
{
    struct stat sb;
    if (fstatat(w->dir_fd, w->name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : FS_IOERR;
    if (S_ISREG(sb.st_mode)) return 0;
    if (S_ISDIR(sb.st_mode)) return FS_W_ISDIR;
    if (!S_ISLNK(sb.st_mode)) return FS_W_SPECIAL;
    int t = fs_open_beneath(root_fd, path, O_PATH, 0);
    if (t < 0) return t; /* escaping (403) or dangling (a write conflict) */
    int rc = fstat(t, &sb) == 0 ? 0 : FS_IOERR;
    if (rc == 0 && S_ISDIR(sb.st_mode))
        rc = FS_W_ISDIR;
    else if (rc == 0 && !S_ISREG(sb.st_mode))
        rc = FS_W_SPECIAL;
    char rel[FS_PATH_MAX + 1];
    if (rc == 0) rc = link_target_path(root_fd, t, rel, sizeof(rel));
    close(t);
    if (rc < 0) return rc;
    char name[FS_NAME_MAX + 1];
    int pfd = fs_open_parent(root_fd, rel, 0, name, sizeof(name));
    if (pfd < 0) return pfd;
    close(w->dir_fd);
    w->dir_fd = pfd;
    strcpy(w->name, name);
    return 0;
}

int fs_create_file_real(struct fs_atomic_file *w)
{
    for (int i = 0; i < 16; i++) {
        unsigned char rnd[8];
        if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) memset(rnd, i, sizeof(rnd));
        snprintf(w->tmp, sizeof(w->tmp), TMP_PREFIX "%02x%02x%02x%02x%02x%02x%02x%02x", rnd[0],
                 rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
        w->fd =
            openat(w->dir_fd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (w->fd >= 0 || errno != EEXIST) break;
    }
    if (w->fd < 0) {
        int e = errno;
        close(w->dir_fd);
        w->dir_fd = -1;
        w->tmp[0] = '\0';
        errno = e;
        return e == ENOENT ? FS_NOTFOUND : FS_IOERR;
    }
    return 0;
}

int fs_atomic_begin_in(struct fs_atomic_file *w, int dir_fd, const char *name)
{
    memset(w, 0, sizeof(*w));
    w->fd = -1;
    w->dir_fd = dir_fd;
    if (strlen(name) > FS_NAME_MAX) {
        close(dir_fd);
        w->dir_fd = -1;
        return FS_INVALID;
    }
    strcpy(w->name, name);
    return fs_behaviour->create_file(w);
}

int fs_atomic_begin(struct fs_atomic_file *w, int root_fd, const char *path, int create_parents)
{
    memset(w, 0, sizeof(*w));
    w->fd = -1;
    w->dir_fd = fs_open_parent(root_fd, path, create_parents, w->name, sizeof(w->name));
    if (w->dir_fd < 0) return w->dir_fd;
    int rc = classify_target(w, root_fd, path);
    if (rc < 0) {
        close(w->dir_fd);
        w->dir_fd = -1;
        return rc;
    }
    return fs_behaviour->create_file(w);
}

int fs_atomic_write(struct fs_atomic_file *w, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(w->fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int fs_commit_real(struct fs_atomic_file *w, mode_t mode)
{
    int rc = 0;
    if (fchmod(w->fd, mode) != 0 || fsync(w->fd) != 0) rc = -1;
    int e = errno;
    close(w->fd);
    w->fd = -1;
    /* Whatever is at the name now (absent, or replaced by someone else
     * meanwhile: then this one is just closed later). */
    if (rc == 0) {
        w->replaced_fd = openat(w->dir_fd, w->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        w->holds_replaced = w->replaced_fd >= 0;
    }
    if (rc == 0 && renameat(w->dir_fd, w->tmp, w->dir_fd, w->name) != 0) {
        rc = -1;
        e = errno;
        fs_atomic_release(w);
    }
    if (rc == 0) w->tmp[0] = '\0'; /* renamed: nothing left to remove */
    fs_atomic_abort(w);
    errno = e;
    return rc;
}

int fs_atomic_commit(struct fs_atomic_file *w, mode_t mode)
{
    return fs_behaviour->commit(w, mode);
}

void fs_atomic_abort(struct fs_atomic_file *w)
{
    if (w->fd >= 0) {
        close(w->fd);
        w->fd = -1;
    }
    if (w->dir_fd >= 0) {
        if (w->tmp[0]) unlinkat(w->dir_fd, w->tmp, 0);
        close(w->dir_fd);
        w->dir_fd = -1;
    }
    w->tmp[0] = '\0';
}

int fs_atomic_take_replaced(struct fs_atomic_file *w)
{
    int fd = w->holds_replaced ? w->replaced_fd : -1;
    w->holds_replaced = false;
    w->replaced_fd = -1;
    return fd;
}

void fs_atomic_release(struct fs_atomic_file *w)
{
    int fd = fs_atomic_take_replaced(w);
    if (fd >= 0) close(fd);
}
