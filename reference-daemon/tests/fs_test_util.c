/* SPDX-License-Identifier: Apache-2.0 */
/* Temp-directory helpers for the daemon's file-system tests. */
#include "fs_test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void join(char *out, size_t cap, const char *dir, const char *rel)
{
    snprintf(out, cap, "%s/%s", dir, rel);
}

int fs_fixture_init(struct fs_fixture *fx)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(fx->base, sizeof(fx->base), "%s/sbx-fs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fx->base)) return -1;
    snprintf(fx->root, sizeof(fx->root), "%s/root", fx->base);
    snprintf(fx->outside, sizeof(fx->outside), "%s/outside", fx->base);
    if (mkdir(fx->root, 0755) || mkdir(fx->outside, 0755)) return -1;
    fx->root_fd = open(fx->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fx->root_fd >= 0 ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    chmod(path, 0700);
    remove(path); /* best effort: what cannot go stays, the walk goes on */
    return 0;
}

void fs_fixture_free(struct fs_fixture *fx)
{
    if (fx->root_fd >= 0) close(fx->root_fd);
    fx->root_fd = -1;
    nftw(fx->base, rm_one, 64, FTW_DEPTH | FTW_PHYS);
}

void fx_write(const char *dir, const char *rel, const char *content)
{
    char p[4096];
    join(p, sizeof(p), dir, rel);
    FILE *f = fopen(p, "wb");
    if (!f) return;
    fputs(content, f);
    fclose(f);
}

long fx_read(const char *dir, const char *rel, char *buf, size_t cap)
{
    char p[4096];
    join(p, sizeof(p), dir, rel);
    FILE *f = fopen(p, "rb");
    if (!f) return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return (long)n;
}

void fx_mkdir(const char *dir, const char *rel)
{
    char p[4096];
    join(p, sizeof(p), dir, rel);
    mkdir(p, 0755);
}

void fx_symlink(const char *target, const char *dir, const char *rel)
{
    char p[4096];
    join(p, sizeof(p), dir, rel);
    if (symlink(target, p) != 0) perror("symlink");
}

int fx_exists(const char *dir, const char *rel)
{
    char p[4096];
    struct stat sb;
    join(p, sizeof(p), dir, rel);
    return lstat(p, &sb) == 0;
}

int fx_count(const char *dir, const char *rel)
{
    char p[4096];
    join(p, sizeof(p), dir, rel);
    DIR *d = opendir(p);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

int fx_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}
