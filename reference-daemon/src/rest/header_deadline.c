/* SPDX-License-Identifier: Apache-2.0 */
/* The header-block deadline (see header_deadline.h). */
#include "rest/header_deadline.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

/* One accepted connection. Linked while the connection lives; the socket
 * is shut down only with the lock held, and the CLOSED notification, which
 * takes the lock, comes before libmicrohttpd closes the descriptor. */
struct watched {
    struct watched *prev, *next;
    int fd;
    bool waiting;      /* for a complete header block */
    uint64_t since_ms; /* when the wait began */
};

struct header_deadline {
    uint64_t deadline_ms;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stopping;
    struct watched *head;
    pthread_t thread;
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void *watchdog(void *arg)
{
    struct header_deadline *hd = arg;
    /* Checked four times per deadline: a connection is closed at most a
     * quarter of the deadline late. */
    uint64_t tick_ms = hd->deadline_ms / 4 ? hd->deadline_ms / 4 : 1;
    if (tick_ms > 1000) tick_ms = 1000;
    pthread_mutex_lock(&hd->lock);
    while (!hd->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += (time_t)(tick_ms / 1000);
        until.tv_nsec += (long)(tick_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        int rc = 0;
        while (!hd->stopping && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&hd->wake, &hd->lock, &until);
        uint64_t now = now_ms();
        for (struct watched *w = hd->head; w; w = w->next)
            if (w->waiting && now - w->since_ms >= hd->deadline_ms) {
                /* The server's loop sees end-of-stream and closes it. */
                shutdown(w->fd, SHUT_RDWR);
                w->waiting = false;
            }
    }
    pthread_mutex_unlock(&hd->lock);
    return NULL;
}

struct header_deadline *header_deadline_start(uint64_t deadline_ms)
{
    if (deadline_ms == 0) return NULL;
    struct header_deadline *hd = calloc(1, sizeof(*hd));
    if (!hd) return NULL;
    hd->deadline_ms = deadline_ms;
    pthread_mutex_init(&hd->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&hd->wake, &ca);
    pthread_condattr_destroy(&ca);
    pthread_attr_t ta;
    pthread_attr_init(&ta);
    pthread_attr_setstacksize(&ta, 64 * 1024);
    int rc = pthread_create(&hd->thread, &ta, watchdog, hd);
    pthread_attr_destroy(&ta);
    if (rc != 0) {
        pthread_cond_destroy(&hd->wake);
        pthread_mutex_destroy(&hd->lock);
        free(hd);
        return NULL;
    }
    return hd;
}

void header_deadline_stop(struct header_deadline *hd)
{
    if (!hd) return;
    pthread_mutex_lock(&hd->lock);
    hd->stopping = true;
    pthread_cond_signal(&hd->wake);
    pthread_mutex_unlock(&hd->lock);
    pthread_join(hd->thread, NULL);
    /* Entries left are those of connections the server already freed
     * without a CLOSED notification (it stopped): nothing else owns them. */
    for (struct watched *w = hd->head, *n; w; w = n) {
        n = w->next;
        free(w);
    }
    pthread_cond_destroy(&hd->wake);
    pthread_mutex_destroy(&hd->lock);
    free(hd);
}

void header_deadline_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                                   enum MHD_ConnectionNotificationCode toe)
{
    struct header_deadline *hd = cls;
    if (!hd) return;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct watched *w = fd ? calloc(1, sizeof(*w)) : NULL;
        if (!w) return; /* unwatched: the idle timeout still applies */
        w->fd = fd->connect_fd;
        w->waiting = true;
        w->since_ms = now_ms();
        pthread_mutex_lock(&hd->lock);
        w->next = hd->head;
        if (hd->head) hd->head->prev = w;
        hd->head = w;
        pthread_mutex_unlock(&hd->lock);
        *socket_context = w;
        return;
    }
    struct watched *w = *socket_context;
    if (!w) return;
    pthread_mutex_lock(&hd->lock);
    if (w->prev)
        w->prev->next = w->next;
    else
        hd->head = w->next;
    if (w->next) w->next->prev = w->prev;
    bool last = !hd->head;
    pthread_mutex_unlock(&hd->lock);
    free(w);
    /* The last connection closed: return the heap pages that thousands of
     * connection threads may have left in their arenas. */
    if (last) malloc_trim(0);
    *socket_context = NULL;
}

static void set_waiting(struct header_deadline *hd, struct MHD_Connection *c, bool waiting)
{
    if (!hd) return;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct watched *w = ci ? ci->socket_context : NULL;
    if (!w) return;
    pthread_mutex_lock(&hd->lock);
    w->waiting = waiting;
    w->since_ms = now_ms();
    pthread_mutex_unlock(&hd->lock);
}

void header_deadline_headers_done(struct header_deadline *hd, struct MHD_Connection *c)
{
    set_waiting(hd, c, false);
}

void header_deadline_request_done(struct header_deadline *hd, struct MHD_Connection *c)
{
    set_waiting(hd, c, true);
}
