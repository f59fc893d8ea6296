/* SPDX-License-Identifier: Apache-2.0 */
/* Confined path resolution beneath the sandbox root (see resolve.h).
 *
 * Every path is first normalised lexically: empty and "." components are
 * dropped and ".." cancels the previous component; a ".." that would climb
 * above the root is refused as an escape whether or not the components
 * exist. This string step only ever refuses; what the path then reaches is
 * decided by the kernel: openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * from the root's descriptor. Where openat2 is missing, or where it refuses
 * an absolute symlink (which may still point inside the root), a walk
 * resolves one component at a time with O_PATH|O_NOFOLLOW, expands symlinks
 * itself with readlinkat and keeps a stack of the directories it went
 * through, so ".." can never climb above the root's descriptor. */
#include "fs/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SYMLINKS 40
#define OPENAT2_RETRIES 8
#define WALK_MAX_DEPTH 4096

static atomic_int force_walk;
static atomic_int openat2_missing;
static _Thread_local int cached_only;

void fs_resolve_cached_only(int on)
{
    cached_only = on;
}

void fs_resolve_force_walk(int on)
{
    atomic_store(&force_walk, on ? 1 : 0);
}

const char *fs_resolve_strerror(int code)
{
    switch (code) {
    case FS_ESCAPE:
        return "path resolves outside the sandbox root";
    case FS_NOTFOUND:
        return "no such file or directory";
    case FS_NOTDIR:
        return "a path component is not a directory";
    case FS_LOOP:
        return "too many levels of symbolic links";
    case FS_INVALID:
        return "invalid path";
    case FS_IOERR:
        return "I/O error";
    case FS_WOULDBLOCK:
        return "not in the kernel's caches";
    default:
        return code >= 0 ? "success" : "unknown error";
    }
}

int fs_error_from_errno(int e)
{
    switch (e) {
    case ENOENT:
        return FS_NOTFOUND;
    case ENOTDIR:
        return FS_NOTDIR;
    case ELOOP:
        return FS_LOOP;
    case ENAMETOOLONG:
        return FS_INVALID;
    case EXDEV:
        return FS_ESCAPE;
    default:
        errno = e;
        return FS_IOERR;
    }
}

/* Lexical normalisation into out (cap >= strlen(path) + 1): components
 * joined by '/', no leading or trailing '/', "" for the root. Sets
 * *dir_required when the path ended in '/' (after a real component). */
static int normalize(const char *path, char *out, size_t cap, int *dir_required)
{
    size_t len = strlen(path);
    if (len > FS_PATH_MAX || len + 1 > cap) return FS_INVALID;
    size_t o = 0;
    *dir_required = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p) break;
        const char *start = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - start);
        if (n > FS_NAME_MAX) return FS_INVALID;
        *dir_required = (*p == '/');
        if (n == 1 && start[0] == '.') continue;
        if (n == 2 && start[0] == '.' && start[1] == '.') {
            if (o == 0) return FS_ESCAPE;
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0) o--; /* drop the separator too */
            continue;
        }
        if (o > 0) out[o++] = '/';
        memcpy(out + o, start, n);
        o += n;
    }
    out[o] = '\0';
    if (o == 0) *dir_required = 0;
    return 0;
}

int fs_path_normalize(const char *path, char *out, size_t cap)
{
    int dir_required;
    return normalize(path, out, cap, &dir_required);
}

