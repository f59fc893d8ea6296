/* SPDX-License-Identifier: Apache-2.0 */
/* Which thread is calling: the daemon's replacements of C library calls
 * (mhd_epoll_drain.c, mhd_uncorked.c) change only libmicrohttpd's calls. */
#ifndef SBX_REST_MHD_THREAD_H
#define SBX_REST_MHD_THREAD_H

#include <stdbool.h>

/* True on a thread that libmicrohttpd started ("MHD-worker", ...). */
bool mhd_on_library_thread(void);

#endif
