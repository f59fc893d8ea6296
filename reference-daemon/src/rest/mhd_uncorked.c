/* SPDX-License-Identifier: Apache-2.0 */
/* libmicrohttpd 0.9.75 corks a connection (TCP_CORK) while a response goes
 * out in more than one piece: a file, in 128 KiB sendfile calls in its
 * epoll mode. Corked, a 1 GiB GET over loopback moved 2.1-3.7 GB/s; with
 * the cork left off, the same file to the same client moved 3.4-5.7 GB/s
 * (nine runs each, alternating). libmicrohttpd has no option to leave it
 * off.
 *
 * This setsockopt, which the daemon links in place of the C library's
 * (CMakeLists.txt: the rest module's link option), reports success for
 * TCP_CORK on from libmicrohttpd's threads and leaves the socket as it is.
 * Those sockets have TCP_NODELAY (libmicrohttpd sets it), so each piece
 * goes out at once; what is lost is one short segment per 128 KiB on a
 * real network. Every other call, and every call from another thread,
 * goes to the kernel unchanged. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rest/mhd_thread.h"

static int cork_on(int level, int name, const void *value, socklen_t len)
{
    int on = 0;
    if (level != IPPROTO_TCP || name != TCP_CORK || !value || len < sizeof on) return 0;
    __builtin_memcpy(&on, value, sizeof on);
    return on != 0;
}

int setsockopt(int fd, int level, int name, const void *value, socklen_t len)
{
    if (cork_on(level, name, value, len) && mhd_on_library_thread()) return 0;
    return (int)syscall(SYS_setsockopt, fd, level, name, value, len);
}
