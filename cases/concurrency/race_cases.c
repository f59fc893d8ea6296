/* SPDX-License-Identifier: Apache-2.0 */
/* C1-C3: concurrent writers, readers and deleters on one path, each bounded
 * to a few seconds. Every body is a self-verifying payload (common/payload.h:
 * seed and length in a header, checksum in a trailer, bytes a function of
 * seed and offset), so a torn, truncated or mixed read is detected byte-exact
 * without knowing which version it should be. */
#include "case_api.h"
#include "common/conf_util.h"
#include "common/rest_expect.h"
#include "concurrency/conc_util.h"
#include "concurrency/raw_http.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RACE_MS 3000u
#define MAX_VERSIONS 256

/* A payload size between 256 KiB and about 1.2 MiB, from the seed stream. */
static size_t version_size(struct case_ctx *ctx)
{
    return 256 * 1024 + (size_t)(case_rand(ctx) % (1024 * 1024)) + PAYLOAD_MIN_LEN;
}

/* ---- C1: writers vs readers --------------------------------------------- */

struct c1_shared {
    const char *addr;
    char *target;
    uint64_t deadline;
    uint64_t seeds[MAX_VERSIONS + 1];
    size_t sizes[MAX_VERSIONS + 1];
    size_t nversions;
};

struct c1_worker {
    pthread_t tid;
    struct c1_shared *sh;
    int index;
    bool writer;
    unsigned ops, ok, torn, foreign;
    char first_bad[300];
};

static void *c1_main(void *arg)
{
    struct c1_worker *w = arg;
    struct c1_shared *sh = w->sh;
    for (unsigned i = 0; case_now_ms() < sh->deadline && i < 10000; i++) {
        w->ops++;
        if (w->writer) {
            /* Writers take alternate versions: 1, 3, 5 ... and 2, 4, 6 ... */
            size_t v = 1 + ((size_t)w->index + 2 * i) % sh->nversions;
            if (conc_put_payload(sh->addr, sh->target, sh->seeds[v], sh->sizes[v]) == 204) w->ok++;
            continue;
        }
        bool complete;
        uint64_t seed = 0;
        char why[200] = "";
        long s = conc_get_payload(sh->addr, sh->target, &complete, &seed, why, sizeof why);
        if (s != 200) continue; /* a read racing a rename may fail */
        w->ok++;
        if (!complete) {
            if (w->torn++ == 0) snprintf(w->first_bad, sizeof w->first_bad, "%s", why);
        } else if (!conc_seed_in(seed, sh->seeds, sh->nversions + 1)) {
            if (w->foreign++ == 0)
                snprintf(w->first_bad, sizeof w->first_bad,
                         "a complete payload of seed %016llx, which no writer wrote",
                         (unsigned long long)seed);
        }
    }
    return NULL;
}

