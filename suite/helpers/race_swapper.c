/* SPDX-License-Identifier: Apache-2.0 */
/* sbx-race-swapper: the S7 case's swapper, run inside the runtime under
 * test (uploaded with PUT mode=0755 and started with Start). It trades a
 * directory and a symlink to outside with renameat2(RENAME_EXCHANGE), so
 * the link is in place half of the time, as fast as it can for a bounded
 * time and count, then puts the directory back and prints its figures.
 *
 * usage: sbx-race-swapper DIR LINK-TARGET MILLISECONDS MAX-SWAPS
 * Output: "ready" once the link exists, then "swaps N ms M" at the end;
 * "unsupported ERRNO" (exit 2) when the file system cannot exchange names.
 * Static and libc-only so that it runs in any Linux runtime of the host's
 * architecture. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static long exchange(const char *a, const char *b)
{
    return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

static unsigned long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR LINK-TARGET MILLISECONDS MAX-SWAPS\n", argv[0]);
        return 64;
    }
    const char *dir = argv[1];
    unsigned long long ms = strtoull(argv[3], NULL, 10);
    unsigned long long max = strtoull(argv[4], NULL, 10);
    if (ms == 0 || ms > 60000 || max == 0) {
        fprintf(stderr, "%s: MILLISECONDS must be 1-60000 and MAX-SWAPS positive\n", argv[0]);
        return 64;
    }
    char link[4096];
    if (snprintf(link, sizeof link, "%s.link", dir) >= (int)sizeof link) return 64;
    unlink(link);
    if (symlink(argv[2], link) != 0) {
        fprintf(stderr, "symlink %s: %s\n", link, strerror(errno));
        return 1;
    }
    /* One exchange there and back first: proves the file system supports it. */
    if (exchange(dir, link) != 0 || exchange(dir, link) != 0) {
        int e = errno;
        unlink(link);
        printf("unsupported %d\n", e);
        return 2;
    }
    printf("ready\n");
    fflush(stdout);
    unsigned long long t0 = now_ms(), end = t0 + ms, n = 0;
    int failed = 0;
    while (n < max) {
        if ((n & 255) == 0 && now_ms() >= end) break;
        if (exchange(dir, link) != 0) {
            failed = errno;
            break;
        }
        n++;
    }
    /* An odd count left the link at DIR: trade back. */
    if (n % 2 == 1 && exchange(dir, link) == 0) n++;
    unlink(link);
    printf("swaps %llu ms %llu\n", n, now_ms() - t0);
    if (failed) fprintf(stderr, "exchange failed after %llu swaps: %s\n", n, strerror(failed));
    return failed ? 1 : 0;
}
