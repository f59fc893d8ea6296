/* SPDX-License-Identifier: Apache-2.0 */
/* Request-path decoding and confined resolution (S1-S3, S8, F12): the raw
 * {path} of /v1/files/{path} goes through rest_decode_path and then
 * fs_open_beneath / fs_open_parent beneath a scratch root that holds
 * symlinks out of it (absolute, relative, through "..", looping).
 *
 * Oracle, whatever the bytes: the call fails, or the descriptor it returns
 * names an object beneath the root (its /proc/self/fd path starts with the
 * root's, and a directory reaches the root's inode by ".." without passing
 * the root's parent); a parent descriptor comes with a plain last name.
 *
 * Input: byte 0 chooses the strategy (openat2 or the component walk), the
 * call and its open flags; the rest is the raw request path. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/resolve.h"
#include "fuzz_check.h"
#include "rest/request_path.h"

static int root_fd = -1;
static char scratch[64];
static char root_path[4096];
static size_t root_len;
static struct stat root_st, above_st;

static void plant(const char *dir)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/outside.txt", dir);
    FILE *f = fopen(p, "w");
    FUZZ_CHECK(f != NULL, "create %s", p);
    fputs("outside\n", f);
    fclose(f);
}

static const char *const planted_links[] = {"up",       "up_file",    "slash",    "etc",
                                            "in_file",  "round_trip", "loop",     "d/e/back",
                                            "d/e/self", "abs_in",     "dangling", "magic"};

/* Only what make_root planted is removed: the scratch tree never grows, as
 * nothing here creates files. */
static void remove_root(void)
{
    if (root_fd < 0) return;
    for (size_t i = 0; i < sizeof planted_links / sizeof planted_links[0]; i++)
        unlinkat(root_fd, planted_links[i], 0);
    unlinkat(root_fd, "d/file.txt", 0);
    unlinkat(root_fd, "a b%.txt", 0);
    unlinkat(root_fd, "d/e", AT_REMOVEDIR);
    unlinkat(root_fd, "d", AT_REMOVEDIR);
    close(root_fd);
    root_fd = -1;
    char p[4200];
    rmdir(root_path);
    snprintf(p, sizeof p, "%s/outside.txt", scratch);
    unlink(p);
    rmdir(scratch);
}

