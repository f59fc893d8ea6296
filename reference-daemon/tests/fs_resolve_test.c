/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the confined resolver: every traversal shape, symlinks in and
 * out of the root, loops, dangling links, parent creation, and a thread that
 * swaps a directory for a symlink while another resolves. Every test runs
 * twice: with openat2 and with the forced component walk. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fs/resolve.h"
#include "fs_test_util.h"

struct ctx {
    struct fs_fixture fx;
    int walk;
};

static int setup(void **state, int walk)
{
    struct ctx *c = calloc(1, sizeof(*c));
    if (!c || fs_fixture_init(&c->fx) != 0) return -1;
    c->walk = walk;
    fs_resolve_force_walk(walk);
    const char *r = c->fx.root;
    fx_mkdir(r, "a");
    fx_mkdir(r, "a/b");
    fx_write(r, "a/file", "inside");
    fx_write(r, "a/b/deep", "deep");
    fx_write(c->fx.outside, "secret", "OUTSIDE");
    char abs[700];
    snprintf(abs, sizeof(abs), "%s/secret", c->fx.outside);
    fx_symlink(abs, r, "abs_out");
    fx_symlink("../outside/secret", r, "rel_out");
    fx_symlink("../outside", r, "dir_out");
    fx_symlink("chain2", r, "chain1");
    fx_symlink("a/../../outside/secret", r, "chain2");
    fx_symlink("a/file", r, "in_file");
    fx_symlink("a", r, "in_dir");
    fx_symlink("../file", r, "a/b/up_file");
    snprintf(abs, sizeof(abs), "%s/a/file", c->fx.root);
    fx_symlink(abs, r, "abs_in");
    fx_symlink("loop2", r, "loop1");
    fx_symlink("loop1", r, "loop2");
    fx_symlink("self", r, "self");
    fx_symlink("nothere", r, "dangling");
    fx_symlink("/nonexistent-sbx-target", r, "dangling_abs");
    *state = c;
    return 0;
}

static int setup_kernel(void **state)
{
    return setup(state, 0);
}
static int setup_walk(void **state)
{
    return setup(state, 1);
}

static int teardown(void **state)
{
    struct ctx *c = *state;
    fs_resolve_force_walk(0);
    fs_fixture_free(&c->fx);
    free(c);
    return 0;
}

/* Opens path O_RDONLY and returns its content in buf, or the error code. */
static int read_via(struct ctx *c, const char *path, char *buf, size_t cap)
{
    int fd = fs_open_beneath(c->fx.root_fd, path, O_RDONLY | O_NONBLOCK, 0);
    if (fd < 0) return fd;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = '\0';
    return 0;
}

static void test_plain_paths(void **state)
{
    struct ctx *c = *state;
    char buf[64];
    assert_int_equal(read_via(c, "a/file", buf, sizeof(buf)), 0);
    assert_string_equal(buf, "inside");
    assert_int_equal(read_via(c, "/a/file", buf, sizeof(buf)), 0);
    assert_int_equal(read_via(c, "//a//./b/deep", buf, sizeof(buf)), 0);
    assert_string_equal(buf, "deep");
    assert_int_equal(read_via(c, "a/b/../file", buf, sizeof(buf)), 0);
    assert_string_equal(buf, "inside");
    assert_int_equal(read_via(c, "missing/../a/file", buf, sizeof(buf)), 0);
    const char *roots[] = {"", "/", ".", "a/..", "./", "//"};
    for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
        int fd = fs_open_beneath(c->fx.root_fd, roots[i], O_RDONLY | O_DIRECTORY, 0);
        assert_true(fd >= 0);
        struct stat a, b;
        assert_int_equal(fstat(fd, &a), 0);
        assert_int_equal(stat(c->fx.root, &b), 0);
        assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
        close(fd);
    }
}

