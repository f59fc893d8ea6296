/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FS_TEST_UTIL_H
#define SBX_FS_TEST_UTIL_H
/* Temp-directory helpers for the daemon's file-system tests: a sandbox root
 * with a sibling "outside" directory that no test may ever touch. */
#include <stddef.h>

struct fs_fixture {
    char base[256];    /* mkdtemp directory */
    char root[300];    /* base/root: the sandbox root */
    char outside[300]; /* base/outside: must never be read or changed */
    int root_fd;       /* O_PATH|O_DIRECTORY of root */
};

int fs_fixture_init(struct fs_fixture *fx);
void fs_fixture_free(struct fs_fixture *fx);

/* Writes a file below dir (relative path, parents must exist). */
void fx_write(const char *dir, const char *rel, const char *content);
/* Reads a whole small file into buf; returns length or -1. */
long fx_read(const char *dir, const char *rel, char *buf, size_t cap);
void fx_mkdir(const char *dir, const char *rel);
void fx_symlink(const char *target, const char *dir, const char *rel);
int fx_exists(const char *dir, const char *rel);
/* Number of entries in a directory (excluding . and ..), -1 on error. */
int fx_count(const char *dir, const char *rel);

/* Number of descriptors this process has open, -1 on error. */
int fx_open_fds(void);

#endif
