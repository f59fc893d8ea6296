/* rest_real: the daemon's own REST decisions (see rest_behaviour.h). */
#include "rest/rest_behaviour.h"

#include "fs/resolve.h"

static int open_path(const struct daemon_state *st, const char *path, int flags)
{
    return fs_open_beneath(st->root_fd, path, flags, 0);
}

static int open_parent(const struct daemon_state *st, const char *path, char *name, size_t cap)
{
    return fs_open_parent(st->root_fd, path, 0, name, cap);
}

static int begin_write(struct fs_atomic_file *w, const struct daemon_state *st, const char *path,
                       int create_parents)
{
    return fs_atomic_begin(w, st->root_fd, path, create_parents);
}

static bool answer_early(struct MHD_Connection *c, const char *raw_rest, enum MHD_Result *ret)
{
    (void)c;
    (void)raw_rest;
    (void)ret;
    return false;
}

static void head_answered(struct rest_request *rq, int fd)
{
    (void)rq;
    (void)fd;
}

static void request_done(struct rest_request *rq, struct MHD_Connection *c, bool completed)
{
    (void)rq;
    (void)c;
    (void)completed;
}

const struct rest_behaviour rest_real = {
    .open_path = open_path,
    .open_parent = open_parent,
    .begin_write = begin_write,
    .answer_early = answer_early,
    .head_answered = head_answered,
    .request_done = request_done,
};
