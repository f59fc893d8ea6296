/* SPDX-License-Identifier: Apache-2.0 */
/* Floors: the same work done without a runtime in between. */
#include "bench_text.h"
#include "bench_floor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_measure.h"

extern char **environ;

#define CHUNK (256u * 1024u)

/* ---- posix_spawn + waitpid of true --------------------------------------- */

static int spawn_true(void *ud, char *err)
{
    (void)ud;
    char *argv[] = {"true", NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "true", NULL, NULL, argv, environ);
    if (rc != 0) {
        bench_fmt(err, 256, "posix_spawnp true: %s", strerror(rc));
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---- head -c N /dev/zero into a pipe ------------------------------------- */

struct pipe_ctx {
    uint64_t n;
    char *buf;
};

static int64_t pipe_copy(void *ud, char *err)
{
    struct pipe_ctx *p = ud;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        bench_fmt(err, 256, "pipe: %s", strerror(errno));
        return -1;
    }
    char nbuf[32];
    bench_fmt(nbuf, sizeof nbuf, "%llu", (unsigned long long)p->n);
    char *argv[] = {"head", "-c", nbuf, "/dev/zero", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    pid_t pid;
    int rc = posix_spawnp(&pid, "head", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        bench_fmt(err, 256, "posix_spawnp head: %s", strerror(rc));
        return -1;
    }
    int64_t total = 0;
    for (;;) {
        ssize_t k = read(fds[0], p->buf, CHUNK);
        if (k > 0)
            total += k;
        else if (k == 0 || errno != EINTR)
            break;
    }
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return total;
}

/* ---- loopback TCP ------------------------------------------------------- */

/* A connected pair of loopback TCP sockets; 0 or -1 with err set. */
static int tcp_pair(int fds[2], char *err)
{
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0) {
        bench_fmt(err, 256, "socket: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0 ||
        getsockname(l, (struct sockaddr *)&a, &alen) != 0) {
        bench_fmt(err, 256, "loopback listen: %s", strerror(errno));
        close(l);
        return -1;
    }
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
        bench_fmt(err, 256, "loopback connect: %s", strerror(errno));
        if (c >= 0) close(c);
        close(l);
        return -1;
    }
    int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    close(l);
    if (s < 0) {
        bench_fmt(err, 256, "loopback accept: %s", strerror(errno));
        close(c);
        return -1;
    }
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fds[0] = c;
    fds[1] = s;
    return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t k = write(fd, p, len);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

struct tcp_writer {
    int fd;
    uint64_t n;
    const char *src; /* pattern of CHUNK bytes, written again and again */
    int file_fd;     /* >= 0: send this file's bytes instead, with sendfile */
};

/* A file in the page cache goes out with sendfile, as a file server sends
 * it: the bytes come from memory once, not from a cache-hot buffer. */
static void send_file_bytes(const struct tcp_writer *w)
{
    off_t off = 0;
    uint64_t left = w->n;
    while (left > 0) {
        size_t k = left < (1u << 30) ? (size_t)left : (1u << 30);
        ssize_t sent = sendfile(w->fd, w->file_fd, &off, k);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) break;
        left -= (uint64_t)sent;
    }
}

static void *tcp_write_thread(void *arg)
{
    struct tcp_writer *w = arg;
    if (w->file_fd >= 0) {
        send_file_bytes(w);
        shutdown(w->fd, SHUT_WR);
        return NULL;
    }
    uint64_t left = w->n;
    while (left > 0) {
        size_t k = left < CHUNK ? (size_t)left : CHUNK;
        if (write_all(w->fd, w->src, k) != 0) break;
        left -= k;
    }
    shutdown(w->fd, SHUT_WR);
    return NULL;
}

struct tcp_ctx {
    uint64_t n;
    char *buf;        /* reader's buffer */
    const char *src;  /* writer's pattern (CHUNK bytes) */
    const char *path; /* non-NULL: the writer sends this file instead */
};

static int64_t tcp_copy(void *ud, char *err)
{
    struct tcp_ctx *t = ud;
    int file_fd = -1;
    if (t->path && (file_fd = open(t->path, O_RDONLY | O_CLOEXEC)) < 0) {
        bench_fmt(err, 256, "open %s: %s", t->path, strerror(errno));
        return -1;
    }
    int fds[2];
    if (tcp_pair(fds, err) != 0) {
        if (file_fd >= 0) close(file_fd);
        return -1;
    }
    struct tcp_writer w = {.fd = fds[1], .n = t->n, .src = t->src, .file_fd = file_fd};
    pthread_t th;
    if (pthread_create(&th, NULL, tcp_write_thread, &w) != 0) {
        bench_fmt(err, 256, "pthread_create failed");
        close(fds[0]);
        close(fds[1]);
        if (file_fd >= 0) close(file_fd);
        return -1;
    }
    int64_t total = 0;
    for (;;) {
        ssize_t k = read(fds[0], t->buf, CHUNK);
        if (k > 0)
            total += k;
        else if (k == 0 || errno != EINTR)
            break;
    }
    pthread_join(th, NULL);
    close(fds[0]);
    close(fds[1]);
    if (file_fd >= 0) close(file_fd);
    return total;
}

struct rtt_ctx {
    int fds[2];
};

static int tcp_rtt(void *ud, char *err)
{
    struct rtt_ctx *r = ud;
    char msg[64] = {0}, back[64];
    /* The echo side is the same thread: write, let the peer read and answer
     * back, read. Both hops cross the loopback stack as a request would. */
    if (write_all(r->fds[0], msg, sizeof msg) != 0) goto fail;
    size_t got = 0;
    while (got < sizeof back) {
        ssize_t k = read(r->fds[1], back + got, sizeof back - got);
        if (k <= 0) goto fail;
        got += (size_t)k;
    }
    if (write_all(r->fds[1], back, sizeof back) != 0) goto fail;
    got = 0;
    while (got < sizeof msg) {
        ssize_t k = read(r->fds[0], msg + got, sizeof msg - got);
        if (k <= 0) goto fail;
        got += (size_t)k;
    }
    return 0;
fail:
    bench_fmt(err, 256, "loopback round trip: %s", strerror(errno));
    return -1;
}

/* ---- local files --------------------------------------------------------- */

struct file_ctx {
    uint64_t n;
    char *buf;       /* CHUNK bytes */
    const char *src; /* pattern, CHUNK bytes */
    char path_src[4096];
    char path_dst[4096];
};

static int64_t write_file(const char *path, uint64_t n, const char *src, bool sync, char *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        bench_fmt(err, 256, "open %s: %s", path, strerror(errno));
        return -1;
    }
    uint64_t left = n;
    while (left > 0) {
        size_t k = left < CHUNK ? (size_t)left : CHUNK;
        if (write_all(fd, src, k) != 0) {
            bench_fmt(err, 256, "write %s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        left -= k;
    }
    if (sync && fsync(fd) != 0) {
        bench_fmt(err, 256, "fsync %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    return (int64_t)n;
}

static int64_t file_read(void *ud, char *err)
{
    struct file_ctx *c = ud;
    int fd = open(c->path_src, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        bench_fmt(err, 256, "open %s: %s", c->path_src, strerror(errno));
        return -1;
    }
    int64_t total = 0;
    for (;;) {
        ssize_t k = read(fd, c->buf, CHUNK);
        if (k > 0)
            total += k;
        else if (k == 0 || errno != EINTR)
            break;
    }
    close(fd);
    return total;
}

static int64_t file_write(void *ud, char *err)
{
    struct file_ctx *c = ud;
    int64_t n = write_file(c->path_dst, c->n, c->src, true, err);
    unlink(c->path_dst);
    return n;
}

static int64_t file_copy(void *ud, char *err)
{
    struct file_ctx *c = ud;
    int in = open(c->path_src, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        bench_fmt(err, 256, "open %s: %s", c->path_src, strerror(errno));
        return -1;
    }
    int out = open(c->path_dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) {
        bench_fmt(err, 256, "open %s: %s", c->path_dst, strerror(errno));
        close(in);
        return -1;
    }
    int64_t total = 0;
    for (;;) {
        ssize_t k = read(in, c->buf, CHUNK);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        if (write_all(out, c->buf, (size_t)k) != 0) {
            bench_fmt(err, 256, "write %s: %s", c->path_dst, strerror(errno));
            total = -1;
            break;
        }
        total += k;
    }
    if (total >= 0 && fsync(out) != 0) {
        bench_fmt(err, 256, "fsync %s: %s", c->path_dst, strerror(errno));
        total = -1;
    }
    close(in);
    close(out);
    unlink(c->path_dst);
    return total;
}

/* ---- small durable writes ------------------------------------------------ */

/* What a small PUT costs the disk at the least: a file of --small-size
 * bytes written beside its target, synced and renamed over it. Its crowd
 * runs as many callers as the REST crowd, each on its own names. */
struct small_write_ctx {
    uint64_t n;
    const char *src; /* pattern, CHUNK bytes */
    char tmp[4096];
    char dst[4096];
};

static int small_write(void *ud, char *err)
{
    struct small_write_ctx *c = ud;
    if (write_file(c->tmp, c->n, c->src, true, err) < 0) return -1;
    if (rename(c->tmp, c->dst) != 0) {
        bench_fmt(err, 256, "rename %s: %s", c->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

struct small_write_crowd {
    const struct bench_opts *o;
    const char *dir;
    const char *src;
};

static void *small_write_setup(void *ud, unsigned index, char *err)
{
    const struct small_write_crowd *w = ud;
    struct small_write_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        bench_fmt(err, 256, "out of memory");
        return NULL;
    }
    c->n = w->o->small_size;
    c->src = w->src;
    bench_fmt(c->tmp, sizeof c->tmp, "%s/sbx-bench-small-%d-%u.tmp", w->dir, (int)getpid(), index);
    bench_fmt(c->dst, sizeof c->dst, "%s/sbx-bench-small-%d-%u", w->dir, (int)getpid(), index);
    return c;
}

static void small_write_teardown(void *state)
{
    struct small_write_ctx *c = state;
    unlink(c->tmp);
    unlink(c->dst);
    free(c);
}

static void small_write_floors(struct bench_results *r, const struct bench_opts *o, const char *dir,
                               const char *src)
{
    struct small_write_crowd crowd = {.o = o, .dir = dir, .src = src};
    struct bench_workers w = {.setup = small_write_setup,
                              .op = small_write,
                              .teardown = small_write_teardown,
                              .ud = &crowd};
    struct bench_figure *f = bench_add(r, "floor.sync_one", "floor: small file write+fsync+rename",
                                       "floor", BENCH_LATENCY);
    if (f) {
        char err[256] = "";
        void *c = small_write_setup(&crowd, 0, err);
        if (c) {
            bench_measure_latency(f, o, small_write, c);
            small_write_teardown(c);
        } else {
            bench_fmt(f->note, sizeof f->note, "not measured: %s", err);
        }
    }
    f = bench_add(r, "floor.sync_crowd", "", "floor", BENCH_LATENCY);
    if (f) {
        bench_fmt(f->label, sizeof f->label, "floor: the same, %u callers at once",
                  BENCH_CROWD_CALLERS);
        f->basis = BENCH_RATIO_THROUGHPUT;
        bench_measure_concurrent(f, o, BENCH_CROWD_CALLERS, &w);
    }
}

/* ---- driver -------------------------------------------------------------- */

static void fill_pattern(char *p, size_t n)
{
    /* Non-zero, non-repeating bytes so no layer can shortcut the copy. */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (char)(x & 0xff);
    }
}

static void file_floors(struct bench_results *r, const struct bench_opts *o, const char *dir,
                        char *buf, const char *src)
{
    char label[96];
    struct file_ctx c = {.n = o->size, .buf = buf, .src = src};
    bench_fmt(c.path_src, sizeof c.path_src, "%s/sbx-bench-src-%d", dir, (int)getpid());
    bench_fmt(c.path_dst, sizeof c.path_dst, "%s/sbx-bench-dst-%d", dir, (int)getpid());

    struct bench_figure *fr = bench_add(r, "floor.file_read", "", "floor", BENCH_TRANSFER);
    struct bench_figure *fw = bench_add(r, "floor.file_write", "", "floor", BENCH_TRANSFER);
    struct bench_figure *fc = bench_add(r, "floor.file_copy", "", "floor", BENCH_TRANSFER);
    struct bench_figure *ft = bench_add(r, "floor.tcp_file", "", "floor", BENCH_TRANSFER);
    if (!fr || !fw || !fc || !ft) return;
    bench_fmt(fr->label, sizeof fr->label, "floor: read file");
    bench_fmt(fw->label, sizeof fw->label, "floor: write file + fsync");
    bench_fmt(fc->label, sizeof fc->label, "floor: local copy (read+write+fsync)");
    bench_fmt(ft->label, sizeof ft->label, "floor: cached file to loopback TCP (sendfile)");

    char err[256] = "";
    /* The source is written and synced before anything is timed, so the copy
     * does not pay for the source's writeback. */
    if (write_file(c.path_src, c.n, src, true, err) < 0) {
        bench_fmt(label, sizeof label, "not measured: %s", err);
        bench_fmt(fr->note, sizeof fr->note, "%s", label);
        bench_fmt(fw->note, sizeof fw->note, "%s", label);
        bench_fmt(fc->note, sizeof fc->note, "%s", label);
        bench_fmt(ft->note, sizeof ft->note, "%s", label);
        unlink(c.path_src);
        return;
    }
    bench_measure_transfer(fr, o, file_read, &c, o->size);
    bench_measure_transfer(fw, o, file_write, &c, o->size);
    bench_measure_transfer(fc, o, file_copy, &c, o->size);
    struct tcp_ctx t = {.n = c.n, .buf = buf, .src = src, .path = c.path_src};
    bench_measure_transfer(ft, o, tcp_copy, &t, o->size);
    unlink(c.path_src);
    unlink(c.path_dst);
}

void bench_floors(struct bench_results *r, const struct bench_opts *o, const char *dir)
{
    char *buf = malloc(CHUNK), *src = malloc(CHUNK);
    if (!buf || !src) {
        free(buf);
        free(src);
        return;
    }
    fill_pattern(src, CHUNK);

    struct bench_figure *f =
        bench_add(r, "floor.spawn", "floor: posix_spawn+waitpid true", "floor", BENCH_LATENCY);
    if (f) bench_measure_latency(f, o, spawn_true, NULL);

    struct pipe_ctx p = {.n = o->size, .buf = buf};
    f = bench_add(r, "floor.pipe", "floor: pipe copy (head -c N /dev/zero)", "floor",
                  BENCH_TRANSFER);
    if (f) bench_measure_transfer(f, o, pipe_copy, &p, o->size);

    struct tcp_ctx t = {.n = o->size, .buf = buf, .src = src};
    f = bench_add(r, "floor.tcp", "floor: loopback TCP copy", "floor", BENCH_TRANSFER);
    if (f) bench_measure_transfer(f, o, tcp_copy, &t, o->size);

    f = bench_add(r, "floor.tcp_rtt", "floor: loopback TCP round trip (64 B)", "floor",
                  BENCH_LATENCY);
    if (f) {
        struct rtt_ctx rc;
        char err[256] = "";
        if (tcp_pair(rc.fds, err) == 0) {
            bench_measure_latency(f, o, tcp_rtt, &rc);
            close(rc.fds[0]);
            close(rc.fds[1]);
        } else {
            bench_fmt(f->note, sizeof f->note, "not measured: %s", err);
        }
    }

    file_floors(r, o, dir, buf, src);
    small_write_floors(r, o, dir, src);
    free(buf);
    free(src);
}
