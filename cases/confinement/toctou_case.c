/* S7: a bounded time-of-check/time-of-use race. A process started through
 * the process API swaps a directory inside the case directory for a symlink
 * to an outside canary directory as fast as it can, while REST clients read,
 * write and list through the path. No read may return outside content and
 * nothing outside may be created or changed. */
#include "case_api.h"
#include "common/conf_util.h"
#include "confinement/canary.h"
#include "process_client.h"
#include "rest_client.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RACE_MS 3000u
#define RACE_THREADS 3
#define RACE_OPS 64 /* length of each thread's (seeded) operation cycle */

enum race_op { OP_GET_FILE, OP_GET_INNER, OP_PUT_NEW, OP_PUT_INNER, OP_LIST, OP_KINDS };

struct race_worker {
    pthread_t tid;
    int index;
    const char *rest_addr;
    const char *case_dir;
    const struct canary_set *c;
    uint64_t deadline_ms;
    unsigned char ops[RACE_OPS];
    /* results */
    unsigned requests, ok_reads, violations;
    char first_violation[400];
};

static void violation(struct race_worker *w, const char *what, const char *target)
{
    if (w->violations++ == 0)
        snprintf(w->first_violation, sizeof w->first_violation, "GET %s %s", target, what);
}

static bool listing_reveals(const struct canary_set *c, const struct http_response *r)
{
    json_error_t jerr;
    json_t *doc = json_loadb(r->body, r->body_len, 0, &jerr);
    json_t *entries = json_object_get(doc, "entries");
    bool bad = false;
    size_t i;
    json_t *ent;
    json_array_foreach(entries, i, ent)
    {
        json_t *size = json_object_get(ent, "size");
        const char *mt = json_string_value(json_object_get(ent, "modified_at"));
        if ((json_is_integer(size) && canary_size_matches(c, json_integer_value(size))) ||
            (mt && strncmp(mt, "2001-02-0", 9) == 0))
            bad = true;
    }
    json_decref(doc);
    return bad;
}

static void *race_worker_main(void *arg)
{
    struct race_worker *w = arg;
    const struct canary_set *c = w->c;
    static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
    for (unsigned i = 0; case_now_ms() < w->deadline_ms && i < 100000; i++) {
        enum race_op op = (enum race_op)w->ops[i % RACE_OPS];
        char rel[300], body[200];
        const char *method = "GET";
        body[0] = '\0';
        switch (op) {
        case OP_GET_FILE:
            snprintf(rel, sizeof rel, "%s/race/f", w->case_dir);
            break;
        case OP_GET_INNER:
            snprintf(rel, sizeof rel, "%s/race/%s", w->case_dir, c->pinner);
            break;
        case OP_PUT_NEW:
            snprintf(rel, sizeof rel, "%s/race/%s-new-r%d-%u", w->case_dir, c->id, w->index, i);
            method = "PUT";
            break;
        case OP_PUT_INNER:
            snprintf(rel, sizeof rel, "%s/race/%s", w->case_dir, c->pinner);
            method = "PUT";
            break;
        default:
            snprintf(rel, sizeof rel, "%s/race", w->case_dir);
            break;
        }
        if (strcmp(method, "PUT") == 0)
            snprintf(body, sizeof body, "RACEWRITE-%s-%d-%u", c->hex, w->index, i);
        char *target = rest_files_target(rel);
        struct http_request req = {.method = method,
                                   .target = target,
                                   .body = body[0] ? body : NULL,
                                   .body_len = strlen(body),
                                   .headers = body[0] ? octet : NULL,
                                   .timeout_ms = 5000,
                                   .max_body = 64 * 1024};
        struct http_response resp = {0};
        int rc = rest_do_at(w->rest_addr, &req, &resp);
        w->requests++;
        if (rc == 0 && resp.status == 200 && strcmp(method, "GET") == 0) {
            w->ok_reads++;
            if (conf_memmem(resp.body, resp.body_len, c->secret_tag, strlen(c->secret_tag)))
                violation(w, "returned the content of the canary outside the root", target);
            else if (op == OP_LIST && listing_reveals(c, &resp))
                violation(w, "listed the outside directory (canary size or mtime)", target);
        }
        http_response_free(&resp);
        free(target);
    }
    return NULL;
}

static char *swap_script(const struct canary_set *c)
{
    char *qp = conf_sh_quote(c->parent);
    char *s = conf_xasprintf(
        "P=%s; ID='%s'\n"
        "end=$(( $(date +%%s) + %u )); n=0\n"
        "while [ \"$(date +%%s)\" -lt \"$end\" ] && [ $n -lt 200000 ]; do\n"
        "  for i in 1 2 3 4 5 6 7 8 9 10; do\n"
        "    mv race race.real && ln -s \"$P/$ID-dir\" race && rm race && mv race.real race\n"
        "    n=$((n+1))\n"
        "  done\n"
        "done\n"
        "if [ -L race ]; then rm race; fi\n"
        "if [ -d race.real ] && [ ! -e race ]; then mv race.real race; fi\n"
        "echo \"swaps $n\"\n",
        qp, c->id, (RACE_MS + 999) / 1000 + 1);
    free(qp);
    return s;
}

