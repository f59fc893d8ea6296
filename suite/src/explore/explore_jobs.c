/* SPDX-License-Identifier: Apache-2.0 */
/* The threads of concurrent jobs and their contended operations. */
#include "explore_jobs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore_ops.h"
#include "explore_rng.h"
#include "rest_client.h"

#define CONTENDED_PERCENT 30
#define REG_TIMEOUT_MS 10000

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *reg_target(const char *shared, int reg)
{
    struct xop op;
    memset(&op, 0, sizeof op);
    op.kind = XOP_GET;
    snprintf(op.path, sizeof op.path, "c%d", reg);
    return xrt_files_target(shared, &op);
}

/* One contended PUT of a fresh version, or one GET. */
static void contended(struct xjob *j, struct xrng *r, uint64_t *counter)
{
    struct xreg_event e = {.job = j->index, .reg = (int)xrng_below(r, XREG_COUNT)};
    e.write = xrng_chance(r, 50);
    char *target = reg_target(j->shared, e.reg);
    struct http_request req = {.target = target, .timeout_ms = REG_TIMEOUT_MS};
    uint8_t *body = NULL;
    size_t len = 0;
    const char *headers[] = {"Content-Type: application/octet-stream", NULL};
    if (e.write) {
        e.version = ((uint64_t)(j->index + 1) << 40) | ++*counter;
        body = xreg_body(e.version, &len);
        req.method = "PUT";
        req.body = body;
        req.body_len = len;
        req.headers = headers;
    } else {
        req.method = "GET";
    }
    struct http_response resp;
    e.t0 = now_s();
    int rc = rest_do_at(j->rest, &req, &resp);
    e.t1 = now_s();
    e.status = rc == 0 ? resp.status : 0;
    if (!e.write && e.status == 200)
        e.version = resp.body_truncated ? XREG_TORN
                                        : xreg_identify((const uint8_t *)resp.body, resp.body_len);
    http_response_free(&resp); /* filled on a transport error too */
    xreg_record(j->history, &e);
    j->contended++;
    free(body);
    free(target);
}

static void *job_main(void *arg)
{
    struct xjob *j = arg;
    struct xrt rt;
    struct xmodel m;
    struct xrng r;
    uint64_t counter = 0;
    xrng_seed(&r, j->seed ^ 0x5bd1e995u);
    xrt_init(&rt, j->grpc, j->rest);
    rt.ids_shared = true;
    xmodel_init(&m);
    if (xrt_begin(&rt, j->ws, j->why, sizeof j->why) != 0) j->setup_failed = true;
    for (size_t k = 0; k < j->n && !j->setup_failed; k++) {
        if (xrng_chance(&r, CONTENDED_PERCENT)) contended(j, &r, &counter);
        struct xans a;
        xrt_exec(&rt, &j->ops[k], &a);
        int bad = xmodel_step(&m, &j->ops[k], &a, &j->f);
        xcov_add(&j->cov, &j->ops[k], &a);
        j->ops_run++;
        if (bad) {
            j->found = true;
            j->at = k;
            j->last = a; /* taken over */
            memset(&a, 0, sizeof a);
            if (j->ops[k].kind == XOP_METADATA) xans_withhold_body(&j->last);
        }
        xans_free(&a);
        if (bad) break;
    }
    char why[600];
    if (xrt_end(&rt, why, sizeof why) != 0)
        fprintf(stderr, "explore: job %d: workspace %s not removed: %s\n", j->index, j->ws, why);
    xrt_release(&rt);
    xmodel_free(&m);
    return NULL;
}

void xjobs_run(struct xjob *jobs, size_t n)
{
    pthread_t *t = calloc(n, sizeof *t);
    bool *started = calloc(n, sizeof *started);
    if (!t || !started) abort();
    for (size_t i = 0; i < n; i++)
        started[i] = pthread_create(&t[i], NULL, job_main, &jobs[i]) == 0;
    for (size_t i = 0; i < n; i++) {
        if (started[i])
            pthread_join(t[i], NULL);
        else
            job_main(&jobs[i]); /* no thread: run it here, still bounded */
    }
    free(t);
    free(started);
}

void xjobs_read_final(const char *grpc, const char *rest, const char *shared, uint64_t *final,
                      bool *final_known)
{
    (void)grpc;
    for (int reg = 0; reg < XREG_COUNT; reg++) {
        char *target = reg_target(shared, reg);
        struct http_request req = {.method = "GET", .target = target, .timeout_ms = REG_TIMEOUT_MS};
        struct http_response resp;
        final_known[reg] = false;
        if (rest_do_at(rest, &req, &resp) == 0) {
            if (resp.status == 404) {
                final[reg] = 0;
                final_known[reg] = true;
            } else if (resp.status == 200) {
                final[reg] = xreg_identify((const uint8_t *)resp.body, resp.body_len);
                final_known[reg] = true;
            }
        }
        http_response_free(&resp); /* filled on a transport error too */
        free(target);
    }
}