static void test_dotdot_escapes(void **state)
{
    struct ctx *c = *state;
    const char *bad[] = {"..",           "../outside/secret", "a/../../outside/secret",
                         "/../x",        "missing/../../x",   "a/b/../../..",
                         "a/./../../etc"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(fs_open_beneath(c->fx.root_fd, bad[i], O_RDONLY, 0), FS_ESCAPE);
}

static void test_symlinks_out(void **state)
{
    struct ctx *c = *state;
    const char *bad[] = {"abs_out", "rel_out", "dir_out/secret", "chain1", "dir_out"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = fs_open_beneath(c->fx.root_fd, bad[i], O_RDONLY, 0);
        assert_int_equal(rc, FS_ESCAPE);
        rc = fs_open_beneath(c->fx.root_fd, bad[i], O_PATH, 0);
        assert_int_equal(rc, FS_ESCAPE);
    }
    /* A dangling absolute link outside is an escape too, never a lookup. */
    assert_int_equal(fs_open_beneath(c->fx.root_fd, "dangling_abs", O_RDONLY, 0), FS_ESCAPE);
}

static void test_symlinks_in(void **state)
{
    struct ctx *c = *state;
    char buf[64];
    const char *good[] = {"in_file", "in_dir/file", "a/b/up_file", "abs_in", "in_dir/b/../file"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        assert_int_equal(read_via(c, good[i], buf, sizeof(buf)), 0);
        assert_string_equal(buf, "inside");
    }
    /* O_NOFOLLOW|O_PATH opens the link itself. */
    int fd = fs_open_beneath(c->fx.root_fd, "abs_out", O_PATH | O_NOFOLLOW, 0);
    assert_true(fd >= 0);
    struct stat sb;
    assert_int_equal(fstat(fd, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    close(fd);
}

static void test_loops_dangling_notdir(void **state)
{
    struct ctx *c = *state;
    int r = c->fx.root_fd;
    assert_int_equal(fs_open_beneath(r, "loop1", O_RDONLY, 0), FS_LOOP);
    assert_int_equal(fs_open_beneath(r, "self/x", O_RDONLY, 0), FS_LOOP);
    assert_int_equal(fs_open_beneath(r, "dangling", O_RDONLY, 0), FS_NOTFOUND);
    assert_int_equal(fs_open_beneath(r, "dangling/x", O_RDONLY, 0), FS_NOTFOUND);
    assert_int_equal(fs_open_beneath(r, "missing", O_RDONLY, 0), FS_NOTFOUND);
    assert_int_equal(fs_open_beneath(r, "a/file/x", O_RDONLY, 0), FS_NOTDIR);
    assert_int_equal(fs_open_beneath(r, "a/file/", O_RDONLY, 0), FS_NOTDIR);
}

static void test_limits(void **state)
{
    struct ctx *c = *state;
    char name[FS_NAME_MAX + 2];
    memset(name, 'n', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    assert_int_equal(fs_open_beneath(c->fx.root_fd, name, O_RDONLY, 0), FS_INVALID);
    char *path = malloc(FS_PATH_MAX + 10);
    assert_non_null(path);
    for (size_t i = 0; i < FS_PATH_MAX + 8; i += 2) {
        path[i] = 'a';
        path[i + 1] = '/';
    }
    path[FS_PATH_MAX + 8] = '\0';
    assert_int_equal(fs_open_beneath(c->fx.root_fd, path, O_RDONLY, 0), FS_INVALID);
    free(path);
    /* A backslash and overlong UTF-8 are bytes of a name, not separators. */
    assert_int_equal(fs_open_beneath(c->fx.root_fd, "a\\file", O_RDONLY, 0), FS_NOTFOUND);
    assert_int_equal(fs_open_beneath(c->fx.root_fd, "\xc0\xae\xc0\xae/x", O_RDONLY, 0),
                     FS_NOTFOUND);
}

static void test_create_beneath(void **state)
{
    struct ctx *c = *state;
    int fd = fs_open_beneath(c->fx.root_fd, "a/new", O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_true(fx_exists(c->fx.root, "a/new"));
    /* O_CREAT through a link that leaves the root never creates outside. */
    fx_symlink("../outside/created", c->fx.root, "to_create");
    fd = fs_open_beneath(c->fx.root_fd, "to_create", O_WRONLY | O_CREAT, 0600);
    assert_int_equal(fd, FS_ESCAPE);
    assert_false(fx_exists(c->fx.outside, "created"));
}

static void test_open_parent(void **state)
{
    struct ctx *c = *state;
    char name[FS_NAME_MAX + 1];
    int r = c->fx.root_fd;
    int fd = fs_open_parent(r, "x/y/z/leaf", 1, name, sizeof(name));
    assert_true(fd >= 0);
    assert_string_equal(name, "leaf");
    close(fd);
    assert_true(fx_exists(c->fx.root, "x/y/z"));
    assert_false(fx_exists(c->fx.root, "x/y/z/leaf"));

    fd = fs_open_parent(r, "top", 0, name, sizeof(name));
    assert_true(fd >= 0);
    assert_string_equal(name, "top");
    close(fd);
    fd = fs_open_parent(r, "in_dir/b/../new", 0, name, sizeof(name));
    assert_true(fd >= 0);
    close(fd);

    assert_int_equal(fs_open_parent(r, "/", 1, name, sizeof(name)), FS_INVALID);
    assert_int_equal(fs_open_parent(r, "a/..", 1, name, sizeof(name)), FS_INVALID);
    assert_int_equal(fs_open_parent(r, "..", 1, name, sizeof(name)), FS_ESCAPE);
    assert_int_equal(fs_open_parent(r, "nope/leaf", 0, name, sizeof(name)), FS_NOTFOUND);
    assert_false(fx_exists(c->fx.root, "nope"));
    assert_int_equal(fs_open_parent(r, "dir_out/new/leaf", 1, name, sizeof(name)), FS_ESCAPE);
    assert_false(fx_exists(c->fx.outside, "new"));
    assert_int_equal(fs_open_parent(r, "dangling/leaf", 1, name, sizeof(name)), FS_NOTFOUND);
    assert_false(fx_exists(c->fx.root, "nothere"));
    assert_int_equal(fs_open_parent(r, "a/file/leaf", 1, name, sizeof(name)), FS_NOTDIR);
    assert_int_equal(fs_open_parent(r, "loop1/leaf", 1, name, sizeof(name)), FS_LOOP);
    assert_int_equal(fx_count(c->fx.outside, ""), 1);
}

/* The race: a thread keeps exchanging root/sw (a directory holding f) with a
 * symlink to the outside directory while the resolver opens sw/f. */
struct racer {
    struct ctx *c;
    atomic_int stop;
};

static void *swap_thread(void *arg)
{
    struct racer *rc = arg;
    char a[700], b[700];
    snprintf(a, sizeof(a), "%s/sw", rc->c->fx.root);
    snprintf(b, sizeof(b), "%s/sw_link", rc->c->fx.root);
    for (int i = 0; i < 2000000 && !atomic_load(&rc->stop); i++)
        renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
    return NULL;
}

static void test_swap_race(void **state)
{
    struct ctx *c = *state;
    fx_mkdir(c->fx.root, "sw");
    fx_write(c->fx.root, "sw/secret", "inside");
    fx_symlink(c->fx.outside, c->fx.root, "sw_link");
    struct racer rc = {c, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, swap_thread, &rc), 0);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int opened = 0, refused = 0;
    char name[FS_NAME_MAX + 1];
    for (int i = 0; i < 200000; i++) {
        char buf[64];
        int r = read_via(c, "sw/secret", buf, sizeof(buf));
        if (r == 0) {
            assert_string_equal(buf, "inside");
            opened++;
        } else {
            refused++;
        }
        int pfd = fs_open_parent(c->fx.root_fd, "sw/made", 1, name, sizeof(name));
        if (pfd >= 0) {
            int fd = openat(pfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd >= 0) close(fd);
            close(pfd);
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= 2) break;
    }
    atomic_store(&rc.stop, 1);
    pthread_join(th, NULL);
    printf("race: %d opened inside, %d refused\n", opened, refused);
    assert_true(opened + refused > 0);
    assert_false(fx_exists(c->fx.outside, "made"));
    assert_int_equal(fx_count(c->fx.outside, ""), 1);
}

/* The cached-only lookup (event-loop threads): a path the kernel has
 * cached opens as it would otherwise, escapes and missing names answer as
 * they would, and whatever needs the walk (a link the kernel refuses, or the
 * forced walk itself) is left for the ordinary lookup with FS_WOULDBLOCK. */
static void test_cached_only(void **state)
{
    struct ctx *c = *state;
    char buf[64];
    assert_int_equal(read_via(c, "a/file", buf, sizeof(buf)), 0); /* now cached */
    fs_resolve_cached_only(1);
    int fd = fs_open_beneath(c->fx.root_fd, "a/file", O_RDONLY | O_NONBLOCK, 0);
    int escape = fs_open_beneath(c->fx.root_fd, "rel_out", O_RDONLY, 0);
    int abs_in = fs_open_beneath(c->fx.root_fd, "abs_in", O_RDONLY, 0);
    int dotdot = fs_open_beneath(c->fx.root_fd, "a/../../outside/secret", O_RDONLY, 0);
    fs_resolve_cached_only(0);
    if (c->walk) {
        assert_int_equal(fd, FS_WOULDBLOCK);
    } else {
        assert_true(fd >= 0);
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        assert_int_equal(n, 6);
        assert_memory_equal(buf, "inside", 6);
        close(fd);
    }
    /* The kernel's EXDEV does not tell an escape from an absolute link
     * that may stay inside: the ordinary lookup decides. */
    assert_int_equal(escape, FS_WOULDBLOCK);
    assert_int_equal(abs_in, FS_WOULDBLOCK);
    assert_int_equal(dotdot, FS_ESCAPE);
    /* Off again: the same thread resolves as before. */
    assert_int_equal(read_via(c, "abs_in", buf, sizeof(buf)), 0);
    assert_string_equal(buf, "inside");
}

#define BOTH(t)                                                                                    \
    cmocka_unit_test_setup_teardown(t, setup_kernel, teardown),                                    \
        cmocka_unit_test_setup_teardown(t, setup_walk, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_plain_paths),    BOTH(test_dotdot_escapes),        BOTH(test_symlinks_out),
        BOTH(test_symlinks_in),    BOTH(test_loops_dangling_notdir), BOTH(test_limits),
        BOTH(test_create_beneath), BOTH(test_open_parent),           BOTH(test_swap_race),
        BOTH(test_cached_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