static void c1_write_read(struct case_ctx *ctx)
{
    struct c1_shared sh = {.addr = case_rest_addr(ctx), .nversions = 16};
    sh.target = conc_target(case_dir(ctx), "c1.bin", NULL);
    for (size_t v = 0; v <= sh.nversions; v++) {
        sh.seeds[v] = case_rand(ctx);
        sh.sizes[v] = version_size(ctx);
    }
    case_request(ctx, "PUT %s (initial version)", sh.target);
    long s = conc_put_payload(sh.addr, sh.target, sh.seeds[0], sh.sizes[0]);
    if (s != 204) {
        case_fail(ctx, "PUT of the initial version answers 204 (F1)", "status %ld", s);
        free(sh.target);
        return;
    }
    enum { WRITERS = 2, READERS = 3 };
    struct c1_worker w[WRITERS + READERS];
    sh.deadline = case_now_ms() + RACE_MS;
    int started = 0;
    for (int t = 0; t < WRITERS + READERS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].sh = &sh;
        w[t].index = t;
        w[t].writer = t < WRITERS;
        if (pthread_create(&w[t].tid, NULL, c1_main, &w[t]) != 0) break;
        started++;
    }
    unsigned writes = 0, reads = 0, okreads = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(w[t].tid, NULL);
        if (w[t].writer) {
            writes += w[t].ok;
            continue;
        }
        reads += w[t].ops;
        okreads += w[t].ok;
        if (w[t].torn || w[t].foreign) {
            case_request(ctx, "GET %s while PUTs overwrite it", sh.target);
            case_fail(ctx, "every successful read returns one complete version",
                      "reader %d: %u torn and %u foreign of %u successful reads; first: %s", t,
                      w[t].torn, w[t].foreign, w[t].ok, w[t].first_bad);
        }
    }
    if (started < WRITERS + READERS) case_error(ctx, "could not start the worker threads");
    case_note(ctx, "%u successful PUTs, %u reads of which %u answered 200, in %u ms", writes, reads,
              okreads, RACE_MS);
    if (!case_failed(ctx) && okreads == 0 && writes > 0) {
        /* Reads may fail while writers rename (C1); once they stopped, a
         * GET of the stored file must succeed (F7), or the runtime cannot
         * serve files at all. */
        bool complete;
        uint64_t seed = 0;
        char why[200] = "";
        case_request(ctx, "GET %s (after the writers stopped)", sh.target);
        long gs = conc_get_payload(sh.addr, sh.target, &complete, &seed, why, sizeof why);
        if (gs != 200)
            case_fail(ctx, "GET of the stored file answers 200 once the writers stopped (F7)",
                      "status %ld %s", gs, why);
        else if (!complete)
            case_fail(ctx, "the file holds one complete version once the writers stopped",
                      "torn content: %s", why);
    }
    if (!case_failed(ctx) && (okreads == 0 || writes == 0))
        case_skip(ctx,
                  "no read (%u) or no write (%u) succeeded while the other ran: nothing to "
                  "check",
                  okreads, writes);
    free(sh.target);
}
SBX_CASE(c1_write_read, .id = "C1-001",
         .title = "Reads racing overwrites return one complete version, never a torn one",
         .clauses = "C1", .level = LEVEL_MUST, .tags = "files,concurrency", .timeout_s = 30,
         .catches = "PUT writing in place (truncate then write), so a concurrent GET returns a "
                    "prefix, a mix of two versions, or a file cut short",
         .how = "two threads overwrite one path with self-verifying payloads (256 KiB to 1.2 MiB, "
                "seeded) while three threads GET it for 3 s; every 200 must be exactly one "
                "complete payload that a writer wrote (checked byte-exact as it streams in); "
                "failed reads are allowed");

/* ---- C2: concurrent writers ---------------------------------------------- */

enum { C2_WRITERS = 4, C2_ROUNDS = 12 };

struct c2_worker {
    pthread_t tid;
    pthread_barrier_t *barrier;
    const char *addr;
    const char *target;
    uint64_t seed;
    size_t size;
    long status;
};

static void *c2_main(void *arg)
{
    struct c2_worker *w = arg;
    pthread_barrier_wait(w->barrier);
    w->status = conc_put_payload(w->addr, w->target, w->seed, w->size);
    return NULL;
}

