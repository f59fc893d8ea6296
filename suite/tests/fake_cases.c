/* SPDX-License-Identifier: Apache-2.0 */
/* The test catalog: cases with known behaviour, compiled with the runner's
 * sources into sandboxd-conformance-fake (never into the real suite). They
 * run against fake_runtime.py. SBXC_FAKE_MODE chooses the behaviour:
 *   (unset)  "mixed": every outcome at least once;
 *   good     every case passes (launch cases skip in attach mode);
 *   should   like good, but one SHOULD case fails. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_api.h"
#include "rest_client.h"

static const char *mode(void)
{
    const char *m = getenv("SBXC_FAKE_MODE");
    return m && *m ? m : "mixed";
}

static bool mixed(void)
{
    return strcmp(mode(), "mixed") == 0;
}

/* Passes: a file written into the case directory reads back. */
static void fake_roundtrip(struct case_ctx *ctx)
{
    char rel[700];
    snprintf(rel, sizeof rel, "%s/hello.txt", case_dir(ctx));
    struct http_response resp;
    if (rest_put_bytes(ctx, rel, "hello", 5, "0644", &resp) != 0 || resp.status != 204)
        case_fail(ctx, "PUT answers 204", "status %ld %s", resp.status, resp.error);
    http_response_free(&resp);
    if (rest_get_path(ctx, rel, &resp) != 0 || resp.status != 200 || resp.body_len != 5 ||
        memcmp(resp.body, "hello", 5) != 0)
        case_fail(ctx, "GET returns the bytes written", "status %ld, %zu bytes", resp.status,
                  resp.body_len);
    http_response_free(&resp);
}
SBX_CASE(fake_roundtrip, .id = "P1-901", .title = "fake: a file round-trips in the case dir",
         .clauses = "P1,P18", .level = LEVEL_MUST, .tags = "files",
         .catches = "nothing (test catalog)", .how = "PUT then GET in case_dir");

static void fake_fail(struct case_ctx *ctx)
{
    if (!mixed()) return;
    case_request(ctx, "GET /v1/imaginary");
    case_fail(ctx, "status 200", "status %d with body <%s> & \"quotes\"", 418, "teapot");
    case_fail(ctx, "second expectation", "binary \x01\xff observed");
}
SBX_CASE(fake_fail, .id = "P2-902", .title = "fake: records two failures", .clauses = "P2",
         .level = LEVEL_MUST, .tags = "process");

static void fake_skip(struct case_ctx *ctx)
{
    if (mixed()) case_skip(ctx, "no widget in this runtime");
}
SBX_CASE(fake_skip, .id = "P3-903", .title = "fake: skips itself", .clauses = "P3",
         .level = LEVEL_MUST, .tags = "process");

static void fake_error(struct case_ctx *ctx)
{
    if (mixed()) case_error(ctx, "the suite ran out of widgets");
}
SBX_CASE(fake_error, .id = "P4-904", .title = "fake: the suite cannot run it", .clauses = "P4",
         .level = LEVEL_MUST, .tags = "process");

static void fake_timeout(struct case_ctx *ctx)
{
    if (!mixed()) return;
    case_note(ctx, "about to hang");
    sleep(60);
}
SBX_CASE(fake_timeout, .id = "P5-905", .title = "fake: hangs past its timeout", .clauses = "P5",
         .level = LEVEL_MUST, .tags = "process", .timeout_s = 1);

static void fake_crash(struct case_ctx *ctx)
{
    (void)ctx;
    if (mixed()) raise(SIGSEGV);
}
SBX_CASE(fake_crash, .id = "P6-906", .title = "fake: crashes its worker", .clauses = "P6",
         .level = LEVEL_SHOULD, .tags = "process");

static void fake_chatty(struct case_ctx *ctx)
{
    (void)ctx;
    static char line[1024];
    memset(line, 'y', sizeof line - 1);
    for (int i = 0; i < 8 * 1024; i++) /* 8 MiB on stdout */
        puts(line);
    fflush(stdout);
}
SBX_CASE(fake_chatty, .id = "P7-907", .title = "fake: prints 8 MiB and passes", .clauses = "P7",
         .level = LEVEL_MUST, .tags = "process");

/* The REST client against hostile routes: each must end in bounded time with
 * a transport error (or a truncated body), never hang or crash the case. */
static void fake_hostile(struct case_ctx *ctx)
{
    static const char *const routes[] = {"/test/hang", "/test/garbage", "/test/reset",
                                         "/test/huge"};
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        struct http_request req = {
            .method = "GET", .target = routes[i], .timeout_ms = 2000, .max_body = 1024 * 1024};
        struct http_response resp;
        uint64_t t0 = case_now_ms();
        case_request(ctx, "GET %s", routes[i]);
        int rc = rest_do(ctx, &req, &resp);
        uint64_t took = case_now_ms() - t0;
        if (took > 10000)
            case_fail(ctx, "bounded request", "%s took %llu ms", routes[i],
                      (unsigned long long)took);
        if (strcmp(routes[i], "/test/huge") == 0) {
            if (rc == 0 && !resp.body_truncated)
                case_fail(ctx, "a 64 MiB body is cut at max_body", "%zu bytes kept", resp.body_len);
            if (resp.body_len > 1024 * 1024)
                case_fail(ctx, "at most max_body bytes kept", "%zu bytes", resp.body_len);
        } else if (rc == 0) {
            case_fail(ctx, "a transport error", "status %ld", resp.status);
        } else if (mixed()) {
            case_fail(ctx, "the endpoint answers", "%s", resp.error);
        }
        http_response_free(&resp);
    }
}
SBX_CASE(fake_hostile, .id = "F1-908", .title = "fake: hostile endpoint routes stay bounded",
         .clauses = "F1", .level = LEVEL_MUST, .tags = "files,errors", .timeout_s = 60);

