/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FS_BEHAVIOUR_H
#define SBX_FS_BEHAVIOUR_H
/* The operations of fs/ that another build of the daemon may wrap. The
 * public functions of atomic_write.h, listing.h and remove_tree.h call
 * through fs_behaviour; fs_real holds the daemon's own operations.
 *
 * fs_behaviour is chosen at link time: the real daemon links
 * fs/fs_behaviour_real.c (fs_behaviour = &fs_real); sandboxd-ref-faulty
 * links reference-daemon/faults/fs_faults.c instead, whose wrappers break
 * one clause each when their fault is on and otherwise call fs_real. Both
 * are constant: nothing here changes while the daemon runs. */
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fs/atomic_write.h"
#include "fs/listing.h"

struct fs_behaviour {
    /* Lists a directory (fs_list_dir). */
    int (*list_dir)(int root_fd, int dir_fd, const char *rel, struct fs_entry **out, size_t *count);
    /* Describes a listed symlink `name` in dir_fd (directory rel beneath the
     * root) by what it reaches beneath the root: 0 with *sb, or -1 to leave
     * it out (escaping, dangling, looping). */
    int (*describe_link)(int root_fd, int dir_fd, const char *rel, const char *name,
                         struct stat *sb);
    /* Opens the file a write goes to: w->dir_fd and w->name are set; fills
     * w->fd (and w->tmp, the temporary file renamed over the target on
     * commit). On failure closes w->dir_fd and returns an error code. */
    int (*create_file)(struct fs_atomic_file *w);
    /* Sets the mode, syncs and renames over the target (fs_atomic_commit). */
    int (*commit)(struct fs_atomic_file *w, mode_t mode);
    /* Removes `name` in dir_fd, `depth` levels below the request's target. */
    int (*remove_entry)(int dir_fd, const char *name, int recursive, int depth);
    /* Removes everything inside dir_fd, `depth` levels below the target. */
    int (*empty_dir)(int dir_fd, int depth);
};

/* The daemon's own operations, in fs_real. */
int fs_list_dir_real(int root_fd, int dir_fd, const char *rel, struct fs_entry **out,
                     size_t *count);
int fs_describe_link_real(int root_fd, int dir_fd, const char *rel, const char *name,
                          struct stat *sb);
int fs_create_file_real(struct fs_atomic_file *w);
int fs_commit_real(struct fs_atomic_file *w, mode_t mode);
int fs_remove_entry_real(int dir_fd, const char *name, int recursive, int depth);
int fs_empty_dir_real(int dir_fd, int depth);

extern const struct fs_behaviour fs_real;
extern const struct fs_behaviour *const fs_behaviour;

#endif
