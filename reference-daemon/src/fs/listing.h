/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FS_LISTING_H
#define SBX_FS_LISTING_H
/* Directory listing beneath the root (F8, S6): entries with their size,
 * type, mode and modification time; symlinks are described by their target
 * when it is inside the root and left out when they escape or dangle. */
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct fs_entry {
    char *name;
    int64_t size;
    int is_dir;
    int is_link; /* the entry itself is a symlink (its target is described) */
    mode_t mode; /* permission bits of the target */
    struct timespec mtime;
};

/* Lists the directory open as dir_fd (O_RDONLY|O_DIRECTORY; not closed),
 * whose normalised path beneath the root is rel. Entries are sorted by name
 * (bytewise). Returns 0 or an fs_resolve_error. */
int fs_list_dir(int root_fd, int dir_fd, const char *rel, struct fs_entry **out, size_t *count);

void fs_entries_free(struct fs_entry *entries, size_t count);

#endif
