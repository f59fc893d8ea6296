/* SPDX-License-Identifier: Apache-2.0 */
/* Finding the bundled sandboxd-ref (see bundled_runtime.h). */
#include "bundled_runtime.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *bundled_runtime_find(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = {"../reference-daemon/sandboxd-ref", "sandboxd-ref"};
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
                char cand[PATH_MAX + 64];
                snprintf(cand, sizeof cand, "%s/%s", self, rel[i]);
                if (access(cand, X_OK) == 0) return realpath(cand, NULL);
            }
        }
    }
    const char *path = getenv("PATH");
    char *copy = strdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *save = NULL, *found = NULL;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char cand[PATH_MAX];
        snprintf(cand, sizeof cand, "%s/sandboxd-ref", d);
        if (access(cand, X_OK) == 0) found = strdup(cand);
    }
    free(copy);
    return found;
}
