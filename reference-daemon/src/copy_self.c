/* SPDX-License-Identifier: Apache-2.0 */
/* Copying the running executable into a directory (see copy_self.h). */
#include "copy_self.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define COPY_NAME "sandboxd-ref"

static int fail(const char *what, const char *dir)
{
    fprintf(stderr, "sandboxd-ref: --copy-to %s: %s: %s\n", dir, what, strerror(errno));
    return -1;
}

int copy_self_to(const char *dir)
{
    int src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (src < 0) return fail("open /proc/self/exe", dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        close(src);
        return fail("open", dir);
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "." COPY_NAME ".%ld.tmp", (long)getpid());
    int out = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0755);
    int rc = -1;
    if (out < 0) {
        rc = fail("create a temporary file", dir);
        goto done;
    }
    struct stat st;
    if (fstat(src, &st) != 0) {
        rc = fail("stat /proc/self/exe", dir);
        goto done;
    }
    off_t off = 0;
    while (off < st.st_size) {
        ssize_t n = sendfile(out, src, &off, (size_t)(st.st_size - off));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            rc = fail("copy", dir);
            goto done;
        }
    }
    /* fchmod: the mode is exact, whatever the umask. */
    if (fchmod(out, 0755) != 0 || fsync(out) != 0) {
        rc = fail("finish the copy", dir);
        goto done;
    }
    if (renameat(dfd, tmp, dfd, COPY_NAME) != 0) {
        rc = fail("rename into place", dir);
        goto done;
    }
    rc = 0;
done:
    if (out >= 0) {
        close(out);
        if (rc != 0) unlinkat(dfd, tmp, 0);
    }
    close(dfd);
    close(src);
    if (rc == 0) printf("copied to %s/" COPY_NAME "\n", dir);
    return rc;
}
