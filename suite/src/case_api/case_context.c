/* SPDX-License-Identifier: Apache-2.0 */
/* The case context and outcome recording (case_api.h), as seen from inside a
 * worker: every outcome is sent to the parent at once, so a case that later
 * hangs or crashes still has its failures reported. */
#include "case_context.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "process_client.h"
#include "text_util.h"
#include "worker_event.h"

/* Bounds on what one case may send; the parent enforces them as well. */
enum {
    MAX_EXPECTED = 1024,
    MAX_OBSERVED = 4096,
    MAX_REQUEST = 1024,
    MAX_NOTE = 1024,
    MAX_FAILURES_SENT = 50,
};

/* Cases may record outcomes from several threads (concurrency cases). */
static pthread_mutex_t emit_lock = PTHREAD_MUTEX_INITIALIZER;
/* The last request is per thread, so a failure names the request of the
 * thread that saw it. */
static _Thread_local char tls_request[MAX_REQUEST + 64];

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t case_derive_seed(uint64_t run_seed, const char *case_id)
{
    uint64_t h = 0xCBF29CE484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)case_id; p && *p; p++)
        h = (h ^ *p) * 0x100000001B3ull;
    uint64_t s = run_seed ^ h;
    return splitmix64(&s);
}

void case_ctx_init(struct case_ctx *ctx, const struct case_def *def,
                   const struct run_target *target, uint64_t run_seed, int report_fd)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->def = def;
    ctx->target = target;
    ctx->seed = case_derive_seed(run_seed, def ? def->id : "");
    ctx->rand_state = ctx->seed;
    ctx->report_fd = report_fd;
    snprintf(ctx->dir, sizeof ctx->dir, "%s/%s", target ? target->prefix : "sbxc",
             def && def->id ? def->id : "case");
    tls_request[0] = '\0';
}

void case_ctx_release(struct case_ctx *ctx)
{
    case_use_shared_runtime(ctx);
    for (int i = CASE_MAX_SLOTS - 1; i >= 0; i--) {
        struct case_slot *s = &ctx->slots[i];
        if (s->key && s->destroy) s->destroy(s->state);
        s->key = NULL;
        s->state = NULL;
    }
    free(ctx->root_path);
    ctx->root_path = NULL;
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; /* the parent is gone; nothing useful left to do */
        buf += n;
        len -= (size_t)n;
    }
}

void case_ctx_emit(struct case_ctx *ctx, const struct worker_event *ev)
{
    if (ctx->report_fd < 0) return;
    size_t n;
    char *line = worker_event_encode(ev, &n);
    if (!line) return;
    pthread_mutex_lock(&emit_lock);
    write_all(ctx->report_fd, line, n);
    pthread_mutex_unlock(&emit_lock);
    free(line);
}

/* s made printable and cut to max bytes (malloc'd, never NULL unless out of
 * memory). */
static char *bounded(const char *s, size_t max)
{
    return text_sanitize(s ? s : "", s ? strlen(s) : 0, max, true);
}

/* ---- Context ---------------------------------------------------------- */

const char *case_dir(const struct case_ctx *ctx)
{
    return ctx->dir;
}

const char *case_root_path(struct case_ctx *ctx)
{
    if (ctx->target && ctx->target->root_path) return ctx->target->root_path;
    if (ctx->root_probed) return ctx->root_path;
    ctx->root_probed = true;
    /* Attach mode: ask the runtime once where its processes start. */
    const char *argv[] = {"sh", "-c", "pwd -P", NULL};
    struct rpc_spec spec = {.argv = argv, .timeout_ms = 15000};
    struct rpc_result r = {0};
    if (rpc_execute(ctx, &spec, &r) == 0 && r.exit_code == 0 && r.out_len > 1 && r.out &&
        r.out[0] == '/') {
        size_t n = r.out_len;
        while (n > 1 && (r.out[n - 1] == '\n' || r.out[n - 1] == '\r'))
            n--;
        ctx->root_path = strndup((const char *)r.out, n);
        if (ctx->root_path && strlen(ctx->root_path) != n) { /* embedded NUL */
            free(ctx->root_path);
            ctx->root_path = NULL;
        }
    }
    rpc_result_free(&r);
    return ctx->root_path;
}

const char *case_grpc_unusable(const struct case_ctx *ctx)
{
    return ctx->target && ctx->target->grpc_unusable[0] ? ctx->target->grpc_unusable : NULL;
}

const char *case_grpc_addr(const struct case_ctx *ctx)
{
    return ctx->target->grpc_addr;
}
const char *case_rest_addr(const struct case_ctx *ctx)
{
    return ctx->target->rest_addr;
}
bool case_launch_mode(const struct case_ctx *ctx)
{
    return ctx->target->launch_mode;
}

const char *const *case_planted_env(const struct case_ctx *ctx)
{
    if (!ctx->target->launch_mode) return NULL;
    return (const char *const *)ctx->target->planted_env;
}

uint64_t case_seed(const struct case_ctx *ctx)
{
    return ctx->seed;
}