static void c2_writers(struct case_ctx *ctx)
{
    const char *addr = case_rest_addr(ctx);
    char *target = conc_target(case_dir(ctx), "c2.bin", NULL);
    uint64_t deadline = case_now_ms() + RACE_MS;
    uint64_t prev_seed = 0;
    bool have_prev = false;
    unsigned rounds = 0, puts_ok = 0;
    long last_status = 0;
    for (int r = 0; r < C2_ROUNDS && case_now_ms() < deadline && !case_failed(ctx); r++) {
        pthread_barrier_t barrier;
        pthread_barrier_init(&barrier, NULL, C2_WRITERS);
        struct c2_worker w[C2_WRITERS];
        uint64_t seeds[C2_WRITERS + 1];
        int started = 0;
        for (int t = 0; t < C2_WRITERS; t++) {
            w[t] = (struct c2_worker){.barrier = &barrier,
                                      .addr = addr,
                                      .target = target,
                                      .seed = case_rand(ctx),
                                      .size = version_size(ctx)};
            seeds[t] = w[t].seed;
        }
        for (int t = 0; t < C2_WRITERS; t++) {
            if (pthread_create(&w[t].tid, NULL, c2_main, &w[t]) != 0) break;
            started++;
        }
        if (started < C2_WRITERS) {
            /* The barrier needs every party: release the started ones. */
            for (int t = started; t < C2_WRITERS; t++)
                pthread_barrier_wait(&barrier);
        }
        unsigned ok = 0;
        for (int t = 0; t < started; t++) {
            pthread_join(w[t].tid, NULL);
            if (w[t].status == 204) ok++;
            last_status = w[t].status;
        }
        puts_ok += ok;
        pthread_barrier_destroy(&barrier);
        if (started < C2_WRITERS) {
            case_error(ctx, "could not start the writer threads");
            break;
        }
        /* The last successful rename decides: once a PUT of the round
         * succeeded, the previous content is no longer acceptable. */
        size_t nacc = C2_WRITERS;
        if (have_prev && ok == 0) seeds[nacc++] = prev_seed;
        bool complete;
        uint64_t seed = 0;
        char why[200] = "";
        case_request(ctx, "GET %s after %d concurrent PUTs (round %d)", target, C2_WRITERS, r + 1);
        long s = conc_get_payload(addr, target, &complete, &seed, why, sizeof why);
        rounds++;
        if (s != 200) {
            if (ok > 0 || have_prev)
                case_fail(ctx, "the path holds one of the written versions",
                          "status %ld after %u successful PUTs", s, ok);
            continue;
        }
        if (!complete)
            case_fail(ctx, "the final content is exactly one complete version", "torn content: %s",
                      why);
        else if (!conc_seed_in(seed, seeds, nacc))
            case_fail(ctx, "the final content is one of the versions written",
                      "a complete payload of seed %016llx, written by nobody in this round",
                      (unsigned long long)seed);
        prev_seed = seed;
        have_prev = complete;
    }
    case_note(ctx, "%u rounds of %d concurrent PUTs", rounds, C2_WRITERS);
    /* With no PUT accepted there was no concurrent write to judge: the
     * runtime broke F1 (a PUT stores its body and answers 204). */
    if (rounds > 0 && puts_ok == 0 && !case_failed(ctx))
        case_fail(ctx, "concurrent PUTs of new content are stored and answer 204 (F1)",
                  "none of %u PUTs succeeded (last status %ld)", rounds * C2_WRITERS, last_status);
    free(target);
}
SBX_CASE(c2_writers, .id = "C2-001",
         .title = "Concurrent PUTs to one path leave exactly one complete version", .clauses = "C2",
         .level = LEVEL_MUST, .tags = "files,concurrency", .timeout_s = 30,
         .catches = "writers interleaving in one file (in-place writes, a shared temporary "
                    "name), leaving a mix of versions or a version cut short; concurrent PUTs "
                    "answered 204 but not applied",
         .how = "rounds (up to 12 in 3 s) of four PUTs of different self-verifying payloads "
                "released together by a barrier; after each round the path must hold one "
                "complete payload of that round (the previous content only if no PUT of the "
                "round succeeded)");

/* ---- C3: write vs delete ------------------------------------------------- */

struct c3_worker {
    pthread_t tid;
    pthread_barrier_t *barrier;
    const char *addr;
    char *target;
    int kind; /* 0 full PUT, 1 aborted PUT, 2 DELETE */
    uint64_t seed;
    size_t size;
    long status;
};

static void *c3_main(void *arg)
{
    struct c3_worker *w = arg;
    pthread_barrier_wait(w->barrier);
    if (w->kind == 0)
        w->status = conc_put_payload(w->addr, w->target, w->seed, w->size);
    else if (w->kind == 1)
        w->status = conc_put_aborted(w->addr, w->target, w->seed, w->size, w->size / 2);
    else
        w->status = conc_delete(w->addr, w->target);
    return NULL;
}

/* Runs rounds of (full PUT, aborted PUT, DELETE) on <dir>/sub/f, started
 * together; after each, the path must be absent or one complete version of
 * a full PUT. Returns the number of rounds run. */
