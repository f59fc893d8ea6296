/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FS_RESOLVE_H
#define SBX_FS_RESOLVE_H
/* Kernel-enforced path confinement beneath the sandbox root, shared by the
 * REST half (every file path) and the process half (every cwd).
 *
 * Paths are resolved with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * from the root's descriptor (fallback where openat2 is missing: an
 * O_PATH|O_NOFOLLOW walk, component by component, with readlinkat), never by
 * string checks, so a concurrent symlink swap cannot redirect the result.
 * Callers then use only *at() calls on the descriptors returned. */
#include <stddef.h>
#include <sys/types.h>

/* Result codes (negative), so callers can map them to REST/gRPC statuses. */
enum fs_resolve_error {
    FS_ESCAPE = -1000,     /* would leave the root: 403 / PERMISSION_DENIED */
    FS_NOTFOUND = -1001,   /* a component is missing or a link dangles: 404 / NOT_FOUND */
    FS_NOTDIR = -1002,     /* a non-directory used as a directory */
    FS_LOOP = -1003,       /* too many symlinks */
    FS_INVALID = -1004,    /* NUL, overlong name/path, empty component rules */
    FS_IOERR = -1005,      /* anything else (errno preserved in *err_out if given) */
    FS_WOULDBLOCK = -1006, /* a cached-only lookup needs more than the caches */
};

/* The enum fs_resolve_error for an open(2) or stat(2) errno (FS_IOERR, with
 * errno kept, for any it does not name). */
int fs_error_from_errno(int e);

/* Opens `path` beneath root_fd. `path` is relative to the root; leading '/'
 * characters are allowed and mean the root (so "/", "" and "." are the root).
 * `flags` are open(2) flags (O_PATH, O_DIRECTORY, O_RDONLY|O_NONBLOCK ...);
 * O_NOFOLLOW applies to the last component only. Returns a descriptor (>= 0)
 * or one of enum fs_resolve_error. */
int fs_open_beneath(int root_fd, const char *path, int flags, mode_t mode);

/* Opens the parent directory of `path` beneath root_fd (O_PATH|O_DIRECTORY)
 * and copies the last component into name (size namecap). With create_parents
 * set, missing directories are created with mkdirat beneath the root.
 * Returns the parent descriptor or an fs_resolve_error. The root itself has no
 * parent/name pair: returns FS_INVALID for it. */
int fs_open_parent(int root_fd, const char *path, int create_parents, char *name, size_t namecap);

/* Human-readable text for an fs_resolve_error. */
const char *fs_resolve_strerror(int code);

/* Limits applied before any lookup (FS_INVALID beyond them). */
#define FS_PATH_MAX 4095
#define FS_NAME_MAX 255

/* Lexical normalisation as done before every lookup: components joined by
 * '/', "." dropped, ".." applied; "" is the root. Returns 0, FS_ESCAPE (a ".."
 * above the root) or FS_INVALID (too long). out needs FS_PATH_MAX + 1. */
int fs_path_normalize(const char *path, char *out, size_t cap);

/* While on, this thread's lookups use only what the kernel has cached
 * (openat2 with RESOLVE_CACHED) and answer FS_WOULDBLOCK where they would
 * wait for the disk or need the walk; the same lookup with it off then gives
 * the answer. For event-loop threads, which must not wait. */
void fs_resolve_cached_only(int on);

/* Forces the component-by-component fallback even where openat2 exists, so
 * tests exercise both resolution strategies. Process-wide. */
void fs_resolve_force_walk(int on);

#endif
