/* SPDX-License-Identifier: Apache-2.0 */
#include "rest/mhd_thread.h"

#include <pthread.h>
#include <string.h>

/* libmicrohttpd names its threads "MHD-worker", "MHD-listen", ... A thread's
 * name is read once: the calls asking are on hot paths. */
bool mhd_on_library_thread(void)
{
    static _Thread_local int known = -1;
    if (known < 0) {
        char name[16] = "";
        known = pthread_getname_np(pthread_self(), name, sizeof(name)) == 0 &&
                strncmp(name, "MHD-", 4) == 0;
    }
    return known == 1;
}
