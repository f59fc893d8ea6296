/* SPDX-License-Identifier: Apache-2.0 */
/* Temporary directories of killed runs (see leftover_runs.h). */
#include "leftover_runs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_util.h"

static const char *temp_parent(const char *parent)
{
    if (parent) return parent;
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

char *leftover_run_dir_create(const char *parent)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s%ld-", LEFTOVER_RUN_PREFIX, (long)getpid());
    return fs_make_temp_dir(temp_parent(parent), prefix);
}

/* The owner's pid of a name that is exactly sbxc-run-<pid>-XXXXXX, or 0. */
static long owner_pid(const char *name)
{
    size_t plen = strlen(LEFTOVER_RUN_PREFIX);
    if (strncmp(name, LEFTOVER_RUN_PREFIX, plen) != 0) return 0;
    const char *p = name + plen;
    long pid = 0;
    size_t digits = 0;
    for (; *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
        pid = pid * 10 + (*p - '0');
    if (digits == 0 || *p != '-' || pid <= 0) return 0;
    p++;
    if (strlen(p) != 6) return 0;
    for (const char *c = p; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            return 0;
    return pid;
}

static bool alive(long pid)
{
    return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

size_t leftover_runs_remove(const char *parent, int log_fd)
{
    parent = temp_parent(parent);
    DIR *d = opendir(parent);
    if (!d) return 0;
    size_t removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = owner_pid(e->d_name);
        if (!pid || pid == (long)getpid() || alive(pid)) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", parent, e->d_name) >= (int)sizeof path) continue;
        int rc = fs_remove_tree(path);
        if (rc == 0) removed++;
        if (log_fd >= 0)
            dprintf(log_fd, "%s the directory of a killed run (pid %ld gone): %s\n",
                    rc == 0 ? "removed" : "could not remove", pid, path);
    }
    closedir(d);
    return removed;
}
