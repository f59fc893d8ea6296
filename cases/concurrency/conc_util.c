/* SPDX-License-Identifier: Apache-2.0 */
/* Thread-safe REST helpers for the concurrency cases (see conc_util.h). */
#include "concurrency/conc_util.h"

#include "common/conf_util.h"
#include "rest_client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};

char *conc_target(const char *case_dir, const char *rel, const char *query)
{
    char *path = conf_xasprintf("%s/%s", case_dir, rel);
    char *t = rest_files_target(path);
    char *out = conf_xasprintf("%s%s%s", t, query ? "?" : "", query ? query : "");
    free(t);
    free(path);
    return out;
}

long conc_put_payload(const char *addr, const char *target, uint64_t seed, size_t size)
{
    uint8_t *body = payload_make(seed, size);
    if (!body) return 0;
    struct http_request req = {.method = "PUT",
                               .target = target,
                               .body = body,
                               .body_len = size,
                               .headers = octet,
                               .timeout_ms = 20000};
    struct http_response resp = {0};
    long s = rest_do_at(addr, &req, &resp) == 0 ? resp.status : 0;
    http_response_free(&resp);
    free(body);
    return s;
}

struct aborting_source {
    struct payload_source src;
    size_t abort_after;
};

static size_t aborting_read(char *buf, size_t size, size_t nitems, void *ud)
{
    struct aborting_source *a = ud;
    if (a->src.off >= a->abort_after) return CURL_READFUNC_ABORT;
    size_t want = size * nitems;
    if (a->src.off + want > a->abort_after) want = a->abort_after - a->src.off;
    return payload_read_cb(buf, 1, want, &a->src);
}

long conc_put_aborted(const char *addr, const char *target, uint64_t seed, size_t size,
                      size_t abort_after)
{
    struct aborting_source a = {.src = {.seed = seed, .total = size}, .abort_after = abort_after};
    struct http_request req = {.method = "PUT",
                               .target = target,
                               .headers = octet,
                               .timeout_ms = 20000,
                               .read_cb = aborting_read,
                               .read_ud = &a,
                               .upload_size = (long long)size};
    struct http_response resp = {0};
    long s = rest_do_at(addr, &req, &resp) == 0 ? resp.status : 0;
    http_response_free(&resp);
    return s;
}

long conc_get_payload(const char *addr, const char *target, bool *complete, uint64_t *seed,
                      char *why, size_t whylen)
{
    struct payload_check chk;
    payload_check_init(&chk);
    struct http_request req = {.method = "GET",
                               .target = target,
                               .timeout_ms = 20000,
                               .write_cb = payload_write_cb,
                               .write_ud = &chk};
    struct http_response resp = {0};
    int rc = rest_do_at(addr, &req, &resp);
    long s = rc == 0 ? resp.status : 0;
    *complete = false;
    if (s == 200) {
        *complete = payload_check_finish(&chk);
        *seed = chk.seed;
        if (!*complete) snprintf(why, whylen, "%s", chk.why);
    } else if (rc != 0) {
        snprintf(why, whylen, "%s", resp.error);
    }
    http_response_free(&resp);
    return s;
}

long conc_delete(const char *addr, const char *target)
{
    struct http_request req = {.method = "DELETE", .target = target, .timeout_ms = 20000};
    struct http_response resp = {0};
    long s = rest_do_at(addr, &req, &resp) == 0 ? resp.status : 0;
    http_response_free(&resp);
    return s;
}

bool conc_seed_in(uint64_t seed, const uint64_t *seeds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (seeds[i] == seed) return true;
    return false;
}
