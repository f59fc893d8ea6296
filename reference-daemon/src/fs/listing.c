/* SPDX-License-Identifier: Apache-2.0 */
/* Directory listing beneath the root (see listing.h). */
#include "fs/listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fs_behaviour.h"
#include "fs/resolve.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct fs_entry *)a)->name, ((const struct fs_entry *)b)->name);
}

/* Describes a symlink by what it reaches beneath the root; -1 to leave it
 * out (escaping, dangling, looping). */
int fs_describe_link_real(int root_fd, int dir_fd, const char *rel, const char *name,
                          struct stat *sb)
{
    (void)dir_fd; /* resolved again from the root, never through dir_fd */
    char path[FS_PATH_MAX + 2];
    int pl = snprintf(path, sizeof path, "%s%s%s", rel, *rel ? "/" : "", name);
    if (pl < 0 || (size_t)pl > FS_PATH_MAX) return -1;
    int fd = fs_open_beneath(root_fd, path, O_PATH, 0);
    if (fd < 0) return -1;
    int rc = fstat(fd, sb);
    close(fd);
    return rc == 0 ? 0 : -1;
}

int fs_list_dir_real(int root_fd, int dir_fd, const char *rel, struct fs_entry **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return FS_IOERR;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return FS_IOERR;
    }
    size_t n = 0, cap = 16;
    struct fs_entry *v = malloc(cap * sizeof(*v));
    int rc = v ? 0 : FS_IOERR;
    struct dirent *e;
    while (rc == 0 && (errno = 0, e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* removed meanwhile */
        int is_link = S_ISLNK(sb.st_mode);
        if (is_link && fs_behaviour->describe_link(root_fd, dirfd(d), rel, e->d_name, &sb) != 0)
            continue;
        if (n == cap) {
            struct fs_entry *nv = realloc(v, cap * 2 * sizeof(*v));
            if (!nv) {
                rc = FS_IOERR;
                break;
            }
            v = nv;
            cap *= 2;
        }
        char *name = strdup(e->d_name);
        if (!name) {
            rc = FS_IOERR;
            break;
        }
        v[n].name = name;
        v[n].size = (int64_t)sb.st_size;
        v[n].is_dir = S_ISDIR(sb.st_mode);
        v[n].is_link = is_link;
        v[n].mode = sb.st_mode & 07777;
        v[n].mtime = sb.st_mtim;
        n++;
    }
    closedir(d);
    if (rc != 0) {
        fs_entries_free(v, n);
        return rc;
    }
    qsort(v, n, sizeof(*v), by_name);
    *out = v;
    *count = n;
    return 0;
}

int fs_list_dir(int root_fd, int dir_fd, const char *rel, struct fs_entry **out, size_t *count)
{
    return fs_behaviour->list_dir(root_fd, dir_fd, rel, out, count);
}

void fs_entries_free(struct fs_entry *entries, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(entries[i].name);
    free(entries);
}
