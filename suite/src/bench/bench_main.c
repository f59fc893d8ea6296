/* SPDX-License-Identifier: Apache-2.0 */
/* The bench subcommand: target, floors, runtime figures, memory, outputs. */
#include "bench_text.h"
#include "bench_main.h"

#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_compare.h"
#include "bench_floor.h"
#include "bench_grpc.h"
#include "bench_memory.h"
#include "bench_report.h"
#include "bench_rest.h"
#include "bench_rest_idle.h"
#include "bench_results.h"
#include "bench_target.h"
#include "cli_tls.h"
#include "tls_options.h"

#define SAMPLE_INTERVAL_MS 10u

static void memory_figure(struct bench_results *r, const char *id, const char *label, bool have,
                          double value, const char *note)
{
    struct bench_figure *f = bench_add(r, id, label, "memory", BENCH_MEMORY);
    if (!f) return;
    f->measured = have;
    f->value = value;
    bench_fmt(f->note, sizeof f->note, "%s", note);
}

static void settle(void)
{
    /* A short pause so the runtime finishes what a previous figure left
     * (reaping, closing connections) before the next one starts. */
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* One runtime under measurement: its target, memory sampler and the figures
 * of every round. */
struct side {
    struct bench_target_rt t;
    struct bench_mem *mem;
    uint64_t idle_rss;
    bool have_idle;
    struct bench_results rounds[BENCH_MAX_ROUNDS];
    struct bench_results merged;
};

static void measure_group(struct side *s, struct bench_results *r, const struct bench_opts *o,
                          unsigned group)
{
    settle();
    if (group == BENCH_G_EXECUTE) bench_execute(r, o, s->t.grpc);
    if (group == BENCH_G_START) bench_start(r, o, s->t.grpc);
    if (group == BENCH_G_STREAMS) bench_streams(r, o, s->t.grpc);
    if (group == BENCH_G_REST) {
        bench_rest(r, o, s->t.rest, s->mem);
        settle();
        bench_rest_idle(r, o, s->t.rest);
    }
}

static void copy_figures(struct bench_results *dst, const struct bench_results *src)
{
    for (size_t i = 0; i < src->n; i++) {
        struct bench_figure *f =
            bench_add(dst, src->f[i].id, src->f[i].label, src->f[i].group, src->f[i].kind);
        if (f) *f = src->f[i];
    }
}

static void memory_figures(struct side *s)
{
    struct bench_results *r = &s->merged;
    const char *why = s->t.pid > 0 ? "" : "not measured: runtime PID unknown (--pid)";
    memory_figure(r, "memory.rss_idle", "runtime RSS, idle (before the bench)", s->have_idle,
                  (double)s->idle_rss,
                  s->have_idle || !*why ? why : "not measured: /proc unreadable");
    uint64_t samples = 0, peak = s->mem ? bench_mem_peak(s->mem, &samples) : 0;
    char note[96];
    bench_fmt(note, sizeof note, "highest of %llu samples of VmRSS", (unsigned long long)samples);
    memory_figure(r, "memory.rss_peak", "runtime RSS, peak sampled during the run", s->mem != NULL,
                  (double)peak, s->mem ? note : why);
    uint64_t end_rss = 0, end_hwm = 0;
    bool have_end = s->t.pid > 0 && bench_mem_read(s->t.pid, &end_rss, &end_hwm) == 0;
    memory_figure(r, "memory.hwm", "runtime VmHWM (peak RSS) at the end", have_end, (double)end_hwm,
                  have_end ? "" : why);
    memory_figure(r, "memory.rss_end", "runtime RSS at the end", have_end, (double)end_rss,
                  have_end ? "" : why);
}

static int open_side(struct side *s, const struct bench_opts *o, const char *name)
{
    char err[2048] = "";
    int rc = bench_target_open(&s->t, o, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "sandboxd-conformance bench: %s%s\n", name,
                rc == 3   ? "endpoint unreachable"
                : rc == 2 ? "no target"
                          : "set-up failed");
        fprintf(stderr, "  %s\n", err);
        return rc;
    }
    if (!o->quiet)
        fprintf(stderr, "bench: %s%s mode, grpc %s, rest %s%s\n", name, s->t.mode, s->t.grpc,
                s->t.rest, s->t.pid > 0 ? "" : " (no PID: memory figures left out)");
    /* Idle memory first, before any load from the bench. */
    uint64_t hwm = 0;
    s->have_idle = s->t.pid > 0 && bench_mem_read(s->t.pid, &s->idle_rss, &hwm) == 0;
    s->mem = s->t.pid > 0 ? bench_mem_start(s->t.pid, SAMPLE_INTERVAL_MS) : NULL;
    return 0;
}

