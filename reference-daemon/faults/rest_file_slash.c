/* SPDX-License-Identifier: Apache-2.0 */
/* variant-file-slash-ignored: `a.txt/` is the file a.txt for every method. */
#include "rest_file_slash.h"

#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "fs/resolve.h"

int variant_file_slash_open(const struct daemon_state *st, const char *path, int flags,
                            fault_path_opener open)
{
    int fd = open(st, path, flags);
    size_t len = strlen(path);
    if (fd != FS_NOTDIR || !fault_active(FAULT_VARIANT_FILE_SLASH_IGNORED) || len == 0 ||
        path[len - 1] != '/')
        return fd;
    char *bare = strdup(path);
    if (!bare) return fd;
    while (len > 0 && bare[len - 1] == '/')
        bare[--len] = '\0';
    /* Only the slash is overlooked: "x/y/" still needs x a directory. */
    int again = len > 0 ? open(st, bare, flags) : fd;
    free(bare);
    return again;
}

bool variant_file_slash_ignored(void)
{
    return fault_active(FAULT_VARIANT_FILE_SLASH_IGNORED);
}
