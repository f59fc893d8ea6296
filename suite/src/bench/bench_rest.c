/* SPDX-License-Identifier: Apache-2.0 */
/* REST figures: small-file latency and request rate, big-file throughput. */
#include "bench_text.h"
#include "bench_rest.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_floor.h"
#include "bench_measure.h"
#include "request_headers.h"
#include "bench_report.h"
#include "rest_client.h"

#define SMALL_TIMEOUT_MS 30000L
#define BLOCK (256u * 1024u)

struct rest_shared {
    char base[600]; /* "http://host:port" (rest_base_url) */
    const char *addr;
    char dir[96];       /* workspace directory under the root */
    const char *block;  /* BLOCK bytes of pattern: every body is cut from it */
    uint64_t body_size; /* PUT body size for this figure */
    uint64_t get_size;  /* expected GET body size for this figure */
    const char *get_name;
    unsigned timeout_ms;
};

static int make_base(struct rest_shared *sh, const char *addr)
{
    sh->addr = addr;
    return rest_base_url(addr, sh->base, sizeof sh->base);
}

/* One keep-alive handle, reused for every request of one caller. */
struct client {
    const struct rest_shared *sh;
    CURL *h;
    struct curl_slist *headers;
    struct curl_slist *connect_to; /* --authority (rest_curl_reach) */
    char url_get[800], url_put[800];
    uint64_t sent, received;
    char errbuf[CURL_ERROR_SIZE];
};

static size_t discard(char *buf, size_t size, size_t nitems, void *ud)
{
    (void)buf;
    struct client *c = ud;
    c->received += size * nitems;
    return size * nitems;
}

static size_t feed(char *buf, size_t size, size_t nitems, void *ud)
{
    struct client *c = ud;
    uint64_t left = c->sh->body_size - c->sent;
    size_t n = size * nitems;
    if (n > left) n = (size_t)left;
    size_t done = 0;
    while (done < n) {
        size_t off = (size_t)((c->sent + done) % BLOCK);
        size_t k = BLOCK - off;
        if (k > n - done) k = n - done;
        memcpy(buf + done, c->sh->block + off, k);
        done += k;
    }
    c->sent += n;
    return n;
}

static void client_free(struct client *c)
{
    if (!c) return;
    if (c->h) curl_easy_cleanup(c->h);
    curl_slist_free_all(c->headers);
    curl_slist_free_all(c->connect_to);
    free(c);
}

static struct client *client_new(const struct rest_shared *sh, unsigned index, char *err)
{
    struct client *c = calloc(1, sizeof *c);
    if (!c) {
        bench_fmt(err, 256, "out of memory");
        return NULL;
    }
    c->sh = sh;
    c->h = curl_easy_init();
    /* An empty Expect: keeps curl from waiting for 100-continue on uploads. */
    c->headers = curl_slist_append(NULL, "Expect:");
    /* The user's headers (a router's, a gateway's), as on every request. */
    const char **user = request_headers_rest_lines(NULL);
    for (const char **l = user; l && *l && c->headers; l++)
        c->headers = curl_slist_append(c->headers, *l);
    free(user);
    if (!c->h || !c->headers) {
        bench_fmt(err, 256, "curl_easy_init failed");
        client_free(c);
        return NULL;
    }
    bench_fmt(c->url_get, sizeof c->url_get, "%s/v1/files/%s/%s", sh->base, sh->dir,
              sh->get_name ? sh->get_name : "small");
    bench_fmt(c->url_put, sizeof c->url_put, "%s/v1/files/%s/put-%u", sh->base, sh->dir, index);
    CURL *h = c->h;
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)sh->timeout_ms);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->headers);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, feed);
    curl_easy_setopt(h, CURLOPT_READDATA, c);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024L);
    curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, 2L * 1024L * 1024L);
    if (rest_curl_reach(h, sh->addr, &c->connect_to) != 0) {
        bench_fmt(err, 256, "out of memory");
        client_free(c);
        return NULL;
    }
    return c;
}

static int perform(struct client *c, long want, const char *what, char *err)
{
    c->errbuf[0] = '\0';
    CURLcode rc = curl_easy_perform(c->h);
    if (rc != CURLE_OK) {
        bench_fmt(err, 256, "%s: %s", what, c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
        return -1;
    }
    long status = 0;
    curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &status);
    if (status != want) {
        bench_fmt(err, 256, "%s: HTTP %ld, expected %ld", what, status, want);
        return -1;
    }
    return 0;
}

