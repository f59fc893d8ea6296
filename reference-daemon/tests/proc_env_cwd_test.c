/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the environment merge and of cwd resolution beneath the
 * root. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fs/resolve.h"
#include "process/cwd.h"
#include "process/env.h"

static const char *env_get(char **env, const char *name)
{
    size_t n = strlen(name);
    const char *found = NULL;
    int count = 0;
    for (; *env; env++)
        if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') {
            found = *env + n + 1;
            count++;
        }
    assert_true(count <= 1); /* never two entries for one name */
    return found;
}

static void test_env_request_wins(void **state)
{
    (void)state;
    char *base[] = {"PATH=/bin", "HOME=/root", "SBX_X=daemon", NULL};
    struct env_var vars[] = {{"SBX_X", "request"}, {"NEW", "v"}, {"EMPTY", ""}};
    char **env = env_build(base, vars, 3);
    assert_non_null(env);
    assert_string_equal(env_get(env, "PATH"), "/bin");
    assert_string_equal(env_get(env, "HOME"), "/root");
    assert_string_equal(env_get(env, "SBX_X"), "request");
    assert_string_equal(env_get(env, "NEW"), "v");
    assert_string_equal(env_get(env, "EMPTY"), "");
    free(env);
}

static void test_env_last_duplicate_wins(void **state)
{
    (void)state;
    char *base[] = {"A=0", NULL};
    struct env_var vars[] = {{"A", "1"}, {"B", "x"}, {"A", "2"}};
    char **env = env_build(base, vars, 3);
    assert_string_equal(env_get(env, "A"), "2");
    assert_string_equal(env_get(env, "B"), "x");
    free(env);
}

static void test_env_no_base(void **state)
{
    (void)state;
    struct env_var vars[] = {{"SBX_X", "request"}};
    char **env = env_build(NULL, vars, 1);
    assert_non_null(env);
    assert_string_equal(env_get(env, "SBX_X"), "request");
    assert_null(env[1]);
    free(env);
}

static void test_env_empty(void **state)
{
    (void)state;
    char *base[] = {NULL};
    char **env = env_build(base, NULL, 0);
    assert_non_null(env);
    assert_null(env[0]);
    free(env);
}

/* ---- cwd ---------------------------------------------------------------- */

struct fixture {
    char root[PATH_MAX];
    char outside[PATH_MAX];
    int root_fd;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    strcpy(f->root, "/tmp/sbx_cwd_root_XXXXXX");
    strcpy(f->outside, "/tmp/sbx_cwd_out_XXXXXX");
    if (!mkdtemp(f->root) || !mkdtemp(f->outside)) {
        free(f);
        return -1;
    }
    char p[PATH_MAX + 32];
    snprintf(p, sizeof(p), "%s/sub", f->root);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/sub/deeper", f->root);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/etc", f->root);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/file", f->root);
    close(open(p, O_CREAT | O_WRONLY, 0644));
    snprintf(p, sizeof(p), "%s/out", f->root);
    if (symlink(f->outside, p) != 0) {
        free(f);
        return -1;
    }
    snprintf(p, sizeof(p), "%s/in", f->root);
    if (symlink("sub/deeper", p) != 0) {
        free(f);
        return -1;
    }
    f->root_fd = open(f->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    *state = f;
    return f->root_fd >= 0 ? 0 : -1;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    char cmd[2 * PATH_MAX + 32];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", f->root, f->outside);
    if (system(cmd) != 0) return -1;
    close(f->root_fd);
    free(f);
    return 0;
}

/* Asserts fd is the directory root/rel and closes it. */
static void assert_is(struct fixture *f, int fd, const char *rel)
{
    assert_true(fd >= 0);
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/%s", f->root, rel);
    struct stat a, b;
    assert_int_equal(fstat(fd, &a), 0);
    assert_int_equal(stat(p, &b), 0);
    assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
    close(fd);
}

static void test_cwd_relative_and_empty(void **state)
{
    struct fixture *f = *state;
    assert_is(f, cwd_open(f->root_fd, f->root, NULL), "");
    assert_is(f, cwd_open(f->root_fd, f->root, ""), "");
    assert_is(f, cwd_open(f->root_fd, f->root, "."), "");
    assert_is(f, cwd_open(f->root_fd, f->root, "sub"), "sub");
    assert_is(f, cwd_open(f->root_fd, f->root, "sub/deeper/.."), "sub");
    assert_is(f, cwd_open(f->root_fd, f->root, "in"), "sub/deeper");
}

static void test_cwd_absolute(void **state)
{
    struct fixture *f = *state;
    char p[PATH_MAX + 32];
    assert_is(f, cwd_open(f->root_fd, f->root, "/"), "");
    assert_is(f, cwd_open(f->root_fd, f->root, "/etc"), "etc");
    assert_is(f, cwd_open(f->root_fd, f->root, f->root), "");
    snprintf(p, sizeof(p), "%s/sub/deeper", f->root);
    assert_is(f, cwd_open(f->root_fd, f->root, p), "sub/deeper");
    snprintf(p, sizeof(p), "%s/", f->root);
    assert_is(f, cwd_open(f->root_fd, f->root, p), "");
    /* Not a component-wise prefix: taken beneath the root as a whole. */
    snprintf(p, sizeof(p), "%sx", f->root);
    assert_int_equal(cwd_open(f->root_fd, f->root, p), FS_NOTFOUND);
}

static void test_cwd_escapes(void **state)
{
    struct fixture *f = *state;
    char p[PATH_MAX + 32];
    assert_int_equal(cwd_open(f->root_fd, f->root, ".."), FS_ESCAPE);
    assert_int_equal(cwd_open(f->root_fd, f->root, "sub/../.."), FS_ESCAPE);
    assert_int_equal(cwd_open(f->root_fd, f->root, "out"), FS_ESCAPE);
    assert_int_equal(cwd_open(f->root_fd, f->root, "/../"), FS_ESCAPE);
    snprintf(p, sizeof(p), "%s/../", f->root);
    assert_int_equal(cwd_open(f->root_fd, f->root, p), FS_ESCAPE);
}

static void test_cwd_errors(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(cwd_open(f->root_fd, f->root, "missing"), FS_NOTFOUND);
    assert_int_equal(cwd_open(f->root_fd, f->root, "/missing/x"), FS_NOTFOUND);
    assert_int_equal(cwd_open(f->root_fd, f->root, "file"), FS_NOTDIR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_request_wins),
        cmocka_unit_test(test_env_last_duplicate_wins),
        cmocka_unit_test(test_env_no_base),
        cmocka_unit_test(test_env_empty),
        cmocka_unit_test_setup_teardown(test_cwd_relative_and_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cwd_absolute, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cwd_escapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cwd_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
