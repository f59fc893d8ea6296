/* SPDX-License-Identifier: Apache-2.0 */
/* libmicrohttpd 0.9.75 (Debian 12) drains its epoll set in batches of 128
 * events. After a full batch it waits again, with the timeout it computed
 * before the first batch. When nothing more comes, the connections of that
 * full batch wait unprocessed until the next event or that timeout, up to
 * the idle timeout. Seen: clients closed 100 to 400 idle connections while
 * the daemon was stopped; in 7 of 300 rounds, 128 or 256 of them stayed
 * open until another client connected (and the hostile REST ctest failed
 * once in CI on it).
 *
 * This epoll_wait, which the daemon links in place of the C library's
 * (CMakeLists.txt: the rest module's link option), makes a call that
 * follows a full batch on one of libmicrohttpd's threads return at once,
 * as later libmicrohttpd versions do. Other threads' calls pass through
 * unchanged: libuv, for one, treats an early return of 0 events with an
 * infinite timeout as impossible. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/epoll.h>

#include "rest/mhd_thread.h"

int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
    static _Thread_local bool after_full_batch;
    if (after_full_batch && mhd_on_library_thread()) timeout = 0;
    int n = epoll_pwait(epfd, events, maxevents, timeout, NULL);
    after_full_batch = n == maxevents;
    return n;
}
