/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FS_ATOMIC_WRITE_H
#define SBX_FS_ATOMIC_WRITE_H
/* Atomic replacement of a file beneath the root (F1, F2, F6, C1-C3): the new
 * content goes to a temporary file in the target's directory, gets its exact
 * mode with fchmod, is fsync'ed and renamed over the target. Readers see the
 * old or the new file, never a mix. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fs/resolve.h"

/* Errors beyond enum fs_resolve_error. */
enum fs_write_error {
    FS_W_ISDIR = -1100,   /* the target is a directory */
    FS_W_SPECIAL = -1101, /* the target is a FIFO, socket or device */
};

struct fs_atomic_file {
    int dir_fd; /* O_PATH descriptor of the target's directory */
    int fd;     /* the temporary file (or the target itself in place mode) */
    char name[FS_NAME_MAX + 1];
    char tmp[64];
    /* The file the commit's rename replaced, still open when
     * holds_replaced is set (a zeroed struct holds nothing). A rename that
     * drops the last reference to a file frees its blocks before it
     * returns; held here, they are freed when it is closed
     * (fs_atomic_release), which a caller can do after its reply. */
    bool holds_replaced;
    int replaced_fd;
};

/* Resolves path (creating missing parents when create_parents is set) and
 * creates the temporary file. A symlink at the target that stays inside the
 * root is written through to its target. Returns 0 or an error code;
 * errno is kept for FS_IOERR. */
int fs_atomic_begin(struct fs_atomic_file *w, int root_fd, const char *path, int create_parents);

/* As fs_atomic_begin for an already opened directory (taken over) and a
 * plain name in it, without looking at what the name is now. */
int fs_atomic_begin_in(struct fs_atomic_file *w, int dir_fd, const char *name);

/* Appends len bytes. Returns 0, or -1 with errno set. */
int fs_atomic_write(struct fs_atomic_file *w, const void *buf, size_t len);

/* Sets the mode, syncs and renames over the target. Returns 0, or -1 with
 * errno set (the temporary file is removed). On success the file it
 * replaced may be held (holds_replaced). */
int fs_atomic_commit(struct fs_atomic_file *w, mode_t mode);

/* Removes the temporary file; safe to call after commit or twice. */
void fs_atomic_abort(struct fs_atomic_file *w);

/* Closes the replaced file held after a commit, if any (freeing its blocks
 * when it was the last reference); safe to call twice. */
void fs_atomic_release(struct fs_atomic_file *w);

/* Hands over the replaced file held after a commit: its descriptor, for
 * the caller to close, or -1. */
int fs_atomic_take_replaced(struct fs_atomic_file *w);

#endif
