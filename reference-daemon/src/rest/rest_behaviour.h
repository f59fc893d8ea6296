#ifndef SBX_REST_BEHAVIOUR_H
#define SBX_REST_BEHAVIOUR_H
/* The decisions of rest/ that another build of the daemon may wrap; the
 * handlers call through rest_behaviour, rest_real holds the daemon's own.
 *
 * rest_behaviour is chosen at link time, like fs_behaviour (fs/
 * fs_behaviour.h): the real daemon links rest/rest_behaviour_real.c;
 * sandboxd-ref-faulty links its wrappers from reference-daemon/faults/
 * instead. Both are constant while the daemon runs. */
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "daemon_state.h"
#include "fs/atomic_write.h"

struct rest_request;

struct rest_behaviour {
    /* Opens a request path like open(2), beneath the root (GET, HEAD):
     * a descriptor or an fs_resolve_error. */
    int (*open_path)(const struct daemon_state *st, const char *path, int flags);
    /* Opens the parent directory of a request path (DELETE) and copies the
     * last component into name: an O_PATH descriptor or an error. */
    int (*open_parent)(const struct daemon_state *st, const char *path, char *name, size_t cap);
    /* Begins the atomic write of a PUT (fs_atomic_begin beneath the root). */
    int (*begin_write)(struct fs_atomic_file *w, const struct daemon_state *st, const char *path,
                       int create_parents);
    /* Before routing a /v1/files request whose raw path after "/v1/files/"
     * is raw_rest: true when a response was queued instead (*ret). */
    bool (*answer_early)(struct MHD_Connection *c, const char *raw_rest, enum MHD_Result *ret);
    /* A HEAD of the regular file open as fd was answered. */
    void (*head_answered)(struct rest_request *rq, int fd);
    /* The request is over, before its state is freed; completed when the
     * whole response went out. Releases rq->extension. */
    void (*request_done)(struct rest_request *rq, struct MHD_Connection *c, bool completed);
};

extern const struct rest_behaviour rest_real;
extern const struct rest_behaviour *const rest_behaviour;

#endif
