/* SPDX-License-Identifier: Apache-2.0 */
/* Local filesystem helpers (the runner's temporary roots, logs, bundle). */
#include "fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fs_make_temp_dir(const char *parent, const char *prefix)
{
    if (!parent) {
        parent = getenv("TMPDIR");
        if (!parent || !*parent) parent = "/tmp";
    }
    char tmpl[PATH_MAX];
    int n = snprintf(tmpl, sizeof tmpl, "%s/%sXXXXXX", parent, prefix);
    if (n < 0 || (size_t)n >= sizeof tmpl || !mkdtemp(tmpl)) return NULL;
    char *abs = realpath(tmpl, NULL);
    return abs ? abs : strdup(tmpl);
}

/* Pre-order pass: make every directory traversable and writable, so that
 * trees left behind with restrictive modes (cases test mode bits) go away. */
static int open_up(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_D || type == FTW_DNR) chmod(path, (sb->st_mode & 07777) | 0700);
    return 0;
}

static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    /* Keep going on errors; fs_remove_tree checks the result at the end. */
    if (type == FTW_DP || type == FTW_D || type == FTW_DNR)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

int fs_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return unlink(path);
    nftw(path, open_up, 32, FTW_PHYS);
    nftw(path, remove_one, 32, FTW_PHYS | FTW_DEPTH);
    return lstat(path, &st) == 0 ? -1 : 0;
}

int fs_mkdir_p(const char *path, unsigned mode)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, mode) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, mode) == 0 || errno == EEXIST ? 0 : -1;
}

char *fs_read_file(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    char *buf = malloc(max + 1);
    size_t got = 0;
    while (buf && got < max) {
        ssize_t n = read(fd, buf + got, max - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf) return NULL;
    buf[got] = '\0';
    if (len) *len = got;
    return buf;
}

int fs_copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        close(in);
        return -1;
    }
    char buf[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) rc = -1;
        if (n <= 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                rc = -1;
                break;
            }
            off += w;
        }
        if (rc) break;
    }
    close(in);
    if (close(out) != 0) rc = -1;
    return rc;
}

int fs_write_file_atomic(const char *path, int (*write)(FILE *f, const void *arg), const void *arg)
{
    size_t l = strlen(path) + 24;
    char *tmp = malloc(l);
    if (!tmp) return -1;
    snprintf(tmp, l, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        free(tmp);
        errno = e;
        return -1;
    }
    int rc = write(f, arg);
    if (ferror(f)) rc = -1;
    if (fclose(f) != 0) rc = -1;
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    if (rc != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return rc;
}
