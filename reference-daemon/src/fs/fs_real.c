/* SPDX-License-Identifier: Apache-2.0 */
/* fs_real: the daemon's own fs/ operations (see fs_behaviour.h). */
#include "fs/fs_behaviour.h"

const struct fs_behaviour fs_real = {
    .list_dir = fs_list_dir_real,
    .describe_link = fs_describe_link_real,
    .create_file = fs_create_file_real,
    .commit = fs_commit_real,
    .remove_entry = fs_remove_entry_real,
    .empty_dir = fs_empty_dir_real,
};