uint64_t case_rand(struct case_ctx *ctx)
{
    pthread_mutex_lock(&emit_lock);
    uint64_t v = splitmix64(&ctx->rand_state);
    pthread_mutex_unlock(&emit_lock);
    return v;
}

uint64_t case_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t case_time_left_ms(const struct case_ctx *ctx)
{
    if (!ctx->deadline_ms) return UINT64_MAX;
    uint64_t now = case_now_ms();
    return now < ctx->deadline_ms ? ctx->deadline_ms - now : 0;
}

/* ---- Outcomes ---------------------------------------------------------- */

void case_request(struct case_ctx *ctx, const char *fmt, ...)
{
    (void)ctx;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_request, MAX_REQUEST, fmt, ap);
    va_end(ap);
}

void case_request_copy(const struct case_ctx *ctx, char *buf, size_t len)
{
    (void)ctx;
    if (len) snprintf(buf, len, "%s", tls_request);
}

void case_fail(struct case_ctx *ctx, const char *expected, const char *observed_fmt, ...)
{
    va_list ap;
    va_start(ap, observed_fmt);
    char *observed = text_vfmt(observed_fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&emit_lock);
    ctx->failed = true;
    unsigned n = ++ctx->failures;
    pthread_mutex_unlock(&emit_lock);
    if (n <= MAX_FAILURES_SENT) {
        char *exp = bounded(expected, MAX_EXPECTED);
        char *obs = bounded(observed, MAX_OBSERVED);
        char *req = tls_request[0] ? bounded(tls_request, MAX_REQUEST) : NULL;
        struct worker_event ev = {.kind = WEV_FAIL, .text = obs, .expected = exp, .request = req};
        case_ctx_emit(ctx, &ev);
        free(req);
        free(obs);
        free(exp);
    }
    free(observed);
}

static void record_text(struct case_ctx *ctx, enum worker_event_kind kind, const char *fmt,
                        va_list ap)
{
    char *text = text_vfmt(fmt, ap);
    char *shown = bounded(text, MAX_NOTE);
    struct worker_event ev = {.kind = kind, .text = shown};
    case_ctx_emit(ctx, &ev);
    free(shown);
    free(text);
}

void case_skip(struct case_ctx *ctx, const char *reason_fmt, ...)
{
    ctx->skipped = true;
    va_list ap;
    va_start(ap, reason_fmt);
    record_text(ctx, WEV_SKIP, reason_fmt, ap);
    va_end(ap);
}

void case_error(struct case_ctx *ctx, const char *fmt, ...)
{
    ctx->errored = true;
    va_list ap;
    va_start(ap, fmt);
    record_text(ctx, WEV_ERROR, fmt, ap);
    va_end(ap);
}

void case_note(struct case_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record_text(ctx, WEV_NOTE, fmt, ap);
    va_end(ap);
}

void case_doc_finding(struct case_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record_text(ctx, WEV_DOC_FINDING, fmt, ap);
    va_end(ap);
}

bool case_failed(const struct case_ctx *ctx)
{
    return ctx->failed || ctx->skipped || ctx->errored;
}

/* ---- Process cleanup --------------------------------------------------- */

static void emit_pid(struct case_ctx *ctx, enum worker_event_kind kind, int32_t pid)
{
    struct worker_event ev = {.kind = kind, .pid = pid};
    case_ctx_emit(ctx, &ev);
}

void case_track_process(struct case_ctx *ctx, int32_t process_id)
{
    emit_pid(ctx, WEV_TRACK, process_id);
}

void case_report_unreachable(struct case_ctx *ctx, const char *what)
{
    char *shown = bounded(what, MAX_OBSERVED);
    struct worker_event ev = {.kind = WEV_UNREACHABLE, .text = shown};
    case_ctx_emit(ctx, &ev);
    free(shown);
}

void case_untrack_process(struct case_ctx *ctx, int32_t process_id)
{
    emit_pid(ctx, WEV_UNTRACK, process_id);
}

/* ---- Client state ------------------------------------------------------ */

void *case_client_state(struct case_ctx *ctx, const char *key)
{
    for (int i = 0; i < CASE_MAX_SLOTS; i++)
        if (ctx->slots[i].key && strcmp(ctx->slots[i].key, key) == 0) return ctx->slots[i].state;
    return NULL;
}

int case_set_client_state(struct case_ctx *ctx, const char *key, void *state,
                          void (*destroy)(void *state))
{
    struct case_slot *free_slot = NULL;
    for (int i = 0; i < CASE_MAX_SLOTS; i++) {
        struct case_slot *s = &ctx->slots[i];
        if (s->key && strcmp(s->key, key) == 0) {
            if (s->destroy && s->state != state) s->destroy(s->state);
            s->state = state;
            s->destroy = destroy;
            return 0;
        }
        if (!s->key && !free_slot) free_slot = s;
    }
    if (!free_slot) return -1;
    free_slot->key = key;
    free_slot->state = state;
    free_slot->destroy = destroy;
    return 0;
}