static void make_root(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/sbx-fuzz-resolve-XXXXXX");
    char *tmpl = scratch;
    FUZZ_CHECK(mkdtemp(tmpl) != NULL, "mkdtemp");
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/root", tmpl);
    plant(tmpl);
    FUZZ_CHECK(mkdir(dir, 0700) == 0, "mkdir root");
    FUZZ_CHECK(realpath(dir, root_path) != NULL, "realpath");
    root_len = strlen(root_path);
    root_fd = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    FUZZ_CHECK(root_fd >= 0, "open root");
    FUZZ_CHECK(fstat(root_fd, &root_st) == 0, "fstat root");
    FUZZ_CHECK(stat(tmpl, &above_st) == 0, "stat above");

    FUZZ_CHECK(mkdirat(root_fd, "d", 0700) == 0, "mkdir d");
    FUZZ_CHECK(mkdirat(root_fd, "d/e", 0700) == 0, "mkdir d/e");
    int fd = openat(root_fd, "d/file.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0, "create d/file.txt");
    close(fd);
    fd = openat(root_fd, "a b%.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0, "create a b%%.txt");
    close(fd);
    char abs_in[4200];
    snprintf(abs_in, sizeof abs_in, "%s/d", root_path);
    const char *targets[] = {"..",         "../outside.txt", "/",       "/etc/passwd",
                             "d/file.txt", "../root/d",      "loop",    "../../..",
                             "../e",       abs_in,           "missing", "/proc/self/root"};
    for (size_t i = 0; i < sizeof planted_links / sizeof planted_links[0]; i++)
        FUZZ_CHECK(symlinkat(targets[i], root_fd, planted_links[i]) == 0, "symlink %s",
                   planted_links[i]);
    atexit(remove_root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    make_root();
    return 0;
}

/* A directory descriptor: climb ".." until the root's inode, never meeting
 * the directory above the root. */
static void check_dir_beneath(int fd)
{
    int cur = dup(fd);
    FUZZ_CHECK(cur >= 0, "dup");
    for (int depth = 0; depth <= FS_PATH_MAX; depth++) {
        struct stat st;
        FUZZ_CHECK(fstat(cur, &st) == 0, "fstat");
        if (st.st_dev == root_st.st_dev && st.st_ino == root_st.st_ino) {
            close(cur);
            return;
        }
        FUZZ_CHECK(!(st.st_dev == above_st.st_dev && st.st_ino == above_st.st_ino),
                   "a directory above the root was opened");
        FUZZ_CHECK(st.st_ino != 0 && depth < FS_PATH_MAX, "no way up to the root");
        int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        close(cur);
        FUZZ_CHECK(up >= 0, "open ..");
        cur = up;
    }
    FUZZ_CHECK(false, "the root was not reached");
}

static void check_beneath(int fd, const char *what)
{
    char link[64], where[4200];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, where, sizeof where - 1);
    FUZZ_CHECK(n > 0, "readlink %s", link);
    where[n] = '\0';
    FUZZ_CHECK(strncmp(where, root_path, root_len) == 0 &&
                   (where[root_len] == '\0' || where[root_len] == '/'),
               "%s opened %s, outside the root %s", what, where, root_path);
    struct stat st;
    FUZZ_CHECK(fstat(fd, &st) == 0, "fstat");
    if (S_ISDIR(st.st_mode)) check_dir_beneath(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 3 * (FS_PATH_MAX + 2)) return 0;
    if (root_fd < 0) make_root();
    uint8_t mode = data[0];
    char *raw = malloc(size);
    if (!raw) return 0;
    memcpy(raw, data + 1, size - 1);
    raw[size - 1] = '\0'; /* a request target never holds a raw NUL */

    char *path = NULL;
    const char *why = NULL;
    int status = rest_decode_path(raw, &path, &why);
    free(raw);
    if (status != 0) {
        FUZZ_CHECK(path == NULL && why != NULL, "a refused path needs a reason");
        return 0;
    }
    FUZZ_CHECK(path != NULL && strlen(path) <= FS_PATH_MAX, "decoded path");

    char norm[FS_PATH_MAX + 1];
    if (fs_path_normalize(path, norm, sizeof norm) == 0) {
        FUZZ_CHECK(norm[0] != '/', "normalised path is relative: %s", norm);
        for (const char *c = norm; *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : c + strlen(c))
            FUZZ_CHECK(strncmp(c, "../", 3) != 0 && strcmp(c, "..") != 0 &&
                           strncmp(c, "./", 2) != 0 && strcmp(c, ".") != 0 && *c != '/',
                       "normalised path keeps a dot segment or an empty one: %s", norm);
    }

    fs_resolve_force_walk(mode & 1);
    static const int flag_sets[] = {
        O_PATH,
        O_RDONLY | O_NONBLOCK,
        O_PATH | O_NOFOLLOW,
        O_PATH | O_DIRECTORY,
    };
    int flags = flag_sets[(mode >> 2) & 3] | O_CLOEXEC;
    if (mode & 2) {
        char name[FS_NAME_MAX + 1];
        int pfd = fs_open_parent(root_fd, path, 0, name, sizeof name);
        if (pfd >= 0) {
            FUZZ_CHECK(name[0] != '\0' && !strchr(name, '/') && strcmp(name, ".") != 0 &&
                           strcmp(name, "..") != 0,
                       "last component '%s'", name);
            check_beneath(pfd, "fs_open_parent");
            close(pfd);
        } else {
            FUZZ_CHECK(pfd <= FS_ESCAPE && pfd >= FS_IOERR, "error code %d", pfd);
        }
    } else {
        int fd = fs_open_beneath(root_fd, path, flags, 0);
        if (fd >= 0) {
            check_beneath(fd, "fs_open_beneath");
            close(fd);
        } else {
            FUZZ_CHECK(fd <= FS_ESCAPE && fd >= FS_IOERR, "error code %d", fd);
        }
    }
    fs_resolve_force_walk(0);
    free(path);
    return 0;
}
