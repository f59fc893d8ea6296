/* C4: a download that has started completes with the full, correct content
 * even when the path is deleted mid-transfer. The client stops reading
 * halfway (its write callback blocks, so TCP backpressure holds the server),
 * the file is deleted through REST, and the download is then resumed and
 * verified byte-exact. */
#include "case_api.h"
#include "common/conf_util.h"
#include "common/payload.h"
#include "concurrency/conc_util.h"
#include "rest_client.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define C4_SIZE (48u * 1024 * 1024)
#define C4_PAUSE_AT (8u * 1024 * 1024)

struct c4_download {
    pthread_t tid;
    const char *addr;
    const char *target;
    struct payload_check chk;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool paused, resume;
    uint64_t received;
    long status;
    char error[256];
};

static size_t c4_write(char *buf, size_t size, size_t nitems, void *ud)
{
    struct c4_download *d = ud;
    size_t n = size * nitems;
    payload_check_feed(&d->chk, buf, n);
    d->received += n;
    if (d->received >= C4_PAUSE_AT) {
        pthread_mutex_lock(&d->mu);
        if (!d->paused) {
            d->paused = true;
            pthread_cond_broadcast(&d->cv);
            /* Stop reading until the file is gone (bounded). */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 20;
            while (!d->resume)
                if (pthread_cond_timedwait(&d->cv, &d->mu, &until) != 0) break;
        }
        pthread_mutex_unlock(&d->mu);
    }
    return n;
}

static void *c4_main(void *arg)
{
    struct c4_download *d = arg;
    struct http_request req = {.method = "GET",
                               .target = d->target,
                               .timeout_ms = 60000,
                               .write_cb = c4_write,
                               .write_ud = d};
    struct http_response resp = {0};
    int rc = rest_do_at(d->addr, &req, &resp);
    d->status = rc == 0 ? resp.status : 0;
    if (rc != 0) snprintf(d->error, sizeof d->error, "%s", resp.error);
    http_response_free(&resp);
    pthread_mutex_lock(&d->mu);
    d->paused = true; /* wake the case thread if the download ended early */
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

static void c4_delete_during_read(struct case_ctx *ctx)
{
    const char *addr = case_rest_addr(ctx);
    char *target = conc_target(case_dir(ctx), "c4.bin", NULL);
    uint64_t seed = case_rand(ctx);
    struct payload_source src = {.seed = seed, .total = C4_SIZE};
    static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
    struct http_request put = {.method = "PUT",
                               .target = target,
                               .headers = octet,
                               .timeout_ms = 60000,
                               .read_cb = payload_read_cb,
                               .read_ud = &src,
                               .upload_size = C4_SIZE};
    struct http_response presp = {0};
    case_request(ctx, "PUT %s (%u MiB)", target, C4_SIZE >> 20);
    if (rest_do_at(addr, &put, &presp) != 0 || presp.status != 204) {
        case_fail(ctx, "PUT answers 204 (F1)", "status %ld %s", presp.status, presp.error);
        http_response_free(&presp);
        free(target);
        return;
    }
    http_response_free(&presp);

    struct c4_download d = {.addr = addr, .target = target};
    payload_check_init(&d.chk);
    pthread_mutex_init(&d.mu, NULL);
    pthread_cond_init(&d.cv, NULL);
    if (pthread_create(&d.tid, NULL, c4_main, &d) != 0) {
        case_error(ctx, "could not start the download thread");
        free(target);
        return;
    }
    /* Wait for the download to reach the pause point. */
    pthread_mutex_lock(&d.mu);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    while (!d.paused)
        if (pthread_cond_timedwait(&d.cv, &d.mu, &until) != 0) break;
    bool paused = d.paused;
    pthread_mutex_unlock(&d.mu);

    long ds = 0;
    if (paused && d.status == 0) {
        case_request(ctx, "DELETE %s (while a GET of it is paused after %u MiB)", target,
                     C4_PAUSE_AT >> 20);
        ds = conc_delete(addr, target);
        if (ds != 204) case_fail(ctx, "DELETE of the file answers 204 (F10)", "status %ld", ds);
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 300 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    pthread_mutex_lock(&d.mu);
    d.resume = true;
    pthread_cond_broadcast(&d.cv);
    pthread_mutex_unlock(&d.mu);
    pthread_join(d.tid, NULL);

    case_request(ctx, "GET %s (paused after %u MiB, file deleted, resumed)", target,
                 C4_PAUSE_AT >> 20);
    if (!paused)
        case_error(ctx, "the download never reached %u MiB (status %ld %s)", C4_PAUSE_AT >> 20,
                   d.status, d.error);
    else if (d.status != 200)
        case_fail(ctx, "the started download completes with 200", "status %ld after %llu bytes: %s",
                  d.status, (unsigned long long)d.received, d.error[0] ? d.error : "");
    else if (!payload_check_finish(&d.chk))
        case_fail(ctx, "the started download delivers the full, correct content",
                  "after %llu bytes: %s", (unsigned long long)d.received, d.chk.why);
    else if (d.chk.seed != seed)
        case_fail(ctx, "the download delivers the file as it was when it started",
                  "a complete payload of another seed");
    pthread_mutex_destroy(&d.mu);
    pthread_cond_destroy(&d.cv);
    free(target);
}
SBX_CASE(c4_delete_during_read, .id = "C4-001",
         .title = "A download in progress completes in full after its file is deleted",
         .clauses = "C4", .level = LEVEL_MUST, .tags = "files,concurrency", .timeout_s = 60,
         .catches = "downloads that re-open the path per block, or stop when the name goes away, "
                    "so a delete mid-transfer truncates or breaks the response",
         .how = "PUTs a 48 MiB self-verifying payload, GETs it and stops reading after 8 MiB "
                "(the write callback blocks; backpressure holds the server), DELETEs the file "
                "(204), waits, resumes, and requires 200 with the complete payload byte-exact");
