/* SPDX-License-Identifier: Apache-2.0 */
/* Private mount namespace for a launched runtime (confine.h). */
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_util.h"

static int fail(char *err, size_t err_len, const char *what, const char *path)
{
    snprintf(err, err_len, "--confine-runtime: %s %s: %s%s", what, path ? path : "",
             strerror(errno),
             errno == EPERM ? " (a private mount namespace needs root or CAP_SYS_ADMIN)" : "");
    return -1;
}

static int set_readonly(const char *path, unsigned flags, int on)
{
    struct mount_attr attr = {0};
    if (on)
        attr.attr_set = MOUNT_ATTR_RDONLY;
    else
        attr.attr_clr = MOUNT_ATTR_RDONLY;
    return mount_setattr(AT_FDCWD, path, flags, &attr, sizeof attr);
}

/* The directory of the runtime's program when the private /tmp would hide
 * it (a build tree under /tmp): copied into dir, or "" when the program
 * stays visible anyway or is found through PATH. (A program under /dev/shm
 * stays hidden: recreating its directory there would write to the host's
 * /dev/shm, which is made private only later.) */
static void hidden_program_dir(const char *program, const char *runtime_dir, char *dir, size_t len)
{
    dir[0] = '\0';
    char real[4096];
    if (!program || !strchr(program, '/') || !realpath(program, real)) return;
    char *slash = strrchr(real, '/');
    if (!slash || slash == real) return;
    *slash = '\0';
    int hidden = strncmp(real, "/tmp/", 5) == 0;
    /* An ancestor of the runtime's directory would bring the host's files
     * around it back into view. */
    size_t n = strlen(real);
    int encloses =
        strncmp(runtime_dir, real, n) == 0 && (runtime_dir[n] == '/' || runtime_dir[n] == '\0');
    if (hidden && !encloses && n < len) memcpy(dir, real, n + 1);
}

/* Mounts the detached tree at path, recreated in the new /tmp. */
static int attach(int tree, const char *path, char *err, size_t err_len)
{
    if (fs_mkdir_p(path, 0755) != 0) {
        close(tree);
        return fail(err, err_len, "recreating", path);
    }
    int rc = move_mount(tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH);
    close(tree);
    return rc == 0 ? 0 : fail(err, err_len, "attaching", path);
}

int confine_enter(const char *runtime_dir, const char *program, char *err, size_t err_len)
{
    char program_dir[4096];
    hidden_program_dir(program, runtime_dir, program_dir, sizeof program_dir);
    if (unshare(CLONE_NEWNS) != 0) return fail(err, err_len, "unshare(CLONE_NEWNS)", NULL);
    /* Nothing done here may propagate back to the host. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return fail(err, err_len, "making the mounts private", NULL);
    /* The program's own directory stays in view (read-only, as the host). */
    int program_tree = -1;
    if (program_dir[0]) {
        program_tree = open_tree(AT_FDCWD, program_dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
        if (program_tree < 0) return fail(err, err_len, "open_tree", program_dir);
    }
    /* The runtime's own directory, detached so that it survives the private
     * /tmp mounted over its parent. */
    int tree = open_tree(AT_FDCWD, runtime_dir, OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
    if (tree < 0) {
        if (program_tree >= 0) close(program_tree);
        return fail(err, err_len, "open_tree", runtime_dir);
    }
    if (mount("sbxc-private-tmp", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
        close(tree);
        if (program_tree >= 0) close(program_tree);
        return fail(err, err_len, "mounting a private /tmp", NULL);
    }
    if (program_tree >= 0 && attach(program_tree, program_dir, err, err_len) != 0) {
        close(tree);
        return -1;
    }
    if (attach(tree, runtime_dir, err, err_len) != 0) return -1;
    /* Shared memory of its own: the host's /dev/shm stays out of reach. */
    if (mount("sbxc-private-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
        return fail(err, err_len, "mounting a private", "/dev/shm");
    /* Every file system read-only, then the few the runtime may write
     * (device nodes stay usable on a read-only /dev: only its directory
     * entries are protected). */
    if (set_readonly("/", AT_RECURSIVE, 1) != 0)
        return fail(err, err_len, "making the host read-only", "/");
    if (set_readonly("/tmp", 0, 0) != 0) return fail(err, err_len, "making writable", "/tmp");
    if (set_readonly(runtime_dir, AT_RECURSIVE, 0) != 0)
        return fail(err, err_len, "making writable", runtime_dir);
    if (set_readonly("/dev/shm", 0, 0) != 0)
        return fail(err, err_len, "making writable", "/dev/shm");
    /* New pseudo-terminals (PTY cases); where /dev/pts is no mount of its
     * own there is nothing to do. */
    set_readonly("/dev/pts", 0, 0);
    return 0;
}
