/* SPDX-License-Identifier: Apache-2.0 */
/* ProcessService figures: Execute latency and throughput, Start latencies and
 * streaming rate, and many concurrent Start streams on one connection. */
#include "bench_text.h"
#include "bench_grpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_measure.h"
#include "grpc_dial.h"
#include "process.pb-c.h"
#include "sbx_grpc_client.h"

#define PATH_EXECUTE "/process.v1.ProcessService/Execute"
#define PATH_START "/process.v1.ProcessService/Start"
#define CALL_WAIT_MS 30000u
/* The streaming figure uses large windows: the client reads as fast as it
 * can, so flow control should never be what limits the rate. */
#define STREAM_WINDOW (16u * 1024u * 1024u)
#define CONN_WINDOW (64u * 1024u * 1024u)

/* ---- requests ----------------------------------------------------------- */

struct packed {
    uint8_t *buf;
    size_t len;
};

static int pack_request(bool start, const char *const *argv, struct packed *p)
{
    size_t n = 0;
    while (argv[n])
        n++;
    Process__V1__ProcessConfig cfg = PROCESS__V1__PROCESS_CONFIG__INIT;
    cfg.n_command = n;
    cfg.command = (char **)argv;
    size_t len;
    if (start) {
        Process__V1__StartRequest req = PROCESS__V1__START_REQUEST__INIT;
        req.config = &cfg;
        len = process__v1__start_request__get_packed_size(&req);
        p->buf = malloc(len ? len : 1);
        if (!p->buf) return -1;
        process__v1__start_request__pack(&req, p->buf);
    } else {
        Process__V1__ExecuteRequest req = PROCESS__V1__EXECUTE_REQUEST__INIT;
        req.config = &cfg;
        len = process__v1__execute_request__get_packed_size(&req);
        p->buf = malloc(len ? len : 1);
        if (!p->buf) return -1;
        process__v1__execute_request__pack(&req, p->buf);
    }
    p->len = len;
    return 0;
}

static struct sbx_grpc_conn *connect_to(const char *addr, bool big_windows, char *err)
{
    struct sbx_grpc_conn_opts co = {.max_recv_message = 64u * 1024u * 1024u};
    if (big_windows) {
        co.initial_stream_window = STREAM_WINDOW;
        co.initial_conn_window = CONN_WINDOW;
    }
    char why[200] = "";
    struct sbx_grpc_conn *c = grpc_dial(addr, &co, why, sizeof why);
    if (!c) bench_fmt(err, 256, "connect %s: %s", addr, why);
    return c;
}

static void describe_end(const struct sbx_grpc_result *res, char *err)
{
    if (res->end == SBX_GRPC_END_STATUS)
        bench_fmt(err, 256, "status %s%s%s", sbx_grpc_code_name(res->code),
                  res->message ? ": " : "", res->message ? res->message : "");
    else
        bench_fmt(err, 256, "call failed (%s): %s", sbx_grpc_code_name(res->code), res->error);
}

/* ---- Execute `true` ------------------------------------------------------- */

struct exec_ctx {
    const char *addr;
    struct sbx_grpc_conn *conn;
    const struct packed *req;
};

static int execute_once(void *ud, char *err)
{
    struct exec_ctx *x = ud;
    if (x->conn && !sbx_grpc_conn_usable(x->conn)) {
        sbx_grpc_conn_close(x->conn);
        x->conn = NULL;
    }
    if (!x->conn && !(x->conn = connect_to(x->addr, false, err))) return -1;
    struct sbx_grpc_call_opts co = {.wait_ms = CALL_WAIT_MS};
    struct sbx_grpc_result res;
    int rc = sbx_grpc_unary(x->conn, PATH_EXECUTE, x->req->buf, x->req->len, &co, &res);
    if (rc != 0) {
        describe_end(&res, err);
        sbx_grpc_result_free(&res);
        return -1;
    }
    Process__V1__ExecuteResponse *resp =
        process__v1__execute_response__unpack(NULL, res.response_len, res.response);
    sbx_grpc_result_free(&res);
    if (!resp) {
        bench_fmt(err, 256, "undecodable ExecuteResponse");
        return -1;
    }
    int code = resp->exit_code;
    process__v1__execute_response__free_unpacked(resp, NULL);
    if (code != 0) {
        bench_fmt(err, 256, "`true` exited with %d", code);
        return -1;
    }
    return 0;
}

