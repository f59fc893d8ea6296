/* SPDX-License-Identifier: Apache-2.0 */
/* Private mount namespace for a launched runtime (confine.h). */
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
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

int confine_enter(const char *runtime_dir, char *err, size_t err_len)
{
    if (unshare(CLONE_NEWNS) != 0) return fail(err, err_len, "unshare(CLONE_NEWNS)", NULL);
    /* Nothing done here may propagate back to the host. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return fail(err, err_len, "making the mounts private", NULL);
    /* The runtime's own directory, detached so that it survives the private
     * /tmp mounted over its parent. */
    int tree = open_tree(AT_FDCWD, runtime_dir, OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
    if (tree < 0) return fail(err, err_len, "open_tree", runtime_dir);
    if (mount("sbxc-private-tmp", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
        close(tree);
        return fail(err, err_len, "mounting a private /tmp", NULL);
    }
    if (fs_mkdir_p(runtime_dir, 0755) != 0) {
        close(tree);
        return fail(err, err_len, "recreating", runtime_dir);
    }
    int rc = move_mount(tree, "", AT_FDCWD, runtime_dir, MOVE_MOUNT_F_EMPTY_PATH);
    close(tree);
    if (rc != 0) return fail(err, err_len, "attaching", runtime_dir);
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
