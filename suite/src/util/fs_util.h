/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FS_UTIL_H
#define SBX_FS_UTIL_H
/* Local filesystem helpers for the runner's own temporary files. */
#include <stddef.h>
#include <stdio.h>

/* mkdtemp under parent (NULL = $TMPDIR or /tmp) with the given name prefix;
 * returns the malloc'd absolute path or NULL. */
char *fs_make_temp_dir(const char *parent, const char *prefix);

/* rm -rf, also through directories without permissions; 0 or -1. */
int fs_remove_tree(const char *path);

/* mkdir -p; 0 or -1. */
int fs_mkdir_p(const char *path, unsigned mode);

/* Reads up to max bytes of a file (NUL-terminated, malloc'd); NULL on error. */
char *fs_read_file(const char *path, size_t max, size_t *len);

/* Writes path whole or not at all: write(f, arg) fills a temporary file
 * beside it (a non-zero return or a write error abandons it), which then
 * replaces path. 0, or -1 with errno set. */
int fs_write_file_atomic(const char *path, int (*write)(FILE *f, const void *arg), const void *arg);

/* Copies a file (used for logs in the bundle); 0 or -1. */
int fs_copy_file(const char *from, const char *to);

#endif
