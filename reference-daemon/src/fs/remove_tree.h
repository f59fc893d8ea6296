/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FS_REMOVE_TREE_H
#define SBX_FS_REMOVE_TREE_H
/* Removal beneath the root (F10, F11, S5): an unlinkat walk that never
 * follows a symlink, so nothing a link points to is ever touched. */

#define FS_RM_NOTEMPTY (-1200) /* a directory is not empty and recursion was not asked */

/* Removes `name` in dir_fd: a file or symlink is unlinked, a directory is
 * removed (with everything below it when recursive is set). Returns 0, an
 * fs_resolve_error or FS_RM_NOTEMPTY; errno is kept for FS_IOERR. */
int fs_remove(int dir_fd, const char *name, int recursive);

/* Removes everything inside the directory dir_fd, keeping it. */
int fs_empty_dir(int dir_fd);

#endif