static void close_side(struct side *s)
{
    bench_mem_stop(s->mem);
    s->mem = NULL;
    for (size_t k = 0; k < BENCH_MAX_ROUNDS; k++)
        bench_results_free(&s->rounds[k]);
    bench_results_free(&s->merged);
    bench_target_close(&s->t);
}

static void run_info(struct bench_run_info *info, const struct side *s, double t_start)
{
    *info = (struct bench_run_info){.mode = s->t.mode,
                                    .grpc = s->t.grpc,
                                    .rest = s->t.rest,
                                    .pid = s->t.pid,
                                    .command = s->t.command};
    bench_machine_info(info);
    info->seconds = bench_now() - t_start;
}

static int write_json(const char *path, const struct side *s, const struct bench_opts *o,
                      double t_start)
{
    if (!path) return 0;
    struct bench_run_info info;
    run_info(&info, s, t_start);
    char jerr[256];
    if (bench_write_json(path, &s->merged, &info, o, jerr, sizeof jerr) == 0) return 0;
    fprintf(stderr, "sandboxd-conformance bench: %s\n", jerr);
    return 4;
}

/* `bench --compare OLD.json NEW.json` (nothing else on the line). */
static int compare_saved(int argc, char **argv)
{
    int at = -1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--compare") == 0) at = i;
    if (at < 0) return -1;
    if (argc != 4 || at != 1) {
        fputs("sandboxd-conformance bench: --compare takes two bench --json files and no other "
              "option: bench --compare OLD.json NEW.json\n",
              stderr);
        return 2;
    }
    return bench_compare_files(argv[2], argv[3]);
}

/* The TLS options, checked and in force before anything is reached
 * (an unreadable file or a key that does not match is a usage error). */
