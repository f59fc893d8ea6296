/* SPDX-License-Identifier: Apache-2.0 */
/* M1, M2: the readiness probe. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf_util.h"
#include "common/rest_expect.h"
#include "lifecycle/lc_util.h"

/* GET /v1/health: 200 with a JSON body. With full, the whole body is
 * validated against the document's HealthResponse (uptime_seconds
 * included); otherwise uptime_seconds, a SHOULD of M1, is left out of the
 * validation. t_before/t_after (may be NULL) bracket the request. */
static json_t *get_health(struct case_ctx *ctx, bool full, uint64_t *t_before, uint64_t *t_after)
{
    struct http_response r;
    json_t *v = NULL;
    if (t_before) *t_before = case_now_ms();
    bool got = rx_send(ctx, NULL, "GET", "/v1/health", NULL, 0, NULL, &r);
    if (t_after) *t_after = case_now_ms();
    if (!got) return NULL;
    if (full) {
        if (expect_status(ctx, &r, 200) && expect_schema(ctx, &r, "/v1/health", "GET"))
            v = expect_json(ctx, &r);
    } else if (expect_status(ctx, &r, 200)) {
        v = expect_json(ctx, &r);
        json_t *shape = v ? json_deep_copy(v) : NULL;
        if (shape) {
            json_object_del(shape, "uptime_seconds");
            if (!expect_valid(ctx, "HealthResponse", shape, "the health body")) {
                json_decref(v);
                v = NULL;
            }
        }
        json_decref(shape);
    }
    http_response_free(&r);
    return v;
}

static void health_ok(struct case_ctx *ctx)
{
    json_t *v = get_health(ctx, false, NULL, NULL);
    if (!v) return;
    const char *status = json_string_value(json_object_get(v, "status"));
    CASE_CHECK(ctx, status && strcmp(status, "ok") == 0, "\"status\": \"ok\"", "status %s",
               status ? status : "(missing)");
    json_decref(v);
}
SBX_CASE(health_ok, .id = "M1-001", .title = "GET /v1/health answers 200 {\"status\":\"ok\"}",
         .clauses = "M1", .level = LEVEL_MUST, .tags = "health", .timeout_s = 15,
         .catches = "another status value or shape; a non-JSON probe",
         .how = "GETs /v1/health and validates the body against the document's HealthResponse "
                "(status enum [ok]) and the content type; uptime_seconds, M1's SHOULD part, is "
                "left to M1-002");

static void health_uptime(struct case_ctx *ctx)
{
    uint64_t a0, b0 = 0, b1 = 0;
    json_t *v = get_health(ctx, true, &a0, NULL);
    if (!v) return;
    json_t *u = json_object_get(v, "uptime_seconds");
    if (!CASE_CHECK(ctx, json_is_integer(u) && json_integer_value(u) >= 0,
                    "uptime_seconds, a non-negative integer", "%s",
                    u ? "not a non-negative integer" : "missing")) {
        json_decref(v);
        return;
    }
    json_int_t first = json_integer_value(u);
    json_decref(v);
    /* Whole seconds: within 3.5 s the value must have grown. */
    json_int_t last = first;
    while (last <= first && case_now_ms() - a0 < 3500) {
        usleep(600 * 1000);
        v = get_health(ctx, true, &b0, &b1);
        if (!v) return;
        last = json_integer_value(json_object_get(v, "uptime_seconds"));
        json_decref(v);
    }
    CASE_CHECK(ctx, last > first, "uptime_seconds growing over ~3 s", "stayed at %lld",
               (long long)first);
    /* And it counts seconds: between the two readings at most the time
     * between the first request's start and the last one's end went by,
     * plus one for each reading's rounding and one of slack. */
    if (last > first) {
        long long bound = (long long)((b1 - a0 + 999) / 1000) + 2;
        CASE_CHECK(ctx, last - first <= bound,
                   "uptime_seconds counting seconds (it grew by no more than the time that "
                   "passed)",
                   "it grew by %lld in at most %.1f s (milliseconds, or another unit?)",
                   (long long)(last - first), (double)(b1 - a0) / 1000.0);
    }
    /* A Unix timestamp also grows by one a second; no daemon has been up
     * for 10^9 s (31 years). The host's own uptime is no bound: a runtime
     * may report it from another clock or namespace than its processes. */
    CASE_CHECK(ctx, last < 1000000000, "uptime_seconds below 10^9 (31 years)",
               "uptime_seconds %lld: a timestamp rather than an uptime?", (long long)last);
}
SBX_CASE(health_uptime, .id = "M1-002",
         .title = "uptime_seconds is a non-negative integer that grows", .clauses = "M1",
         .level = LEVEL_SHOULD, .tags = "health", .timeout_s = 15,
         .catches = "uptime missing, negative, frozen, counted in another unit (milliseconds "
                    "grow too fast) or a Unix timestamp",
         .how = "reads uptime_seconds, then polls every 0.6 s for up to 3.5 s until it grows; "
                "the growth must not exceed the seconds that passed (+2 for rounding), and the "
                "value must be below 10^9 (a timestamp is not an uptime)");

static void health_503_on_shutdown(struct case_ctx *ctx)
{
    struct private_runtime *rt = case_runtime_start(ctx, NULL);
    if (!rt) return;
    case_use_runtime(ctx, rt);
    struct pu_stream p = {0};
    if (lc_start_ready(ctx, &p, "trap '' TERM; echo ready; while :; do sleep 1; done",
                       "process ignoring SIGTERM")) {
        const char *addr = private_runtime_rest_addr(rt);
        private_runtime_signal(rt, SIGTERM);
        uint64_t t0 = case_now_ms();
        long status = 0;
        struct http_response r = {0};
        bool have = false;
        /* Within the grace period (reference: 2 s) health must turn 503. */
        while (case_now_ms() - t0 < 4000) {
            struct http_request req = {.method = "GET", .target = "/v1/health", .timeout_ms = 2000};
            http_response_free(&r);
            have = rest_do_at(addr, &req, &r) == 0;
            status = have ? r.status : 0;
            if (status == 503) break;
            lc_pump(&p, NULL, 100);
        }
        case_request(ctx, "GET /v1/health after SIGTERM to the runtime");
        if (status == 503)
            expect_error_body(ctx, &r, 503, "UNAVAILABLE");
        else
            case_fail(ctx, "503 with an UNAVAILABLE Error during graceful shutdown",
                      "last status %ld%s", status, have ? "" : " (no response)");
        http_response_free(&r);
    }
    if (p.have_init) case_untrack_process(ctx, p.pid);
    case_use_shared_runtime(ctx);
    private_runtime_stop(rt);
    pu_free(&p);
}
SBX_CASE(health_503_on_shutdown, .id = "M2-001",
         .title = "During graceful shutdown /v1/health answers 503 UNAVAILABLE", .clauses = "M2",
         .level = LEVEL_MUST, .tags = "health,lifecycle", .needs = NEEDS_LAUNCH | NEEDS_ALONE,
         .timeout_s = 40, .catches = "health still 200 while the daemon is shutting down",
         .how = "a private instance keeps a process that ignores SIGTERM (holding the daemon in "
                "its grace period); after SIGTERM /v1/health is polled for up to 4 s and must "
                "answer 503 with an UNAVAILABLE Error body");
