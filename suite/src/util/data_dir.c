/* SPDX-License-Identifier: Apache-2.0 */
/* Locating the suite's run-time data: flag or environment, the installed
 * share directory relative to the executable, the source tree. */
#include "data_dir.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SBX_SOURCE_DIR
#define SBX_SOURCE_DIR "."
#endif

/* A file every data directory holds: a directory without it is not one. */
#define DATA_MARKER "openapi/sandboxd.yaml"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char chosen[PATH_MAX];
static char *explicit_dir;

void data_dir_set(const char *dir)
{
    pthread_mutex_lock(&lock);
    free(explicit_dir);
    explicit_dir = dir && *dir ? strdup(dir) : NULL;
    chosen[0] = '\0';
    pthread_mutex_unlock(&lock);
}

static int holds_data(const char *dir)
{
    char probe[PATH_MAX + sizeof DATA_MARKER + 1];
    snprintf(probe, sizeof probe, "%s/%s", dir, DATA_MARKER);
    return access(probe, R_OK) == 0;
}

/* ../share/sandboxd-conformance relative to /proc/self/exe, when it holds data. */
static int installed_dir(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 0;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return 0;
    *slash = '\0';
    char cand[PATH_MAX + 32];
    snprintf(cand, sizeof cand, "%s/../share/sandboxd-conformance", self);
    char real[PATH_MAX];
    if (!realpath(cand, real) || !holds_data(real)) return 0;
    snprintf(out, len, "%s", real);
    return 1;
}

const char *data_dir(void)
{
    pthread_mutex_lock(&lock);
    if (!chosen[0]) {
        const char *env = getenv("SBX_DATA_DIR");
        if (explicit_dir)
            snprintf(chosen, sizeof chosen, "%s", explicit_dir);
        else if (env && *env)
            snprintf(chosen, sizeof chosen, "%s", env);
        else if (!installed_dir(chosen, sizeof chosen))
            snprintf(chosen, sizeof chosen, "%s", SBX_SOURCE_DIR);
    }
    pthread_mutex_unlock(&lock);
    return chosen;
}

const char *data_dir_file(const char *relative, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", data_dir(), relative);
    return buf;
}
