/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's replacements of two C library calls for libmicrohttpd's
 * threads (rest/mhd_epoll_drain.c, rest/mhd_uncorked.c): each changes a
 * call made on a thread named like libmicrohttpd's, and passes every other
 * call through. Without the replacement linked in, the first assertion of
 * each library-thread test fails. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

/* The option's value, -1 when it cannot be read: it is also called on the
 * named threads, where no cmocka assertion may run. */
static int tcp_option(int fd, int name)
{
    int v = -1;
    socklen_t len = sizeof v;
    return getsockopt(fd, IPPROTO_TCP, name, &v, &len) == 0 ? v : -1;
}

static int set_tcp_option(int fd, int name, int v)
{
    return setsockopt(fd, IPPROTO_TCP, name, &v, sizeof v);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs body on a new thread with the given name, as libmicrohttpd names
 * its own; cmocka's assertions are made on the calling thread. */
struct named_run {
    const char *name;
    void (*body)(struct named_run *);
    int timeout_ms; /* drain_body's wait on an empty set */
    int results[4];
    double seconds;
};

static void *named_thread(void *arg)
{
    struct named_run *r = arg;
    pthread_setname_np(pthread_self(), r->name);
    r->body(r);
    return NULL;
}

static void run_named(struct named_run *r)
{
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, named_thread, r), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
}

/* TCP_CORK on: reported done, socket left uncorked; TCP_NODELAY: set. */
static void cork_body(struct named_run *r)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    r->results[0] = set_tcp_option(fd, TCP_CORK, 1);
    r->results[1] = tcp_option(fd, TCP_CORK);
    r->results[2] = set_tcp_option(fd, TCP_NODELAY, 1);
    r->results[3] = tcp_option(fd, TCP_NODELAY);
    close(fd);
}

static void test_cork_left_off_on_library_thread(void **state)
{
    (void)state;
    struct named_run r = {.name = "MHD-worker", .body = cork_body};
    run_named(&r);
    assert_int_equal(r.results[0], 0);
    assert_int_equal(r.results[1], 0);
    assert_int_equal(r.results[2], 0);
    assert_int_equal(r.results[3], 1);
}

static void test_cork_set_on_other_threads(void **state)
{
    (void)state;
    struct named_run r = {.name = "uv-worker", .body = cork_body};
    run_named(&r);
    assert_int_equal(r.results[0], 0);
    assert_int_equal(r.results[1], 1);
    assert_int_equal(r.results[3], 1);

    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_int_equal(set_tcp_option(fd, TCP_CORK, 1), 0);
    assert_int_equal(tcp_option(fd, TCP_CORK), 1);
    assert_int_equal(set_tcp_option(fd, TCP_CORK, 0), 0);
    assert_int_equal(tcp_option(fd, TCP_CORK), 0);
    close(fd);
}

/* A full batch of one event, then a wait with a 10 s timeout on a set with
 * nothing ready: timed from just before that wait. */
static void drain_body(struct named_run *r)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    int ev = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event want = {.events = EPOLLIN}, got[1];
    epoll_ctl(ep, EPOLL_CTL_ADD, ev, &want);
    r->results[0] = epoll_wait(ep, got, 1, 0);
    uint64_t v;
    r->results[1] = (int)read(ev, &v, sizeof v);
    double t0 = seconds_now();
    r->results[2] = epoll_wait(ep, got, 1, r->timeout_ms);
    r->seconds = seconds_now() - t0;
    close(ev);
    close(ep);
}

static void test_epoll_returns_after_full_batch_on_library_thread(void **state)
{
    (void)state;
    struct named_run r = {.name = "MHD-worker", .body = drain_body, .timeout_ms = 10000};
    run_named(&r);
    assert_int_equal(r.results[0], 1);
    assert_int_equal(r.results[1], (int)sizeof(uint64_t));
    assert_int_equal(r.results[2], 0);
    assert_true(r.seconds < 5.0);
}

static void test_epoll_waits_on_other_threads(void **state)
{
    (void)state;
    /* Outside libmicrohttpd's threads the wait takes its whole timeout. */
    struct named_run r = {.name = "uv-worker", .body = drain_body, .timeout_ms = 100};
    run_named(&r);
    assert_int_equal(r.results[0], 1);
    assert_int_equal(r.results[2], 0);
    assert_true(r.seconds >= 0.099);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cork_left_off_on_library_thread),
        cmocka_unit_test(test_cork_set_on_other_threads),
        cmocka_unit_test(test_epoll_returns_after_full_batch_on_library_thread),
        cmocka_unit_test(test_epoll_waits_on_other_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