static unsigned c3_rounds(struct case_ctx *ctx, const char *dir, unsigned max_rounds,
                          unsigned budget_ms)
{
    const char *addr = case_rest_addr(ctx);
    char *rel_file = conf_xasprintf("%s/sub/f", dir);
    char *rel_sub = conf_xasprintf("%s/sub", dir);
    char *file = conc_target(case_dir(ctx), rel_file, NULL);
    uint64_t full_seeds[64];
    unsigned nfull = 0, rounds = 0;
    /* First without a race: a write whose client goes away halfway fails,
     * and must leave the complete version before it in place. */
    full_seeds[nfull++] = case_rand(ctx);
    case_request(ctx, "PUT %s, then a PUT whose client hangs up halfway, then GET", file);
    long put = conc_put_payload(addr, file, full_seeds[0], version_size(ctx));
    if (put >= 200 && put < 300) {
        conc_put_aborted(addr, file, case_rand(ctx), 1024 * 1024 + PAYLOAD_MIN_LEN,
                         (1024 * 1024 + PAYLOAD_MIN_LEN) / 2);
        bool whole;
        uint64_t got = 0;
        char why0[200] = "";
        long s0 = conc_get_payload(addr, file, &whole, &got, why0, sizeof why0);
        if (s0 != 200 || !whole || got != full_seeds[0])
            case_fail(ctx, "the complete earlier version is still there after a failed PUT",
                      "status %ld, %s", s0, whole ? "another version" : why0);
    } else {
        case_fail(ctx, "a plain PUT succeeds", "status %ld", put);
    }
    uint64_t deadline = case_now_ms() + budget_ms;
    for (unsigned r = 0; r < max_rounds && r < 64 && case_now_ms() < deadline; r++) {
        pthread_barrier_t barrier;
        pthread_barrier_init(&barrier, NULL, 3);
        struct c3_worker w[3];
        for (int k = 0; k < 3; k++) {
            w[k] = (struct c3_worker){.barrier = &barrier, .addr = addr, .kind = k};
            w[k].seed = case_rand(ctx);
            w[k].size = k == 1 ? 1024 * 1024 + PAYLOAD_MIN_LEN : version_size(ctx);
            /* Deletes alternate between the file and its directory. */
            w[k].target = k == 2 ? conc_target(case_dir(ctx), r % 2 ? rel_file : rel_sub,
                                               r % 2 ? NULL : "recursive=true")
                                 : conf_xstrdup(file);
        }
        full_seeds[nfull++] = w[0].seed;
        int started = 0;
        for (int k = 0; k < 3; k++) {
            if (pthread_create(&w[k].tid, NULL, c3_main, &w[k]) != 0) break;
            started++;
        }
        for (int k = started; k < 3; k++)
            pthread_barrier_wait(&barrier);
        for (int k = 0; k < started; k++)
            pthread_join(w[k].tid, NULL);
        pthread_barrier_destroy(&barrier);
        for (int k = 0; k < 3; k++)
            free(w[k].target);
        if (started < 3) {
            case_error(ctx, "could not start the worker threads");
            break;
        }
        rounds++;
        bool complete;
        uint64_t seed = 0;
        char why[200] = "";
        case_request(ctx, "GET %s after a PUT, an aborted PUT and a DELETE raced (round %u)", file,
                     r + 1);
        long s = conc_get_payload(addr, file, &complete, &seed, why, sizeof why);
        if (s == 404) continue;
        if (s != 200)
            case_fail(ctx, "the path is absent (404) or holds one complete version", "status %ld",
                      s);
        else if (!complete)
            case_fail(ctx, "the path is absent or holds one complete version", "torn content: %s",
                      why);
        else if (!conc_seed_in(seed, full_seeds, nfull))
            case_fail(ctx, "the path holds a version a completed PUT wrote",
                      "a complete payload of seed %016llx", (unsigned long long)seed);
    }
    free(file);
    free(rel_file);
    free(rel_sub);
    return rounds;
}

static void c3_write_delete(struct case_ctx *ctx)
{
    unsigned rounds = c3_rounds(ctx, "c3", 15, RACE_MS);
    case_note(ctx, "%u rounds", rounds);
}
SBX_CASE(c3_write_delete, .id = "C3-001",
         .title = "PUT racing DELETE leaves the path absent or one complete version",
         .clauses = "C3", .level = LEVEL_MUST, .tags = "files,concurrency", .timeout_s = 30,
         .catches = "non-atomic writes racing deletes: a write cut short (client gone) or "
                    "interrupted by a delete of its directory leaves a partial file at the path",
         .how = "rounds (up to 15 in 3 s) start together a complete PUT, a PUT whose client "
                "aborts halfway, and a DELETE of the file or (recursively) its directory; "
                "afterwards GET must answer 404 or one complete payload of a complete PUT");

