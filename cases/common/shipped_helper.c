/* SPDX-License-Identifier: Apache-2.0 */
/* Finding and uploading the suite's shipped helpers (see shipped_helper.h). */
#include "common/shipped_helper.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "case_api.h"
#include "common/conf_util.h"
#include "rest_client.h"

#define HELPER_MAX (4u << 20)

/* The helper's bytes, malloc'd; NULL with why when it is not found. */
static char *read_helper(const char *name, size_t *len, char *why, size_t whylen)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        snprintf(why, whylen, "cannot find the suite's own directory");
        return NULL;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return NULL;
    *slash = '\0';
    static const char *const places[] = {"", "/../libexec/sandboxd-conformance"};
    FILE *f = NULL;
    char path[PATH_MAX + 128];
    for (size_t i = 0; i < sizeof places / sizeof places[0] && !f; i++) {
        snprintf(path, sizeof path, "%s%s/%s", self, places[i], name);
        f = fopen(path, "rb");
    }
    if (!f) {
        snprintf(why, whylen, "%s not found beside %.150s", name, self);
        return NULL;
    }
    char *buf = conf_xmalloc(HELPER_MAX);
    *len = fread(buf, 1, HELPER_MAX, f);
    bool whole = feof(f) && *len > 0;
    fclose(f);
    if (!whole) {
        snprintf(why, whylen, "cannot read %.150s", path);
        free(buf);
        return NULL;
    }
    return buf;
}

int shipped_helper_upload(struct case_ctx *ctx, const char *name, char *uploaded,
                          size_t uploaded_len, char *why, size_t whylen)
{
    uploaded[0] = '\0';
    size_t len = 0;
    char *bin = read_helper(name, &len, why, whylen);
    if (!bin) return -1;
    char fresh[128];
    snprintf(fresh, sizeof fresh, "%.80s-%016llx", name, (unsigned long long)case_rand(ctx));
    char *rel = conf_xasprintf("%s/%s", case_dir(ctx), fresh);
    struct http_response resp = {0};
    int rc = rest_put_bytes(ctx, rel, bin, len, "0755", &resp);
    free(rel);
    free(bin);
    long status = resp.status;
    http_response_free(&resp);
    if (rc != 0 || status / 100 != 2) {
        snprintf(why, whylen, "PUT of %s answered %ld", name, status);
        return -1;
    }
    snprintf(uploaded, uploaded_len, "%s", fresh);
    return 0;
}

void shipped_helper_remove(struct case_ctx *ctx, const char *uploaded)
{
    if (!uploaded || !uploaded[0]) return;
    char *rm = conf_xasprintf("rm -f ./%s", uploaded);
    char why[200];
    conf_sh(ctx, rm, NULL, why, sizeof why);
    free(rm);
}

bool shipped_helper_busy_retry(unsigned attempt, const char *failure)
{
    if (attempt >= 4 || !failure || !strcasestr(failure, "busy")) return false;
    nanosleep(&(struct timespec){0, (50L << attempt) * 1000000L}, NULL);
    return true;
}