static int bench_tls_setup(struct bench_opts *o)
{
    static struct cli_tls t;
    t.both = o->tls_both;
    t.opts = (struct tls_options){.cacert = o->tls_cacert,
                                  .cert = o->tls_cert,
                                  .key = o->tls_key,
                                  .authority = o->tls_authority,
                                  .insecure = o->tls_insecure};
    char err[600];
    if (cli_tls_finish(&t, &o->grpc_addr, &o->rest_addr, o->grpc_addr != NULL, false, err,
                       sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance bench: %s\n", err);
        return -1;
    }
    bool tls = tls_addr_is_https(o->grpc_addr) || tls_addr_is_https(o->rest_addr) ||
               tls_addr_is_https(o->cmp_grpc) || tls_addr_is_https(o->cmp_rest);
    if ((tls || t.opts.authority) && tls_options_set(&t.opts, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance bench: %s\n", err);
        return -1;
    }
    return 0;
}

/* Both runtimes opened, measured round by round, printed and saved. */
static int bench_run(const struct bench_opts *o)
{
    int rc;
    signal(SIGPIPE, SIG_IGN);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    double t_start = bench_now();
    bool comparing = bench_comparing(o);
    size_t n_sides = comparing ? 2 : 1;
    static struct side sides[2];
    memset(sides, 0, sizeof sides);
    /* B: the same options with the --compare-* target. */
    struct bench_opts ob = *o;
    ob.grpc_addr = o->cmp_grpc;
    ob.rest_addr = o->cmp_rest;
    ob.pid = o->cmp_pid;
    ob.launch_cmd = o->cmp_launch;
    ob.bundled = o->cmp_bundled;
    const struct bench_opts *opts[2] = {o, &ob};
    rc = open_side(&sides[0], o, comparing ? "A: " : "");
    if (rc == 0 && comparing) rc = open_side(&sides[1], &ob, "B: ");
    if (rc != 0) {
        for (size_t i = 0; i < n_sides; i++)
            close_side(&sides[i]);
        curl_global_cleanup();
        return rc;
    }

    static const unsigned groups[] = {BENCH_G_EXECUTE, BENCH_G_START, BENCH_G_STREAMS,
                                      BENCH_G_REST};
    for (unsigned k = 0; k < o->rounds; k++) {
        if (!o->quiet && o->rounds > 1)
            fprintf(stderr, "bench: round %u of %u\n", k + 1, o->rounds);
        /* Floors once per round, shared: both runtimes are compared with the
         * same machine. */
        struct bench_results fl;
        bench_results_init(&fl);
        bench_floors(&fl, o, sides[0].t.floor_dir);
        for (size_t i = 0; i < n_sides; i++)
            copy_figures(&sides[i].rounds[k], &fl);
        bench_results_free(&fl);
        /* Group by group, A and B in turn, the order swapped every round so
         * neither always runs on a machine the other just warmed. */
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
            if (!(o->groups & groups[g])) continue;
            for (size_t j = 0; j < n_sides; j++) {
                size_t i = (k % 2 == 0) ? j : n_sides - 1 - j;
                measure_group(&sides[i], &sides[i].rounds[k], opts[i], groups[g]);
            }
        }
    }
    for (size_t i = 0; i < n_sides; i++) {
        bench_merge_rounds(&sides[i].merged, sides[i].rounds, o->rounds);
        memory_figures(&sides[i]);
        bench_compute_ratios(&sides[i].merged);
    }

    struct bench_run_info info;
    run_info(&info, &sides[0], t_start);
    if (!comparing) {
        bench_print_table(stdout, &sides[0].merged, &info, o);
    } else {
        struct bench_pair pairs[128];
        size_t n = bench_pairs_from_results(&sides[0].merged, &sides[1].merged, pairs,
                                            sizeof pairs / sizeof pairs[0]);
        char a_name[300], b_name[300];
        bench_fmt(a_name, sizeof a_name, "%s (%s)",
                  sides[0].t.command ? sides[0].t.command : sides[0].t.grpc, sides[0].t.mode);
        bench_fmt(b_name, sizeof b_name, "%s (%s)",
                  sides[1].t.command ? sides[1].t.command : sides[1].t.grpc, sides[1].t.mode);
        printf("\nsandboxd-conformance bench %s (%s): two runtimes, %u round%s, interleaved\n",
               SBX_VERSION, SBX_GIT_COMMIT, o->rounds, o->rounds == 1 ? "" : "s");
        printf("machine: %ld cores, %s, %s, %s\n", info.nproc, info.cpu, info.kernel, info.date);
        bench_print_pairs(stdout, pairs, n, a_name, b_name);
        printf("\nbench took %.1f s\n", bench_now() - t_start);
    }
    fflush(stdout);

    rc = write_json(o->json_path, &sides[0], o, t_start);
    if (rc == 0 && comparing) rc = write_json(o->cmp_json_path, &sides[1], o, t_start);
    for (size_t i = 0; i < n_sides; i++)
        close_side(&sides[i]);
    curl_global_cleanup();
    return rc;
}

int bench_main(int argc, char **argv)
{
    int rc = compare_saved(argc, argv);
    if (rc >= 0) return rc;
    struct bench_opts o;
    rc = bench_parse_args(argc, argv, &o);
    if (rc == 0 && bench_tls_setup(&o) != 0) rc = 2;
    if (rc == 0) {
        /* Every request of the bench carries them, both runtimes'. */
        request_headers_use(&o.headers);
        rc = bench_run(&o);
        request_headers_use(NULL);
    } else {
        rc = rc == 1 ? 0 : 2;
    }
    request_headers_free(&o.headers);
    return rc;
}