int bench_grpc_probe(const char *addr, char *err, size_t err_len)
{
    static const char *const argv[] = {"true", NULL};
    struct packed req;
    if (pack_request(false, argv, &req) != 0) {
        bench_fmt(err, err_len, "out of memory");
        return -1;
    }
    char why[256] = "";
    struct exec_ctx x = {.addr = addr, .req = &req};
    int rc = execute_once(&x, why);
    if (x.conn) sbx_grpc_conn_close(x.conn);
    free(req.buf);
    if (rc != 0) bench_fmt(err, err_len, "%s", why);
    return rc;
}

/* Concurrent callers: each a thread with its own connection. */
struct exec_shared {
    const char *addr;
    const struct packed *req;
};

static void *exec_setup(void *ud, unsigned index, char *err)
{
    (void)index;
    const struct exec_shared *sh = ud;
    struct exec_ctx *x = calloc(1, sizeof *x);
    if (!x) {
        bench_fmt(err, 256, "out of memory");
        return NULL;
    }
    x->addr = sh->addr;
    x->req = sh->req;
    x->conn = connect_to(x->addr, false, err);
    if (!x->conn) {
        free(x);
        return NULL;
    }
    return x;
}

static void exec_teardown(void *state)
{
    struct exec_ctx *x = state;
    if (x->conn) sbx_grpc_conn_close(x->conn);
    free(x);
}

void bench_execute(struct bench_results *r, const struct bench_opts *o, const char *addr)
{
    static const char *const argv[] = {"true", NULL};
    struct packed req;
    if (pack_request(false, argv, &req) != 0) return;
    struct bench_figure *f =
        bench_add(r, "execute.sequential", "Execute true, sequential", "execute", BENCH_LATENCY);
    if (f) {
        bench_fmt(f->floor, sizeof f->floor, "floor.spawn");
        f->basis = BENCH_RATIO_P50;
        struct exec_ctx x = {.addr = addr, .req = &req};
        bench_measure_latency(f, o, execute_once, &x);
        if (x.conn) sbx_grpc_conn_close(x.conn);
    }
    static const unsigned callers[] = {1, 8, 64};
    for (size_t k = 0; k < sizeof callers / sizeof callers[0]; k++) {
        char id[BENCH_ID_MAX], label[96];
        bench_fmt(id, sizeof id, "execute.concurrent_%u", callers[k]);
        bench_fmt(label, sizeof label, "Execute true, %u caller%s (thread+conn each)", callers[k],
                  callers[k] == 1 ? "" : "s");
        f = bench_add(r, id, label, "execute", BENCH_LATENCY);
        if (!f) break;
        bench_fmt(f->floor, sizeof f->floor, "floor.spawn");
        f->basis = BENCH_RATIO_THROUGHPUT;
        struct exec_shared sh = {.addr = addr, .req = &req};
        struct bench_workers w = {
            .setup = exec_setup, .op = execute_once, .teardown = exec_teardown, .ud = &sh};
        bench_measure_concurrent(f, o, callers[k], &w);
    }
    free(req.buf);
}

/* ---- Start ---------------------------------------------------------------- */

/* A StartResponse holding only stdout (tag 0x12) is what a stream is made
 * of; it is recognised by hand so the reading client stays cheap. Returns
 * the payload length, or -1 for anything else. */
static int64_t stdout_only_len(const uint8_t *m, size_t len)
{
    if (len < 2 || m[0] != 0x12) return -1;
    uint64_t v = 0;
    for (size_t i = 1, shift = 0; i < len && shift < 64; i++, shift += 7) {
        v |= (uint64_t)(m[i] & 0x7f) << shift;
        if (!(m[i] & 0x80)) return (i + 1 + v == len) ? (int64_t)v : -1;
    }
    return -1;
}

struct start_obs {
    double t_init, t_first; /* seconds from the call's start; 0 = never */
    uint64_t out_bytes;
    bool saw_init, saw_exit;
    int exit_code;
};

/* Runs one Start call to its end on conn, observing its events. 0 when it
 * ended with status OK after an ExitEvent, else -1 with err. */