static int do_get(struct client *c, char *err)
{
    c->received = 0;
    curl_easy_setopt(c->h, CURLOPT_UPLOAD, 0L);
    curl_easy_setopt(c->h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c->h, CURLOPT_URL, c->url_get);
    if (perform(c, 200, "GET", err) != 0) return -1;
    if (c->received != c->sh->get_size) {
        bench_fmt(err, 256, "GET: %llu bytes, expected %llu", (unsigned long long)c->received,
                  (unsigned long long)c->sh->get_size);
        return -1;
    }
    return 0;
}

static int do_put(struct client *c, const char *url, char *err)
{
    c->sent = 0;
    c->received = 0;
    curl_easy_setopt(c->h, CURLOPT_URL, url);
    curl_easy_setopt(c->h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c->h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)c->sh->body_size);
    return perform(c, 204, "PUT", err);
}

static int op_get(void *state, char *err)
{
    return do_get(state, err);
}

static int op_put(void *state, char *err)
{
    struct client *c = state;
    return do_put(c, c->url_put, err);
}

static void *setup_client(void *ud, unsigned index, char *err)
{
    return client_new(ud, index, err);
}

static void teardown_client(void *state)
{
    client_free(state);
}

static int64_t xfer_put(void *ud, char *err)
{
    struct client *c = ud;
    char url[800];
    bench_fmt(url, sizeof url, "%s/v1/files/%s/big", c->sh->base, c->sh->dir);
    return do_put(c, url, err) == 0 ? (int64_t)c->sent : -1;
}

static int64_t xfer_get(void *ud, char *err)
{
    struct client *c = ud;
    return do_get(c, err) == 0 ? (int64_t)c->received : -1;
}

/* A request through the suite's REST client, for set-up and clean-up. */
static int plain_request(const char *addr, const char *method, const char *target, const void *body,
                         size_t len, long want, char *err)
{
    struct http_request req = {.method = method,
                               .target = target,
                               .body = body,
                               .body_len = len,
                               .timeout_ms = SMALL_TIMEOUT_MS};
    struct http_response resp;
    int rc = rest_do_at(addr, &req, &resp);
    if (rc != 0)
        bench_fmt(err, 256, "%s %s: %s", method, target, resp.error);
    else if (resp.status != want)
        bench_fmt(err, 256, "%s %s: HTTP %ld, expected %ld", method, target, resp.status, want);
    rc = rc == 0 && resp.status == want ? 0 : -1;
    http_response_free(&resp);
    return rc;
}

static void set_floor(struct bench_figure *f, const char *floor, enum bench_ratio_basis b)
{
    bench_fmt(f->floor, sizeof f->floor, "%s", floor);
    f->basis = b;
}

static void small_figures(struct bench_results *r, const struct bench_opts *o,
                          struct rest_shared *sh)
{
    static const unsigned conns[] = {1, BENCH_CROWD_CALLERS};
    for (int put = 0; put < 2; put++)
        for (size_t k = 0; k < 2; k++) {
            char id[BENCH_ID_MAX], label[96];
            bench_fmt(id, sizeof id, "rest.%s_small_c%u", put ? "put" : "get", conns[k]);
            bench_fmt(label, sizeof label, "REST %s small file, %u connection%s",
                      put ? "PUT" : "GET", conns[k], conns[k] == 1 ? "" : "s");
            struct bench_figure *f = bench_add(r, id, label, "rest", BENCH_LATENCY);
            if (!f) return;
            enum bench_ratio_basis basis = conns[k] == 1 ? BENCH_RATIO_P50 : BENCH_RATIO_THROUGHPUT;
            /* A small PUT is a durable write over a round trip: its floor
             * is the write, the round trip stays beside it. */
            if (put) {
                set_floor(f, conns[k] == 1 ? "floor.sync_one" : "floor.sync_crowd", basis);
                bench_fmt(f->alt_floor, sizeof f->alt_floor, "floor.tcp_rtt");
            } else {
                set_floor(f, "floor.tcp_rtt", basis);
            }
            if (conns[k] == 1) {
                char err[256] = "";
                struct client *c = client_new(sh, 0, err);
                if (!c) {
                    bench_fmt(f->note, sizeof f->note, "not measured: %s", err);
                    continue;
                }
                bench_measure_latency(f, o, put ? op_put : op_get, c);
                client_free(c);
            } else {
                struct bench_workers w = {.setup = setup_client,
                                          .op = put ? op_put : op_get,
                                          .teardown = teardown_client,
                                          .ud = sh};
                bench_measure_concurrent(f, o, conns[k], &w);
            }
        }
}

