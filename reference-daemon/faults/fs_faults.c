/* SPDX-License-Identifier: Apache-2.0 */
/* The fs/ faults and variants of sandboxd-ref-faulty: wrappers around the
 * real operations (fs/fs_behaviour.h), linked instead of
 * fs/fs_behaviour_real.c. Each breaks one clause while its fault is on and
 * otherwise calls fs_real. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fs/fs_behaviour.h"

#define STRAY_TEMP ".sbx-tmp-stray"

/* variant-list-casefold: sorted by name with letter case folded. */
static int by_name_casefold(const void *a, const void *b)
{
    const char *x = ((const struct fs_entry *)a)->name, *y = ((const struct fs_entry *)b)->name;
    int c = strcasecmp(x, y);
    return c ? c : strcmp(x, y);
}

static int list_dir(int root_fd, int dir_fd, const char *rel, struct fs_entry **out, size_t *count)
{
    int rc = fs_real.list_dir(root_fd, dir_fd, rel, out, count);
    if (rc != 0) return rc;
    struct fs_entry *v = *out;
    size_t n = *count;
    if (fault_active(FAULT_LIST_SKIP_DOTFILES)) { /* names starting with '.' left out */
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (v[i].name[0] == '.')
                free(v[i].name);
            else
                v[k++] = v[i];
        }
        n = *count = k;
    }
    if (fault_active(FAULT_LIST_TIME_CTIME)) { /* the status-change time instead */
        for (size_t i = 0; i < n; i++) {
            struct stat sb;
            if (fstatat(dir_fd, v[i].name, &sb, v[i].is_link ? 0 : AT_SYMLINK_NOFOLLOW) == 0)
                v[i].mtime = sb.st_ctim;
        }
    }
    if (fault_active(FAULT_VARIANT_LIST_CASEFOLD)) qsort(v, n, sizeof(*v), by_name_casefold);
    if (fault_active(FAULT_LIST_UNSORTED)) { /* reverse name order */
        for (size_t i = 0; i < n / 2; i++) {
            struct fs_entry t = v[i];
            v[i] = v[n - 1 - i];
            v[n - 1 - i] = t;
        }
    }
    return 0;
}

/* list-reveal-outside: a symlink is described by its target wherever it is. */
static int describe_link(int root_fd, int dir_fd, const char *rel, const char *name,
                         struct stat *sb)
{
    if (fault_active(FAULT_LIST_REVEAL_OUTSIDE)) return fstatat(dir_fd, name, sb, 0) == 0 ? 0 : -1;
    return fs_real.describe_link(root_fd, dir_fd, rel, name, sb);
}

/* put-in-place, put-no-truncate: the target itself is opened (truncated or
 * not), no temporary file; w->tmp stays empty, which commit() below reads
 * as "in place". */
static int create_file(struct fs_atomic_file *w)
{
    if (!fault_active(FAULT_PUT_IN_PLACE) && !fault_active(FAULT_PUT_NO_TRUNCATE))
        return fs_real.create_file(w);
    int trunc = fault_active(FAULT_PUT_NO_TRUNCATE) ? 0 : O_TRUNC;
    w->tmp[0] = '\0';
    w->fd = openat(w->dir_fd, w->name, O_WRONLY | O_CREAT | trunc | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (w->fd < 0) {
        int e = errno;
        close(w->dir_fd);
        w->dir_fd = -1;
        errno = e;
        return e == ENOENT ? FS_NOTFOUND : FS_IOERR;
    }
    return 0;
}

/* A file written in place (above, or rest's put-follow-dangling): mode and
 * sync, nothing to rename. */
static int commit_in_place(struct fs_atomic_file *w, mode_t mode)
{
    int rc = fchmod(w->fd, mode) != 0 || fsync(w->fd) != 0 ? -1 : 0;
    int e = errno;
    fs_atomic_abort(w);
    errno = e;
    return rc;
}

/* put-umask: the mode is masked by 022. put-leave-temp: a stray temporary
 * file is left beside the target. */
static int commit(struct fs_atomic_file *w, mode_t mode)
{
    if (fault_active(FAULT_PUT_UMASK)) mode &= (mode_t)~022;
    int dir = fault_active(FAULT_PUT_LEAVE_TEMP) && w->dir_fd >= 0 ? dup(w->dir_fd) : -1;
    int rc = w->tmp[0] ? fs_real.commit(w, mode) : commit_in_place(w, mode);
    int e = errno;
    if (dir >= 0) {
        if (rc == 0) {
            int fd = openat(dir, STRAY_TEMP, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
            if (fd >= 0) close(fd);
        }
        close(dir);
    }
    errno = e;
    return rc;
}

/* delete-recursive-follow: a recursive delete enters links to directories
 * and empties their targets, even outside the root. */
static int remove_entry(int dir_fd, const char *name, int recursive, int depth)
{
    struct stat sb;
    if (recursive && fault_active(FAULT_DELETE_RECURSIVE_FOLLOW) &&
        fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode)) {
        int lfd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lfd >= 0) {
            fs_behaviour->empty_dir(lfd, depth + 1);
            close(lfd);
        }
    }
    return fs_real.remove_entry(dir_fd, name, recursive, depth);
}

static const struct fs_behaviour fs_faulty = {
    .list_dir = list_dir,
    .describe_link = describe_link,
    .create_file = create_file,
    .commit = commit,
    .remove_entry = remove_entry,
    .empty_dir = fs_empty_dir_real,
};

const struct fs_behaviour *const fs_behaviour = &fs_faulty;