static int run_start(struct sbx_grpc_conn *c, const struct packed *req, unsigned wait_ms,
                     struct start_obs *obs, char *err)
{
    memset(obs, 0, sizeof *obs);
    struct sbx_grpc_call_opts co = {.wait_ms = wait_ms};
    char why[200] = "";
    double t0 = bench_now();
    struct sbx_grpc_call *call =
        sbx_grpc_call_start(c, PATH_START, req->buf, req->len, &co, why, sizeof why);
    if (!call) {
        bench_fmt(err, 256, "Start: %s", why);
        return -1;
    }
    int rc = -1;
    for (;;) {
        const uint8_t *msg;
        size_t len;
        int nx = sbx_grpc_call_next(call, 1000, &msg, &len);
        if (nx == SBX_GRPC_NEXT_TIMEOUT)
            continue; /* the call's own wait bound ends it eventually */
        if (nx == SBX_GRPC_NEXT_ERROR || nx == SBX_GRPC_NEXT_END) {
            const struct sbx_grpc_result *res = sbx_grpc_call_result(call);
            if (nx == SBX_GRPC_NEXT_END && res->code == SBX_GRPC_OK && obs->saw_exit)
                rc = 0;
            else if (nx == SBX_GRPC_NEXT_END && res->code == SBX_GRPC_OK)
                bench_fmt(err, 256, "Start ended with OK but without an ExitEvent");
            else
                describe_end(res, err);
            break;
        }
        int64_t out = stdout_only_len(msg, len);
        if (out >= 0) {
            if (!obs->t_first && out > 0) obs->t_first = bench_now() - t0;
            obs->out_bytes += (uint64_t)out;
            continue;
        }
        Process__V1__StartResponse *ev = process__v1__start_response__unpack(NULL, len, msg);
        if (!ev) {
            bench_fmt(err, 256, "undecodable StartResponse");
            break;
        }
        switch (ev->event_case) {
        case PROCESS__V1__START_RESPONSE__EVENT_INIT:
            if (!obs->saw_init) obs->t_init = bench_now() - t0;
            obs->saw_init = true;
            break;
        case PROCESS__V1__START_RESPONSE__EVENT_STDOUT:
            if (!obs->t_first && ev->stdout.len > 0) obs->t_first = bench_now() - t0;
            obs->out_bytes += ev->stdout.len;
            break;
        case PROCESS__V1__START_RESPONSE__EVENT_EXIT:
            obs->saw_exit = true;
            obs->exit_code = ev->exit->exit_code;
            break;
        default:
            break;
        }
        process__v1__start_response__free_unpacked(ev, NULL);
    }
    sbx_grpc_call_free(call);
    return rc;
}

static struct sbx_grpc_conn *ensure_conn(struct sbx_grpc_conn **c, const char *addr, bool big,
                                         char *err)
{
    if (*c && !sbx_grpc_conn_usable(*c)) {
        sbx_grpc_conn_close(*c);
        *c = NULL;
    }
    if (!*c) *c = connect_to(addr, big, err);
    return *c;
}

