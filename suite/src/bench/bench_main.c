/* The bench subcommand: target, floors, runtime figures, memory, outputs. */
#include "bench_text.h"
#include "bench_main.h"

#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_floor.h"
#include "bench_grpc.h"
#include "bench_memory.h"
#include "bench_report.h"
#include "bench_rest.h"
#include "bench_results.h"
#include "bench_target.h"

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

int bench_main(int argc, char **argv)
{
    struct bench_opts o;
    int rc = bench_parse_args(argc, argv, &o);
    if (rc == 1) return 0;
    if (rc != 0) return 2;
    signal(SIGPIPE, SIG_IGN);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    double t_start = bench_now();
    struct bench_target_rt t;
    char err[2048] = "";
    rc = bench_target_open(&t, &o, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "sandboxd-conformance bench: %s\n",
                rc == 3   ? "endpoint unreachable"
                : rc == 2 ? "no target"
                          : "set-up failed");
        fprintf(stderr, "  %s\n", err);
        bench_target_close(&t);
        return rc;
    }
    if (!o.quiet)
        fprintf(stderr, "bench: %s mode, grpc %s, rest %s%s\n", t.mode, t.grpc, t.rest,
                t.pid > 0 ? "" : " (no PID: memory figures left out)");

    struct bench_results r;
    bench_results_init(&r);

    /* Idle memory first, before any load from the bench. */
    uint64_t idle_rss = 0, hwm = 0;
    bool have_idle = t.pid > 0 && bench_mem_read(t.pid, &idle_rss, &hwm) == 0;
    struct bench_mem *mem = t.pid > 0 ? bench_mem_start(t.pid, SAMPLE_INTERVAL_MS) : NULL;

    bench_floors(&r, &o, t.floor_dir);
    if (o.groups & BENCH_G_EXECUTE) {
        settle();
        bench_execute(&r, &o, t.grpc);
    }
    if (o.groups & BENCH_G_START) {
        settle();
        bench_start(&r, &o, t.grpc);
    }
    if (o.groups & BENCH_G_STREAMS) {
        settle();
        bench_streams(&r, &o, t.grpc);
    }
    if (o.groups & BENCH_G_REST) {
        settle();
        bench_rest(&r, &o, t.rest, mem);
    }

    const char *why = t.pid > 0 ? "" : "not measured: runtime PID unknown (--pid)";
    memory_figure(&r, "memory.rss_idle", "runtime RSS, idle (before the bench)", have_idle,
                  (double)idle_rss, have_idle || !*why ? why : "not measured: /proc unreadable");
    uint64_t samples = 0, peak = mem ? bench_mem_peak(mem, &samples) : 0;
    char note[96];
    bench_fmt(note, sizeof note, "highest of %llu samples of VmRSS", (unsigned long long)samples);
    memory_figure(&r, "memory.rss_peak", "runtime RSS, peak sampled during the run", mem != NULL,
                  (double)peak, mem ? note : why);
    uint64_t end_rss = 0, end_hwm = 0;
    bool have_end = t.pid > 0 && bench_mem_read(t.pid, &end_rss, &end_hwm) == 0;
    memory_figure(&r, "memory.hwm", "runtime VmHWM (peak RSS) at the end", have_end,
                  (double)end_hwm, have_end ? "" : why);
    memory_figure(&r, "memory.rss_end", "runtime RSS at the end", have_end, (double)end_rss,
                  have_end ? "" : why);
    bench_mem_stop(mem);

    bench_compute_ratios(&r);
    struct bench_run_info info = {
        .mode = t.mode, .grpc = t.grpc, .rest = t.rest, .pid = t.pid, .command = t.command};
    bench_machine_info(&info);
    info.seconds = bench_now() - t_start;
    bench_print_table(stdout, &r, &info, &o);
    fflush(stdout);

    rc = 0;
    if (o.json_path) {
        char jerr[256];
        if (bench_write_json(o.json_path, &r, &info, &o, jerr, sizeof jerr) != 0) {
            fprintf(stderr, "sandboxd-conformance bench: %s\n", jerr);
            rc = 4;
        }
    }
    bench_results_free(&r);
    bench_target_close(&t);
    curl_global_cleanup();
    return rc;
}