static void s7_toctou(struct case_ctx *ctx)
{
    struct canary_set c = {0};
    char why[300];
    char *diff = NULL;
    if (canary_plant(ctx, &c) != 0) goto out;
    if (!c.have_parent) {
        case_skip(ctx, "the race needs a canary directory in the root's parent, which is not "
                       "writable");
        goto out;
    }
    char *setup = conf_xasprintf("rm -rf race race.real && mkdir race && printf %%s 'INSIDE-%s' > "
                                 "race/f && printf %%s 'INSIDE-%s' > race/%s",
                                 c.hex, c.hex, c.pinner);
    int rc = conf_sh(ctx, setup, NULL, why, sizeof why);
    free(setup);
    if (rc != 0) {
        case_error(ctx, "could not prepare the race directory: %s", why);
        goto out;
    }
    if (canary_check(ctx, &c, &diff) != 0) {
        case_error(ctx, "outside state changed during set-up: %s", diff ? diff : "");
        free(diff);
        diff = NULL;
        goto out;
    }

    char *script = swap_script(&c);
    const char *argv[] = {"sh", "-c", script, NULL};
    struct proc_spec spec = {.argv = argv, .cwd = case_dir(ctx), .timeout_ms = 30000};
    struct proc_stream *swapper = proc_start(ctx, &spec, NULL);
    free(script);
    if (!swapper) {
        case_fail(ctx, "Start runs the swapping shell loop (P7)", "Start failed");
        goto out;
    }

    struct race_worker w[RACE_THREADS];
    uint64_t deadline = case_now_ms() + RACE_MS;
    int started = 0;
    for (int t = 0; t < RACE_THREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].index = t;
        w[t].rest_addr = case_rest_addr(ctx);
        w[t].case_dir = case_dir(ctx);
        w[t].c = &c;
        w[t].deadline_ms = deadline;
        for (int k = 0; k < RACE_OPS; k++)
            w[t].ops[k] = (unsigned char)(case_rand(ctx) % OP_KINDS);
        if (pthread_create(&w[t].tid, NULL, race_worker_main, &w[t]) != 0) break;
        started++;
    }
    unsigned requests = 0, reads = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(w[t].tid, NULL);
        requests += w[t].requests;
        reads += w[t].ok_reads;
        if (w[t].violations) {
            case_request(ctx, "concurrent requests through race/ while it is swapped");
            case_fail(ctx, "no read returns anything from outside the root",
                      "%u violation(s) in client %d; first: %s", w[t].violations, t,
                      w[t].first_violation);
        }
    }
    if (started < RACE_THREADS) case_error(ctx, "could not start the client threads");

    struct proc_result r = {0};
    int32_t pid = 0;
    int end = proc_collect(swapper, 20000, &r, &pid);
    proc_stream_free(swapper);
    long swaps = 0; /* stays 0 unless the loop printed its count */
    const char *summary = (const char *)r.out;
    if (end == 0 && summary && strncmp(summary, "swaps", 5) == 0)
        conf_parse_longs(summary + 5, ' ', &swaps, 1);
    case_note(ctx, "%ld swaps, %u requests, %u successful reads in %u ms", swaps, requests, reads,
              RACE_MS);
    /* A Start that ended with an error status never ran the loop: the
     * runtime broke P7, and the race was not exercised. */
    if (swaps == 0 && !case_failed(ctx) && end == 0 && r.code != 0)
        case_fail(ctx, "Start runs the swapping shell loop (P7: the stream ends with OK)",
                  "the stream ended with status %d (%s)", r.code, r.message ? r.message : "");
    else if (swaps == 0 && !case_failed(ctx))
        case_error(ctx, "the swapping loop did not run (Start ended with %d, status %d)", end,
                   r.code);
    proc_result_free(&r);

    /* Anything written outside shows up here: a new name with our id in the
     * canary directory, or the canary changed. */
    if (canary_check(ctx, &c, &diff) == 1) {
        case_request(ctx, "concurrent PUTs through race/ while it is swapped");
        case_fail(ctx, "no write lands outside the root", "%s", diff);
    }
    free(diff);
out:
    conf_sh(ctx, "rm -rf race race.real", NULL, why, sizeof why);
    canary_remove(ctx, &c);
    canary_free(&c);
}
SBX_CASE(s7_toctou, .id = "S7-001",
         .title = "Confinement holds while a directory is swapped for a symlink to outside",
         .clauses = "S7", .level = LEVEL_SHOULD, .tags = "files,traversal,concurrency",
         .timeout_s = 45,
         .catches = "check-then-open by path (resolve, verify, then open the string again): a "
                    "concurrent swap of a directory for a link to outside lets reads return "
                    "outside content, writes land outside or listings show the outside directory",
         .how = "a Start process swaps race/ for a symlink to an outside canary directory (mv, "
                "ln -s, rm, mv) as fast as it can for about 3 s while three REST clients "
                "GET, PUT (new names and an existing name) and list through race/ in a seeded "
                "order; no read may carry canary content or a listing a canary's size or mtime, "
                "and afterwards Execute must find no new name and no change in the canary "
                "directory");