/* Time to InitEvent and to the first stdout byte, from the same calls. */
static void start_latencies(struct bench_results *r, const struct bench_opts *o, const char *addr)
{
    static const char *const argv[] = {"echo", "x", NULL};
    struct bench_figure *fi =
        bench_add(r, "start.init", "Start echo x: time to InitEvent", "start", BENCH_LATENCY);
    struct bench_figure *ff = bench_add(
        r, "start.first_byte", "Start echo x: time to first stdout byte", "start", BENCH_LATENCY);
    struct packed req;
    if (!fi || !ff || pack_request(true, argv, &req) != 0) return;
    bench_progress(o, "Start echo x: time to InitEvent and to first stdout byte");
    struct bench_samples si, sf;
    if (bench_samples_init(&si, o->count) != 0 || bench_samples_init(&sf, o->count) != 0) {
        free(req.buf);
        return;
    }
    struct sbx_grpc_conn *c = NULL;
    char err[256] = "", first[256] = "";
    uint64_t errors = 0;
    struct start_obs obs;
    double warm_end = bench_now() + o->duration;
    for (unsigned i = 0; i < o->warmup && bench_now() < warm_end; i++)
        if (ensure_conn(&c, addr, false, err)) run_start(c, &req, CALL_WAIT_MS, &obs, err);
    double t0 = bench_now(), end = t0 + o->duration, now = t0;
    for (unsigned n = 0; n < o->count && now < end; n++) {
        err[0] = '\0';
        int rc =
            ensure_conn(&c, addr, false, err) ? run_start(c, &req, CALL_WAIT_MS, &obs, err) : -1;
        now = bench_now();
        if (rc == 0 && obs.saw_init && obs.t_first > 0.0) {
            bench_samples_add(&si, obs.t_init);
            bench_samples_add(&sf, obs.t_first);
        } else {
            errors++;
            if (rc == 0) bench_fmt(err, sizeof err, "no InitEvent or no stdout from echo");
            if (!first[0]) bench_fmt(first, sizeof first, "%s", err);
        }
    }
    if (c) sbx_grpc_conn_close(c);
    struct bench_figure *figs[2] = {bench_find(r, "start.init"), bench_find(r, "start.first_byte")};
    struct bench_samples *ss[2] = {&si, &sf};
    for (int k = 0; k < 2; k++) {
        struct bench_figure *f = figs[k];
        f->elapsed = now - t0;
        f->lat = bench_summarise(ss[k]);
        f->throughput = f->elapsed > 0.0 ? (double)ss[k]->n / f->elapsed : 0.0;
        f->errors = errors;
        f->measured = true;
        bench_fmt(f->floor, sizeof f->floor, "floor.spawn");
        f->basis = BENCH_RATIO_P50;
        bench_note_error(f, first);
        bench_samples_free(ss[k]);
    }
    free(req.buf);
}

struct stream_ctx {
    const char *addr;
    struct sbx_grpc_conn *conn;
    const struct packed *req;
    unsigned wait_ms;
};

static int64_t stream_once(void *ud, char *err)
{
    struct stream_ctx *x = ud;
    if (!ensure_conn(&x->conn, x->addr, true, err)) return -1;
    struct start_obs obs;
    if (run_start(x->conn, x->req, x->wait_ms, &obs, err) != 0) return -1;
    if (obs.exit_code != 0) {
        bench_fmt(err, 256, "head exited with %d", obs.exit_code);
        return -1;
    }
    return (int64_t)obs.out_bytes;
}

static void start_stream(struct bench_results *r, const struct bench_opts *o, const char *addr)
{
    char n[32], label[96], warm_n[32];
    bench_fmt(n, sizeof n, "%llu", (unsigned long long)o->size);
    bench_fmt(warm_n, sizeof warm_n, "%llu",
              (unsigned long long)(o->size < 1048576 ? o->size : 1048576));
    const char *argv[] = {"head", "-c", n, "/dev/zero", NULL};
    const char *warm_argv[] = {"head", "-c", warm_n, "/dev/zero", NULL};
    struct packed req, warm;
    if (pack_request(true, argv, &req) != 0) return;
    if (pack_request(true, warm_argv, &warm) != 0) {
        free(req.buf);
        return;
    }
    bench_fmt(label, sizeof label, "Start head -c N /dev/zero: stdout stream");
    struct bench_figure *f = bench_add(r, "start.stream", label, "start", BENCH_TRANSFER);
    if (f) {
        bench_fmt(f->floor, sizeof f->floor, "floor.pipe");
        bench_fmt(f->alt_floor, sizeof f->alt_floor, "floor.tcp");
        f->basis = BENCH_RATIO_THROUGHPUT;
        /* A transfer of N bytes gets at least a minute, more when N is huge
         * (at 20 MB/s), so a slow runtime is measured rather than cut off. */
        double bound = 60.0 + (double)o->size / 20e6;
        struct stream_ctx x = {.addr = addr, .req = &warm, .wait_ms = (unsigned)(bound * 1000)};
        char err[256];
        stream_once(&x, err); /* warm-up: connection, windows, the daemon's buffers */
        x.req = &req;
        bench_measure_transfer(f, o, stream_once, &x, o->size);
        if (x.conn) sbx_grpc_conn_close(x.conn);
    }
    free(req.buf);
    free(warm.buf);
}

void bench_start(struct bench_results *r, const struct bench_opts *o, const char *addr)
{
    start_latencies(r, o, addr);
    start_stream(r, o, addr);
}

/* ---- many Start streams on one connection --------------------------------- */

struct stream_state {
    struct sbx_grpc_call *call;
    double opened;
    bool done, init, exit;
};