static void big_figures(struct bench_results *r, const struct bench_opts *o, struct rest_shared *sh,
                        struct bench_mem *mem)
{
    struct bench_figure *fp =
        bench_add(r, "rest.put_big", "REST PUT big file (streamed)", "rest", BENCH_TRANSFER);
    struct bench_figure *fg =
        bench_add(r, "rest.get_big", "REST GET big file (streamed)", "rest", BENCH_TRANSFER);
    struct bench_figure *fm =
        bench_add(r, "memory.rss_growth_rest_big", "runtime RSS growth during big GET/PUT",
                  "memory", BENCH_MEMORY);
    if (!fp || !fg || !fm) return;
    /* A transfer gets a minute plus time for 20 MB/s, so a slow runtime is
     * measured rather than cut off. */
    sh->timeout_ms = (unsigned)((60.0 + (double)o->size / 20e6) * 1000.0);
    sh->body_size = o->size;
    sh->get_size = o->size;
    sh->get_name = "big";
    char err[256] = "";
    struct client *c = client_new(sh, 0, err);
    fp = bench_find(r, "rest.put_big");
    fg = bench_find(r, "rest.get_big");
    fm = bench_find(r, "memory.rss_growth_rest_big");
    if (!c) {
        bench_fmt(fp->note, sizeof fp->note, "not measured: %s", err);
        bench_fmt(fg->note, sizeof fg->note, "not measured: %s", err);
        return;
    }
    set_floor(fp, "floor.file_copy", BENCH_RATIO_THROUGHPUT);
    bench_fmt(fp->alt_floor, sizeof fp->alt_floor, "floor.tcp");
    /* A GET sends a cached file onto a socket: its floor is the same copy
     * without HTTP. The cache-hot TCP copy stays beside it. */
    set_floor(fg, "floor.tcp_file", BENCH_RATIO_THROUGHPUT);
    bench_fmt(fg->alt_floor, sizeof fg->alt_floor, "floor.tcp");

    uint64_t before = 0;
    if (mem) {
        bench_mem_window_begin(mem);
        before = bench_mem_window_peak(mem);
    }
    bench_measure_transfer(fp, o, xfer_put, c, o->size);
    /* The GET reads what the PUT stored; without a stored file it cannot run. */
    if (fp->lat.count > 0)
        bench_measure_transfer(fg, o, xfer_get, c, o->size);
    else
        bench_fmt(fg->note, sizeof fg->note, "not measured: the big PUT failed");
    if (mem) {
        uint64_t peak = bench_mem_window_peak(mem);
        fm->value = peak > before ? (double)(peak - before) : 0.0;
        fm->measured = true;
        char a[24], b[24];
        bench_fmt_bytes(a, sizeof a, (double)before);
        bench_fmt_bytes(b, sizeof b, (double)peak);
        bench_fmt(fm->note, sizeof fm->note, "RSS %s before, peak %s during", a, b);
    } else {
        bench_fmt(fm->note, sizeof fm->note, "not measured: runtime PID unknown (--pid)");
    }
    client_free(c);
}

void bench_rest(struct bench_results *r, const struct bench_opts *o, const char *addr,
                struct bench_mem *mem)
{
    struct rest_shared sh = {.timeout_ms = SMALL_TIMEOUT_MS};
    char err[256] = "", target[200];
    char *block = malloc(BLOCK);
    if (!block || make_base(&sh, addr) != 0) {
        free(block);
        return;
    }
    for (size_t i = 0; i < BLOCK; i++)
        block[i] = (char)('a' + (i * 7 + i / 251) % 26);
    sh.block = block;
    bench_fmt(sh.dir, sizeof sh.dir, "sbx-bench-%d-%lx", (int)getpid(), (unsigned long)time(NULL));
    bench_fmt(target, sizeof target, "/v1/files/%s/small", sh.dir);
    sh.body_size = o->small_size;
    sh.get_size = o->small_size;
    sh.get_name = "small";
    char *small = malloc((size_t)o->small_size);
    if (small) {
        for (uint64_t i = 0; i < o->small_size; i++)
            small[i] = block[i % BLOCK];
    }
    if (!small || plain_request(addr, "PUT", target, small, (size_t)o->small_size, 204, err)) {
        struct bench_figure *f =
            bench_add(r, "rest.get_small_c1", "REST small-file set-up", "rest", BENCH_LATENCY);
        if (f)
            bench_fmt(f->note, sizeof f->note, "not measured: %s", small ? err : "out of memory");
    } else {
        small_figures(r, o, &sh);
        big_figures(r, o, &sh, mem);
    }
    free(small);
    bench_fmt(target, sizeof target, "/v1/files/%s?recursive=true", sh.dir);
    if (plain_request(addr, "DELETE", target, NULL, 0, 204, err) != 0 && !o->quiet)
        fprintf(stderr, "bench: clean-up failed: %s\n", err);
    free(block);
}