static void fake_launch_env(struct case_ctx *ctx)
{
    const char *const *env = case_planted_env(ctx);
    if (!env) {
        case_fail(ctx, "a planted environment in launch mode", "none");
        return;
    }
    static const char *const want[] = {
        "SANDBOX_API_TOKEN=", "SANDBOX_db_Password=", "SANDBOX_MY_KEY_ID=", "OTHER_VISIBLE=1",
        "SANDBOX_FROM_TEST=yes"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        bool found = false;
        for (const char *const *e = env; *e && !found; e++)
            found = strncmp(*e, want[i], strlen(want[i])) == 0;
        if (!found) case_fail(ctx, "planted variable present", "%s missing", want[i]);
    }
    const char *root = case_root_path(ctx);
    if (!root || root[0] != '/')
        case_fail(ctx, "the root path is known in launch mode", "%s", root ? root : "NULL");
}
SBX_CASE(fake_launch_env, .id = "M3-909", .title = "fake: planted environment in launch mode",
         .clauses = "M3", .level = LEVEL_MUST, .tags = "metadata", .needs = NEEDS_LAUNCH);

static void fake_should(struct case_ctx *ctx)
{
    if (strcmp(mode(), "should") == 0)
        case_fail(ctx, "SHOULD behaviour", "the runtime does the minimum");
}
SBX_CASE(fake_should, .id = "G7-910", .title = "fake: a SHOULD case", .clauses = "G7",
         .level = LEVEL_SHOULD, .tags = "grpc");

static void fake_transport(struct case_ctx *ctx)
{
    (void)ctx;
}
SBX_CASE(fake_transport, .id = "T1-911", .title = "fake: a transport-profile case", .clauses = "T1",
         .level = LEVEL_MUST, .tags = "transport", .needs = NEEDS_TRANSPORT);

static void fake_alone(struct case_ctx *ctx)
{
    /* Records when it ran; the test checks no other case overlapped. */
    case_note(ctx, "alone");
}
SBX_CASE(fake_alone, .id = "C5-912", .title = "fake: must run alone", .clauses = "C5",
         .level = LEVEL_MUST, .tags = "concurrency", .needs = NEEDS_ALONE);

static void fake_seeded(struct case_ctx *ctx)
{
    uint64_t a = case_rand(ctx), b = case_rand(ctx);
    case_note(ctx, "seed %016llx draws %016llx %016llx", (unsigned long long)case_seed(ctx),
              (unsigned long long)a, (unsigned long long)b);
}
SBX_CASE(fake_seeded, .id = "S1-913", .title = "fake: reports its random draws", .clauses = "S1",
         .level = LEVEL_MUST, .tags = "traversal");

static void fake_private_runtime(struct case_ctx *ctx)
{
    const char *const extra_env[] = {"SANDBOX_PRIVATE_EXTRA=1", NULL};
    struct private_runtime_opts o = {.extra_env = extra_env};
    struct private_runtime *rt = case_runtime_start(ctx, &o);
    if (!rt) return;
    struct http_request req = {.method = "GET", .target = "/v1/health", .timeout_ms = 3000};
    struct http_response resp;
    case_request(ctx, "GET /v1/health (private runtime)");
    if (rest_do_at(private_runtime_rest_addr(rt), &req, &resp) != 0 || resp.status != 200)
        case_fail(ctx, "the private runtime is healthy", "status %ld %s", resp.status, resp.error);
    http_response_free(&resp);
    private_runtime_signal(rt, SIGTERM);
    int status = -1;
    if (private_runtime_wait(rt, 10000, &status) != 0)
        case_fail(ctx, "the private runtime exits on SIGTERM", "still running after 10 s");
    else
        case_note(ctx, "private runtime wait status %d", status);
    private_runtime_stop(rt);
}
SBX_CASE(fake_private_runtime, .id = "L1-914", .title = "fake: private runtime start and stop",
         .clauses = "L1", .level = LEVEL_MUST, .tags = "lifecycle",
         .needs = NEEDS_LAUNCH | NEEDS_ALONE, .timeout_s = 60);

static void fake_tracked(struct case_ctx *ctx)
{
    /* The runner's cleanup sends SIGKILL through SendSignal; against the
     * fake runtime that fails and is only logged. */
    case_track_process(ctx, 4242);
    case_track_process(ctx, 4343);
    case_untrack_process(ctx, 4343);
}
SBX_CASE(fake_tracked, .id = "F10-915", .title = "fake: tracks a process for cleanup",
         .clauses = "F10", .level = LEVEL_SHOULD, .tags = "files");
