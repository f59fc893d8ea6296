/* SPDX-License-Identifier: Apache-2.0 */
/* sbx-first-look: run inside the runtime under test (uploaded with PUT
 * mode=0755 and started with Execute or Start), it reports what its very
 * first instructions see: the terminal size of stdin, its pid, process
 * group and session, its working directory and the environment variables
 * named on its command line. A runtime that applies any of these just after
 * the program started (the window of a check-then-set race is microseconds)
 * is seen here, where a shell that reads them later would miss it.
 *
 * usage: sbx-first-look [NAME...]
 * Output, one line: "first-look size=ROWS,COLS pid=N pgid=N sid=N cwd=PATH"
 * ("size=none" off a terminal), then "env NAME=VALUE" or "env NAME unset"
 * per NAME. Static and libc-only so that it runs in any Linux runtime of the
 * host's architecture. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    /* The size first: it is what a runtime most often sets late. */
    struct winsize ws = {0};
    int tty = ioctl(0, TIOCGWINSZ, &ws);
    pid_t pid = getpid(), pgid = getpgrp(), sid = getsid(0);
    static char cwd[8192];
    const char *where = getcwd(cwd, sizeof cwd) ? cwd : "?";
    const char *seen[64] = {0};
    int names = argc - 1 < 64 ? argc - 1 : 64;
    for (int i = 0; i < names; i++)
        seen[i] = getenv(argv[i + 1]);

    if (tty == 0)
        printf("first-look size=%u,%u", (unsigned)ws.ws_row, (unsigned)ws.ws_col);
    else
        printf("first-look size=none");
    printf(" pid=%ld pgid=%ld sid=%ld cwd=%s\n", (long)pid, (long)pgid, (long)sid, where);
    for (int i = 0; i < names; i++) {
        if (seen[i])
            printf("env %s=%s\n", argv[i + 1], seen[i]);
        else
            printf("env %s unset\n", argv[i + 1]);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