static long sys_openat2(int dirfd, const char *path, int flags, mode_t mode, bool cached)
{
    struct open_how how;
    memset(&how, 0, sizeof(how));
    how.flags = (unsigned long long)(flags | O_CLOEXEC);
    how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | (cached ? RESOLVE_CACHED : 0);
    return syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* The cached-only lookup: one openat2 that fails with EAGAIN rather than
 * wait. Every answer it cannot give for sure (EAGAIN, a kernel without
 * RESOLVE_CACHED or openat2, an absolute symlink that needs the walk) is
 * FS_WOULDBLOCK. */
static int open_cached(int root_fd, const char *rel, int flags, int dir_required)
{
    if (atomic_load(&force_walk) || atomic_load(&openat2_missing)) return FS_WOULDBLOCK;
    long fd =
        sys_openat2(root_fd, *rel ? rel : ".", flags | (dir_required ? O_DIRECTORY : 0), 0, true);
    if (fd >= 0) return (int)fd;
    switch (errno) {
    case EAGAIN:
    case EINTR:
    case EINVAL:
    case ENOSYS:
    case EXDEV:
        return FS_WOULDBLOCK;
    default:
        return fs_error_from_errno(errno);
    }
}

/* The directory stack of the walk: stack[0] is the root (not owned). */
struct walk_stack {
    int *fd;
    size_t depth, cap;
};

static int stack_top(const struct walk_stack *s)
{
    return s->fd[s->depth];
}

static int stack_push(struct walk_stack *s, int fd)
{
    if (s->depth + 1 >= WALK_MAX_DEPTH) {
        close(fd);
        return FS_INVALID;
    }
    if (s->depth + 1 >= s->cap) {
        size_t ncap = s->cap * 2;
        int *n = realloc(s->fd, ncap * sizeof(int));
        if (!n) {
            close(fd);
            errno = ENOMEM;
            return FS_IOERR;
        }
        s->fd = n;
        s->cap = ncap;
    }
    s->fd[++s->depth] = fd;
    return 0;
}

static void stack_pop_to(struct walk_stack *s, size_t depth)
{
    while (s->depth > depth)
        close(s->fd[s->depth--]);
}

/* The root's absolute path as the kernel names it, for absolute symlink
 * targets; NULL when it cannot be known (then such links count as escapes). */
static char *root_abspath(int root_fd)
{
    char proc[64];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", root_fd);
    char *buf = malloc(FS_PATH_MAX + 2);
    if (!buf) return NULL;
    ssize_t n = readlink(proc, buf, FS_PATH_MAX + 1);
    if (n <= 0 || n > FS_PATH_MAX || buf[0] != '/') {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* Replaces the remaining path with target + "/" + rest. For an absolute
 * target inside the root, the remainder after the root's path is used and
 * *to_root is set. Returns 0 or an fs_resolve_error. */
static int splice_link(int root_fd, char **rootpath, const char *target, const char *rest,
                       char **buf, int *to_root)
{
    *to_root = 0;
    if (target[0] == '/') {
        if (!*rootpath) *rootpath = root_abspath(root_fd);
        if (!*rootpath) return FS_ESCAPE;
        size_t rl = strlen(*rootpath);
        if (strcmp(*rootpath, "/") == 0) {
            target += 1;
        } else if (strncmp(target, *rootpath, rl) == 0 &&
                   (target[rl] == '\0' || target[rl] == '/')) {
            target += rl;
        } else {
            return FS_ESCAPE;
        }
        *to_root = 1;
    }
    size_t tl = strlen(target), restl = strlen(rest);
    if (tl + restl + 2 > 2 * (FS_PATH_MAX + 1)) return FS_INVALID;
    char *n = malloc(tl + restl + 2);
    if (!n) {
        errno = ENOMEM;
        return FS_IOERR;
    }
    char *e = stpcpy(n, target);
    *e++ = '/';
    memcpy(e, rest, restl + 1);
    free(*buf);
    *buf = n;
    return 0;
}

static int read_link(int dirfd, const char *name, char *out, size_t cap)
{
    ssize_t n = readlinkat(dirfd, name, out, cap);
    if (n < 0) return fs_error_from_errno(errno);
    if ((size_t)n >= cap) return FS_INVALID;
    out[n] = '\0';
    if (n == 0) return FS_NOTFOUND;
    return 0;
}

/* The fallback resolver: one component at a time, never letting the kernel
 * follow a symlink. `rel` is normalised. */
static int walk_open(int root_fd, const char *rel, int flags, mode_t mode, int dir_required)
{
    struct walk_stack st = {malloc(16 * sizeof(int)), 0, 16};
    char *buf = strdup(rel);
    char *target = malloc(FS_PATH_MAX + 2);
    char *rootpath = NULL;
    int result = FS_IOERR;
    int links = 0;
    if (!st.fd || !buf || !target) {
        errno = ENOMEM;
        goto out;
    }
    st.fd[0] = root_fd;
    const char *p = buf;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p) {
            /* Ended on a directory of the stack (the root, or after ".."). */
            int fd = openat(stack_top(&st), ".", (flags & ~O_CREAT) | O_CLOEXEC, mode);
            result = fd >= 0 ? fd : fs_error_from_errno(errno);
            goto out;
        }
        const char *start = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - start);
        char name[FS_NAME_MAX + 1];
        if (n > FS_NAME_MAX) {
            result = FS_INVALID;
            goto out;
        }
        memcpy(name, start, n);
        name[n] = '\0';
        const char *q = p;
        while (*q == '/')
            q++;
        int last = (*q == '\0');

        if (strcmp(name, ".") == 0) continue;
        if (strcmp(name, "..") == 0) {
            if (st.depth == 0) {
                result = FS_ESCAPE;
                goto out;
            }
            stack_pop_to(&st, st.depth - 1);
            continue;
        }

        int is_link = 0;
        if (last) {
            struct stat sb;
            int probe = openat(stack_top(&st), name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            if (probe >= 0) {
                int st_ok = fstat(probe, &sb) == 0;
                close(probe);
                if (st_ok && S_ISLNK(sb.st_mode) && !(flags & O_NOFOLLOW)) is_link = 1;
            } else if (!(errno == ENOENT && (flags & O_CREAT))) {
                result = fs_error_from_errno(errno);
                goto out;
            }
            if (!is_link) {
                int f = flags | O_NOFOLLOW | O_CLOEXEC | (dir_required ? O_DIRECTORY : 0);
                int fd = openat(stack_top(&st), name, f, mode);
                if (fd >= 0) {
                    /* With O_PATH a link swapped in meanwhile opens as itself. */
                    if ((flags & O_PATH) && !(flags & O_NOFOLLOW) && fstat(fd, &sb) == 0 &&
                        S_ISLNK(sb.st_mode)) {
                        close(fd); /* a link: followed below */
                    } else {
                        result = fd;
                        goto out;
                    }
                } else if (errno == ELOOP && !(flags & O_NOFOLLOW)) {
                    /* a link swapped in meanwhile: followed below */
                } else {
                    result = fs_error_from_errno(errno);
                    goto out;
                }
            }
        } else {
            int fd = openat(stack_top(&st), name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) {
                result = fs_error_from_errno(errno);
                goto out;
            }
            struct stat sb;
            if (fstat(fd, &sb) != 0) {
                result = fs_error_from_errno(errno);
                close(fd);
                goto out;
            }
            if (S_ISLNK(sb.st_mode)) {
                close(fd); /* followed below */
            } else if (S_ISDIR(sb.st_mode)) {
                int rc = stack_push(&st, fd);
                if (rc < 0) {
                    result = rc;
                    goto out;
                }
                continue;
            } else {
                close(fd);
                result = FS_NOTDIR;
                goto out;
            }
        }
        /* Only a symlink gets here: every other name continued or ended. */
        if (++links > MAX_SYMLINKS) {
            result = FS_LOOP;
            goto out;
        }
        int rc = read_link(stack_top(&st), name, target, FS_PATH_MAX + 2);
        if (rc < 0) {
            result = rc;
            goto out;
        }
        int to_root;
        rc = splice_link(root_fd, &rootpath, target, p, &buf, &to_root);
        if (rc < 0) {
            result = rc;
            goto out;
        }
        if (to_root) stack_pop_to(&st, 0);
        p = buf;
    }
out:
    if (st.fd) stack_pop_to(&st, 0);
    free(st.fd);
    free(buf);
    free(target);
    free(rootpath);
    return result;
}

/* Opens a normalised path beneath the root. */
static int open_norm(int root_fd, const char *rel, int flags, mode_t mode, int dir_required)
{
    if (cached_only) return open_cached(root_fd, rel, flags, dir_required);
    if (!atomic_load(&force_walk) && !atomic_load(&openat2_missing)) {
        const char *p = *rel ? rel : ".";
        int f = flags | (dir_required ? O_DIRECTORY : 0);
        for (int i = 0; i < OPENAT2_RETRIES; i++) {
            long fd = sys_openat2(root_fd, p, f, mode, false);
            if (fd >= 0) return (int)fd;
            if (errno == EAGAIN || errno == EINTR) continue;
            if (errno == ENOSYS) {
                atomic_store(&openat2_missing, 1);
                break;
            }
            /* EXDEV: the kernel refuses every absolute symlink; the walk
             * follows those that name a place inside the root. */
            if (errno != EXDEV) return fs_error_from_errno(errno);
            break;
        }
    }
    return walk_open(root_fd, rel, flags, mode, dir_required);
}

int fs_open_beneath(int root_fd, const char *path, int flags, mode_t mode)
{
    if (!path) return FS_INVALID;
    char norm[FS_PATH_MAX + 1];
    int dir_required;
    int rc = normalize(path, norm, sizeof(norm), &dir_required);
    if (rc < 0) return rc;
    return open_norm(root_fd, norm, flags, mode, dir_required);
}

int fs_open_parent(int root_fd, const char *path, int create_parents, char *name, size_t namecap)
{
    if (!path) return FS_INVALID;
    char norm[FS_PATH_MAX + 1];
    int dir_required;
    int rc = normalize(path, norm, sizeof(norm), &dir_required);
    if (rc < 0) return rc;
    if (!norm[0]) return FS_INVALID; /* the root has no parent */
    char *slash = strrchr(norm, '/');
    const char *last = slash ? slash + 1 : norm;
    if (strlen(last) + 1 > namecap) return FS_INVALID;
    memcpy(name, last, strlen(last) + 1);
    if (slash)
        *slash = '\0';
    else
        norm[0] = '\0';

    int fd = open_norm(root_fd, norm, O_PATH | O_DIRECTORY, 0, 0);
    if (fd != FS_NOTFOUND || !create_parents) return fd;

    /* Create what is missing, one level at a time; each level is re-resolved
     * from the root, so a symlink anywhere is judged by the kernel again and
     * mkdirat never follows one at the name it creates. */
    int prev = open_norm(root_fd, "", O_PATH | O_DIRECTORY, 0, 0);
    if (prev < 0) return prev;
    size_t len = strlen(norm);
    size_t pos = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && norm[end] != '/')
            end++;
        char saved = norm[end];
        norm[end] = '\0';
        int next = open_norm(root_fd, norm, O_PATH | O_DIRECTORY, 0, 0);
        if (next == FS_NOTFOUND) {
            if (mkdirat(prev, norm + pos, 0755) != 0 && errno != EEXIST) {
                next = fs_error_from_errno(errno);
            } else {
                next = open_norm(root_fd, norm, O_PATH | O_DIRECTORY, 0, 0);
            }
        }
        norm[end] = saved;
        close(prev);
        if (next < 0) return next;
        prev = next;
        pos = end + 1;
    }
    return prev;
}