void bench_streams(struct bench_results *r, const struct bench_opts *o, const char *addr)
{
    char label[96];
    bench_fmt(label, sizeof label, "Start sleep %u: %u streams on one connection", o->stream_sleep,
              o->streams);
    struct bench_figure *f = bench_add(r, "streams.concurrent", label, "streams", BENCH_STREAMS);
    if (!f) return;
    bench_progress(o, label);
    f->value_of = o->streams;
    char secs[16], err[256] = "";
    bench_fmt(secs, sizeof secs, "%u", o->stream_sleep);
    const char *argv[] = {"sleep", secs, NULL};
    struct packed req;
    struct stream_state *st = calloc(o->streams, sizeof *st);
    struct bench_samples s;
    if (!st || pack_request(true, argv, &req) != 0) {
        free(st);
        return;
    }
    if (bench_samples_init(&s, o->streams) != 0) {
        free(st);
        free(req.buf);
        return;
    }
    struct sbx_grpc_conn *c = connect_to(addr, false, err);
    uint64_t errors = 0, inits = 0, completed = 0, open_failed = 0;
    double t0 = bench_now(), deadline = t0 + o->streams_timeout, last = t0;
    unsigned pending = 0;
    struct sbx_grpc_call_opts co = {.wait_ms = (unsigned)(o->streams_timeout * 1000.0)};
    for (unsigned i = 0; c && i < o->streams; i++) {
        char why[200] = "";
        st[i].opened = bench_now();
        st[i].call = sbx_grpc_call_start(c, PATH_START, req.buf, req.len, &co, why, sizeof why);
        if (st[i].call) {
            pending++;
        } else {
            st[i].done = true;
            open_failed++;
            if (!err[0]) bench_fmt(err, sizeof err, "opening stream %u: %s", i + 1, why);
        }
    }
    while (c && pending > 0 && bench_now() < deadline) {
        if (sbx_grpc_conn_pump(c, 50) != 0) {
            if (!err[0]) bench_fmt(err, sizeof err, "connection broke: %s", sbx_grpc_conn_error(c));
        }
        for (unsigned i = 0; i < o->streams; i++) {
            struct stream_state *x = &st[i];
            while (!x->done && sbx_grpc_call_ready(x->call)) {
                const uint8_t *msg;
                size_t len;
                int nx = sbx_grpc_call_next(x->call, 0, &msg, &len);
                if (nx == SBX_GRPC_NEXT_MESSAGE) {
                    Process__V1__StartResponse *ev =
                        process__v1__start_response__unpack(NULL, len, msg);
                    if (ev && ev->event_case == PROCESS__V1__START_RESPONSE__EVENT_INIT) {
                        x->init = true;
                        inits++;
                    } else if (ev && ev->event_case == PROCESS__V1__START_RESPONSE__EVENT_EXIT) {
                        x->exit = ev->exit->exit_code == 0;
                    }
                    if (ev) process__v1__start_response__free_unpacked(ev, NULL);
                    continue;
                }
                if (nx == SBX_GRPC_NEXT_TIMEOUT) break;
                x->done = true;
                pending--;
                const struct sbx_grpc_result *res = sbx_grpc_call_result(x->call);
                double now = bench_now();
                if (nx == SBX_GRPC_NEXT_END && res->code == SBX_GRPC_OK && x->exit) {
                    completed++;
                    bench_samples_add(&s, now - x->opened);
                    last = now;
                } else {
                    errors++;
                    if (!err[0]) {
                        char d[256];
                        describe_end(res, d);
                        bench_fmt(err, sizeof err, "stream %u: %s", i + 1, d);
                    }
                }
            }
        }
        if (!sbx_grpc_conn_usable(c)) break;
    }
    for (unsigned i = 0; i < o->streams; i++)
        sbx_grpc_call_free(st[i].call);
    if (c) sbx_grpc_conn_close(c);
    f->value = (double)completed;
    f->lat = bench_summarise(&s);
    f->elapsed = last - t0;
    f->errors = errors + open_failed + pending;
    f->measured = true;
    bench_fmt(f->note, sizeof f->note, "%llu/%u got InitEvent, %llu completed, %u unfinished%s%s",
              (unsigned long long)inits, o->streams, (unsigned long long)completed, pending,
              err[0] ? "; first error: " : "", err);
    bench_samples_free(&s);
    free(st);
    free(req.buf);
}
