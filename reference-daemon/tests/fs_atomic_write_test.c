/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the atomic file replacement: the content and mode land in
 * one rename, nothing temporary is left, and the file a commit replaced is
 * held open until it is released, so that the rename does not free it. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fs/atomic_write.h"
#include "fs_test_util.h"

static int setup(void **state)
{
    struct fs_fixture *fx = calloc(1, sizeof(*fx));
    if (!fx || fs_fixture_init(fx) != 0) return -1;
    fx_mkdir(fx->root, "d");
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fs_fixture_free(*state);
    free(*state);
    return 0;
}

static void put(struct fs_fixture *fx, struct fs_atomic_file *w, const char *path, const char *s)
{
    assert_int_equal(fs_atomic_begin(w, fx->root_fd, path, 0), 0);
    assert_false(w->holds_replaced);
    assert_int_equal(fs_atomic_write(w, s, strlen(s)), 0);
    assert_int_equal(fs_atomic_commit(w, 0640), 0);
}

/* Over an existing file: the new content is there at once, and the old
 * file stays open (unlinked) until fs_atomic_release. */
static void test_replaced_file_held_until_release(void **state)
{
    struct fs_fixture *fx = *state;
    fx_write(fx->root, "d/f", "old content");
    struct stat before;
    assert_int_equal(fstatat(fx->root_fd, "d/f", &before, 0), 0);
    int fds = fx_open_fds();

    struct fs_atomic_file w;
    put(fx, &w, "d/f", "new");
    char buf[64];
    assert_int_equal(fx_read(fx->root, "d/f", buf, sizeof(buf)), 3);
    assert_string_equal(buf, "new");
    struct stat now;
    assert_int_equal(fstatat(fx->root_fd, "d/f", &now, 0), 0);
    assert_int_equal(now.st_mode & 07777, 0640);
    assert_int_equal(fx_count(fx->root, "d"), 1); /* no temporary file left */

    assert_true(w.holds_replaced && w.replaced_fd >= 0);
    struct stat held;
    assert_int_equal(fstat(w.replaced_fd, &held), 0);
    assert_true(held.st_ino == before.st_ino && held.st_dev == before.st_dev);
    assert_int_equal(held.st_nlink, 0); /* replaced, not freed */
    assert_int_equal(fx_open_fds(), fds + 1);

    fs_atomic_abort(&w); /* the temporary file's clean-up keeps it */
    assert_true(w.holds_replaced);
    fs_atomic_release(&w);
    assert_false(w.holds_replaced);
    assert_int_equal(fx_open_fds(), fds);
    fs_atomic_release(&w); /* twice is harmless */
    assert_int_equal(fx_open_fds(), fds);

    struct fs_atomic_file zeroed; /* as a request starts: holds nothing */
    memset(&zeroed, 0, sizeof(zeroed));
    assert_int_equal(fs_atomic_take_replaced(&zeroed), -1);
    fs_atomic_release(&zeroed);
    assert_int_equal(fx_open_fds(), fds);
}

/* A new name replaces nothing: nothing is held. */
static void test_new_file_holds_nothing(void **state)
{
    struct fs_fixture *fx = *state;
    int fds = fx_open_fds();
    struct fs_atomic_file w;
    put(fx, &w, "d/fresh", "content");
    assert_false(w.holds_replaced);
    assert_int_equal(fx_open_fds(), fds);
    char buf[64];
    assert_int_equal(fx_read(fx->root, "d/fresh", buf, sizeof(buf)), 7);
}

/* A commit that fails (its temporary file vanished) holds nothing either. */
static void test_failed_commit_holds_nothing(void **state)
{
    struct fs_fixture *fx = *state;
    fx_mkdir(fx->root, "gone");
    fx_write(fx->root, "gone/f", "old");
    int fds = fx_open_fds();
    struct fs_atomic_file w;
    assert_int_equal(fs_atomic_begin(&w, fx->root_fd, "gone/f", 0), 0);
    char dir[400];
    snprintf(dir, sizeof(dir), "%s/gone/%s", fx->root, w.tmp);
    assert_int_equal(unlink(dir), 0); /* the temporary file vanishes */
    assert_int_not_equal(fs_atomic_commit(&w, 0644), 0);
    assert_false(w.holds_replaced);
    assert_int_equal(fx_open_fds(), fds);
    char buf[64];
    assert_int_equal(fx_read(fx->root, "gone/f", buf, sizeof(buf)), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_replaced_file_held_until_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_file_holds_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_commit_holds_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