static bool c3_dir_clean(struct case_ctx *ctx, const char *dir, char **left)
{
    char *q = conf_sh_quote(dir);
    char *script = conf_xasprintf("cd %s 2>/dev/null || exit 0; find . -mindepth 1 -print", q);
    char *out = NULL;
    char why[200];
    int rc = conf_sh(ctx, script, &out, why, sizeof why);
    free(script);
    free(q);
    struct sbuf extra = {0};
    if (rc == 0 && out) {
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            if (strcmp(line, "./sub") == 0 || strcmp(line, "./sub/f") == 0 ||
                strcmp(line, "./sub/trunc") == 0)
                continue;
            sbuf_printf(&extra, "%s%s", extra.len ? ", " : "", line);
        }
    } else {
        sbuf_printf(&extra, "(could not list: %s)", why);
    }
    free(out);
    *left = extra.len ? sbuf_take(&extra) : NULL;
    sbuf_free(&extra);
    return *left == NULL;
}

static void c3_no_temp(struct case_ctx *ctx)
{
    const char *addr = case_rest_addr(ctx);
    c3_rounds(ctx, "c3s", 6, 1500);
    /* An upload that stops halfway and hangs up. */
    char *trunc = conc_target(case_dir(ctx), "c3s/sub/trunc", NULL);
    struct raw_conn *fd = raw_connect(addr, 5000);
    if (fd) {
        static char half[32 * 1024];
        memset(half, 'x', sizeof half);
        case_request(ctx, "PUT %s (Content-Length 65536, 32768 bytes sent, then closed)", trunc);
        if (raw_send_head(fd, addr, "PUT", trunc, 65536,
                          "Content-Type: application/octet-stream\r\n"))
            raw_send_all(fd, half, sizeof half);
        usleep(200 * 1000);
        raw_close(fd);
    }
    free(trunc);
    /* And a plain successful PUT. */
    char *file = conc_target(case_dir(ctx), "c3s/sub/f", NULL);
    case_request(ctx, "PUT %s", file);
    long s = conc_put_payload(addr, file, case_rand(ctx), 64 * 1024);
    if (s != 204) case_fail(ctx, "PUT answers 204 (F1)", "status %ld", s);
    free(file);

    /* Temporary files may take a moment to go after a failed upload. */
    char *left = NULL;
    uint64_t deadline = case_now_ms() + 8000;
    bool clean = false;
    while (!(clean = c3_dir_clean(ctx, "c3s", &left)) && case_now_ms() < deadline) {
        free(left);
        left = NULL;
        usleep(250 * 1000);
    }
    if (!clean) {
        case_request(ctx, "Execute `find c3s` after the PUTs, deletes and aborted uploads");
        case_fail(ctx, "no temporary files left (only sub and sub/f)", "left behind: %s", left);
    }
    free(left);
    /* The REST listing must agree. */
    char *rel = rx_path(ctx, "c3s/sub");
    json_t *listing = rel ? rx_list(ctx, rel) : NULL;
    if (listing) {
        size_t i;
        json_t *ent;
        json_array_foreach(json_object_get(listing, "entries"), i, ent)
        {
            const char *name = json_string_value(json_object_get(ent, "name"));
            if (name && strcmp(name, "f") != 0 && strcmp(name, "trunc") != 0)
                case_fail(ctx, "the listing shows no temporary files", "entry \"%s\"", name);
        }
        json_decref(listing);
    }
    free(rel);
}
SBX_CASE(c3_no_temp, .id = "C3-002",
         .title = "No temporary files are left after racing, failed and aborted PUTs",
         .clauses = "C3", .level = LEVEL_SHOULD, .tags = "files,concurrency", .timeout_s = 30,
         .catches = "temporary files of PUTs left beside the target after a PUT completes, fails "
                    "because a delete removed its directory, or is abandoned by its client",
         .how = "runs write/delete races (as C3-001) in c3s/, an upload that hangs up halfway "
                "and a plain PUT; then, within 8 s, Execute `find` in c3s must show only sub and "
                "sub/f, and the REST listing of c3s/sub only f");
