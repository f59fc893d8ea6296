/* SPDX-License-Identifier: Apache-2.0 */
/* C4: a download that has started completes with the full, correct content
 * even when the path is deleted mid-transfer. The client stops reading
 * halfway (its write callback blocks, so TCP backpressure holds the server),
 * the file is deleted through REST, and the download is then resumed and
 * verified byte-exact. */
#include "case_api.h"
#include "common/conf_util.h"
#include "common/pausable_download.h"
#include "common/payload.h"
#include "concurrency/conc_util.h"
#include "rest_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define C4_SIZE (48u * 1024 * 1024)
#define C4_PAUSE_AT (8u * 1024 * 1024)

static bool c4_sink(void *ud, const char *buf, size_t n, uint64_t off)
{
    (void)off;
    payload_check_feed(ud, buf, n);
    return true;
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

    struct payload_check chk;
    payload_check_init(&chk);
    struct pd_opts o = {.addr = addr,
                        .target = target,
                        .pause_at = C4_PAUSE_AT,
                        .max_pause_ms = 20000,
                        .timeout_ms = 60000,
                        .sink = c4_sink,
                        .sink_ud = &chk};
    struct pausable_download *d = pd_start(&o);
    if (!d) {
        case_error(ctx, "could not start the download thread");
        free(target);
        return;
    }
    bool paused = pd_wait_paused(d, 20000);
    if (paused) {
        case_request(ctx, "DELETE %s (while a GET of it is paused after %u MiB)", target,
                     C4_PAUSE_AT >> 20);
        long ds = conc_delete(addr, target);
        if (ds != 204) case_fail(ctx, "DELETE of the file answers 204 (F10)", "status %ld", ds);
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 300 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    struct pd_result res;
    pd_finish(d, &res);

    case_request(ctx, "GET %s (paused after %u MiB, file deleted, resumed)", target,
                 C4_PAUSE_AT >> 20);
    if (!paused && res.status > 0 && res.status != 200)
        /* The file was just stored (204): a GET of it must answer 200. */
        case_fail(ctx, "GET of the file just stored answers 200 (F7)", "status %ld %s", res.status,
                  res.error);
    else if (!paused)
        case_error(ctx, "the download never reached %u MiB (status %ld %s)", C4_PAUSE_AT >> 20,
                   res.status, res.error);
    else if (res.status != 200)
        case_fail(ctx, "the started download completes with 200", "status %ld after %llu bytes: %s",
                  res.status, (unsigned long long)res.received, res.error);
    else if (!payload_check_finish(&chk))
        case_fail(ctx, "the started download delivers the full, correct content",
                  "after %llu bytes: %s", (unsigned long long)res.received, chk.why);
    else if (chk.seed != seed)
        case_fail(ctx, "the download delivers the file as it was when it started",
                  "a complete payload of another seed");
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
