/* SPDX-License-Identifier: Apache-2.0 */
/* Console table and JSON output of a bench run. */
#include "bench_text.h"
#include "bench_report.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void bench_machine_info(struct bench_run_info *i)
{
    i->nproc = sysconf(_SC_NPROCESSORS_ONLN);
    bench_fmt(i->cpu, sizeof i->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) != 0) continue;
            const char *v = strchr(line, ':');
            if (!v) continue;
            v++;
            while (*v == ' ' || *v == '\t')
                v++;
            bench_fmt(i->cpu, sizeof i->cpu, "%.*s", (int)strcspn(v, "\n"), v);
            break;
        }
        fclose(f);
    }
    struct utsname u;
    if (uname(&u) == 0)
        bench_fmt(i->kernel, sizeof i->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(i->date, sizeof i->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void bench_fmt_time(char *buf, size_t len, double s)
{
    if (s < 1e-3)
        bench_fmt(buf, len, "%.0fus", s * 1e6);
    else if (s < 1.0)
        bench_fmt(buf, len, "%.2fms", s * 1e3);
    else
        bench_fmt(buf, len, "%.2fs", s);
}

void bench_fmt_rate(char *buf, size_t len, double b)
{
    if (b >= 1e9)
        bench_fmt(buf, len, "%.2f GB/s", b / 1e9);
    else if (b >= 1e6)
        bench_fmt(buf, len, "%.0f MB/s", b / 1e6);
    else
        bench_fmt(buf, len, "%.1f kB/s", b / 1e3);
}

void bench_fmt_bytes(char *buf, size_t len, double b)
{
    if (b >= 1024.0 * 1024.0 * 1024.0)
        bench_fmt(buf, len, "%.2f GiB", b / (1024.0 * 1024.0 * 1024.0));
    else if (b >= 1024.0 * 1024.0)
        bench_fmt(buf, len, "%.1f MiB", b / (1024.0 * 1024.0));
    else
        bench_fmt(buf, len, "%.0f KiB", b / 1024.0);
}

static const char *floor_name(const char *id)
{
    return strncmp(id, "floor.", 6) == 0 ? id + 6 : id;
}

/* Where the floor column starts in a figure row (see the row format). */
#define ALT_FLOOR_COLUMN (44 + 1 + 6 + 1 + 4 + 4 * 9 + 1 + 14 + 2)

static void print_figure(FILE *out, const struct bench_figure *f)
{
    char p50[16], p90[16], p99[16], mx[16], tput[24] = "", ratio[16] = "", fl[24] = "";
    if (!f->measured) {
        fprintf(out, "%-44s  %s\n", f->label, f->note[0] ? f->note : "not measured");
        return;
    }
    if (f->kind == BENCH_MEMORY) {
        char v[24];
        bench_fmt_bytes(v, sizeof v, f->value);
        fprintf(out, "%-44s  %10s%s%s\n", f->label, v, f->note[0] ? "   " : "", f->note);
        return;
    }
    bench_fmt_time(p50, sizeof p50, f->lat.p50);
    bench_fmt_time(p90, sizeof p90, f->lat.p90);
    bench_fmt_time(p99, sizeof p99, f->lat.p99);
    bench_fmt_time(mx, sizeof mx, f->lat.max);
    if (f->kind == BENCH_TRANSFER && f->throughput >= 0.0)
        bench_fmt_rate(tput, sizeof tput, f->throughput);
    else if (f->kind == BENCH_LATENCY && f->throughput >= 0.0)
        bench_fmt(tput, sizeof tput, "%.0f/s", f->throughput);
    else if (f->kind == BENCH_STREAMS)
        bench_fmt(tput, sizeof tput, "%.0f/%.0f done", f->value, f->value_of);
    if (f->floor[0]) {
        bench_fmt(fl, sizeof fl, "%s", floor_name(f->floor));
        if (isnan(f->ratio))
            bench_fmt(ratio, sizeof ratio, "n/a");
        else
            bench_fmt(ratio, sizeof ratio, "%.2fx", f->ratio);
    }
    fprintf(out, "%-44s %6zu %4llu %8s %8s %8s %8s %14s  %-10s %7s\n", f->label, f->lat.count,
            (unsigned long long)f->errors, p50, p90, p99, mx, tput, fl, ratio);
    if (f->alt_floor[0] && !isnan(f->alt_ratio))
        fprintf(out, "%*s%-10s %6.2fx\n", ALT_FLOOR_COLUMN, "", floor_name(f->alt_floor),
                f->alt_ratio);
    if (f->note[0]) fprintf(out, "    note: %s\n", f->note);
}

static void fmt_target_value(char *buf, size_t len, const struct bench_target *t, double v)
{
    if (strcmp(t->unit, "B/s") == 0)
        bench_fmt_rate(buf, len, v);
    else if (strcmp(t->unit, "B") == 0)
        bench_fmt_bytes(buf, len, v);
    else if (strcmp(t->unit, "req/s") == 0)
        bench_fmt(buf, len, "%.0f req/s", v);
    else if (strcmp(t->unit, "fraction") == 0)
        bench_fmt(buf, len, "%.1f%% completed", v * 100.0);
    else
        bench_fmt(buf, len, "%.2fx", v);
}

void bench_print_table(FILE *out, const struct bench_results *r, const struct bench_run_info *i,
                       const struct bench_opts *o)
{
    char size[24], small[24];
    bench_fmt_bytes(size, sizeof size, (double)o->size);
    bench_fmt_bytes(small, sizeof small, (double)o->small_size);
    fprintf(out, "\nsandboxd-conformance bench %s (%s)\n", SBX_VERSION, SBX_GIT_COMMIT);
    fprintf(out, "target:  %s  grpc %s  rest %s", i->mode, i->grpc, i->rest);
    if (i->pid > 0) fprintf(out, "  pid %d", i->pid);
    fputc('\n', out);
    if (i->command) fprintf(out, "command: %s\n", i->command);
    fprintf(out, "machine: %ld cores, %s, %s, %s\n", i->nproc, i->cpu, i->kernel, i->date);
    fprintf(out,
            "params:  size %s, small files %s, per figure <= %u ops and <= %.1f s, warm-up %u, "
            "%u streams of sleep %u\n\n",
            size, small, o->count, o->duration, o->warmup, o->streams, o->stream_sleep);

    fprintf(out, "%-44s %6s %4s %8s %8s %8s %8s %14s  %-10s %7s\n", "figure", "count", "err", "p50",
            "p90", "p99", "max", "throughput", "floor", "ratio");
    /* Figures grouped, groups in the order they first appear. */
    for (size_t k = 0; k < r->n; k++) {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = strcmp(r->f[j].group, r->f[k].group) == 0;
        if (seen) continue;
        fprintf(out, "-- %s\n", r->f[k].group);
        for (size_t j = k; j < r->n; j++)
            if (strcmp(r->f[j].group, r->f[k].group) == 0) print_figure(out, &r->f[j]);
    }
    fputs("\nratio: latency figures p50 / floor p50 (lower is better); throughput figures\n"
          "throughput / floor throughput (higher is better). Throughput of a transfer is\n"
          "bytes / time of the successful transfers; of operations, successful ops / wall time.\n",
          out);

    size_t nt;
    const struct bench_target *t = bench_targets(&nt);
    fputs("\nTargets of sandboxd-ref -- information, not assertions:\n", out);
    for (size_t k = 0; k < nt; k++) {
        struct bench_verdict v = bench_evaluate(r, &t[k]);
        char val[40] = "", lim[40] = "";
        fmt_target_value(lim, sizeof lim, &t[k], t[k].limit);
        if (!v.evaluated) {
            fprintf(out, "  [ n/a  ] #%s %-62s not measured\n", t[k].issue, t[k].text);
            continue;
        }
        fmt_target_value(val, sizeof val, &t[k], v.value);
        fprintf(out, "  [%s] #%s %-62s %s", v.reached ? "  ok  " : "MISSED", t[k].issue, t[k].text,
                val);
        if (!v.reached && t[k].limit > 0.0)
            fprintf(out, " (%.2fx of the limit %s)", v.value / t[k].limit, lim);
        fputc('\n', out);
    }
    fprintf(out, "\nbench took %.1f s\n", i->seconds);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *num_or_null(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static const char *kind_name(enum bench_kind k)
{
    switch (k) {
    case BENCH_LATENCY:
        return "latency";
    case BENCH_TRANSFER:
        return "transfer";
    case BENCH_STREAMS:
        return "streams";
    case BENCH_MEMORY:
        return "memory";
    }
    return "unknown";
}

static const char *basis_name(enum bench_ratio_basis b)
{
    switch (b) {
    case BENCH_RATIO_P50:
        return "p50";
    case BENCH_RATIO_THROUGHPUT:
        return "throughput";
    case BENCH_RATIO_NONE:
        break;
    }
    return NULL;
}

static json_t *figure_json(const struct bench_figure *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(f->id));
    json_object_set_new(o, "label", json_string(f->label));
    json_object_set_new(o, "group", json_string(f->group));
    json_object_set_new(o, "kind", json_string(kind_name(f->kind)));
    json_object_set_new(o, "measured", json_boolean(f->measured));
    json_object_set_new(o, "count", json_integer((json_int_t)f->lat.count));
    json_object_set_new(o, "errors", json_integer((json_int_t)f->errors));
    bool lat = f->measured && f->lat.count > 0 && f->kind != BENCH_MEMORY;
    json_object_set_new(o, "p50_s", lat ? json_real(f->lat.p50) : json_null());
    json_object_set_new(o, "p90_s", lat ? json_real(f->lat.p90) : json_null());
    json_object_set_new(o, "p99_s", lat ? json_real(f->lat.p99) : json_null());
    json_object_set_new(o, "max_s", lat ? json_real(f->lat.max) : json_null());
    json_object_set_new(o, "mean_s", lat ? json_real(f->lat.mean) : json_null());
    json_object_set_new(o, "elapsed_s", f->measured ? json_real(f->elapsed) : json_null());
    const char *unit = f->kind == BENCH_TRANSFER  ? "B/s"
                       : f->kind == BENCH_LATENCY ? "ops/s"
                                                  : NULL;
    json_object_set_new(o, "throughput",
                        f->measured && unit && f->throughput >= 0.0 ? json_real(f->throughput)
                                                                    : json_null());
    json_object_set_new(o, "throughput_unit", unit ? json_string(unit) : json_null());
    if (f->kind == BENCH_TRANSFER)
        json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
    if (f->kind == BENCH_STREAMS) {
        json_object_set_new(o, "completed", f->measured ? json_real(f->value) : json_null());
        json_object_set_new(o, "opened", json_real(f->value_of));
    }
    if (f->kind == BENCH_MEMORY)
        json_object_set_new(o, "bytes", f->measured ? json_real(f->value) : json_null());
    const char *basis = basis_name(f->basis);
    json_object_set_new(o, "floor", f->floor[0] ? json_string(f->floor) : json_null());
    /* Written for a figure without a floor too: it also says which value
     * the figure is compared by (a floor's crowd by its calls per second). */
    json_object_set_new(o, "ratio_of", basis ? json_string(basis) : json_null());
    json_object_set_new(o, "ratio", num_or_null(f->ratio));
    if (f->alt_floor[0]) {
        json_object_set_new(o, "alt_floor", json_string(f->alt_floor));
        json_object_set_new(o, "alt_ratio", num_or_null(f->alt_ratio));
    }
    json_object_set_new(o, "note", json_string(f->note));
    json_t *rounds = json_array();
    for (unsigned k = 0; k < f->n_rounds; k++)
        json_array_append_new(rounds, num_or_null(f->round_value[k]));
    json_object_set_new(o, "rounds", rounds);
    json_object_set_new(o, "spread", num_or_null(f->spread));
    return o;
}

int bench_write_json(const char *path, const struct bench_results *r,
                     const struct bench_run_info *i, const struct bench_opts *o, char *err,
                     size_t err_len)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("sandboxd-conformance-bench/1"));
    json_object_set_new(root, "suite",
                        json_pack("{s:s, s:s}", "version", SBX_VERSION, "commit", SBX_GIT_COMMIT));
    json_object_set_new(root, "machine",
                        json_pack("{s:I, s:s, s:s, s:s}", "nproc", (json_int_t)i->nproc, "cpu",
                                  i->cpu, "kernel", i->kernel, "date", i->date));
    json_t *target =
        json_pack("{s:s, s:s, s:s}", "mode", i->mode, "grpc", i->grpc, "rest", i->rest);
    json_object_set_new(target, "pid", i->pid > 0 ? json_integer(i->pid) : json_null());
    json_object_set_new(target, "command", i->command ? json_string(i->command) : json_null());
    json_object_set_new(root, "target", target);
    json_object_set_new(
        root, "params",
        json_pack("{s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:f}", "size", (json_int_t)o->size,
                  "small_size", (json_int_t)o->small_size, "count", (json_int_t)o->count,
                  "duration_s", o->duration, "warmup", (json_int_t)o->warmup, "streams",
                  (json_int_t)o->streams, "stream_sleep_s", (json_int_t)o->stream_sleep,
                  "streams_timeout_s", o->streams_timeout));
    json_t *figs = json_array();
    for (size_t k = 0; k < r->n; k++)
        json_array_append_new(figs, figure_json(&r->f[k]));
    json_object_set_new(root, "figures", figs);

    size_t nt;
    const struct bench_target *t = bench_targets(&nt);
    json_t *tj = json_array();
    for (size_t k = 0; k < nt; k++) {
        struct bench_verdict v = bench_evaluate(r, &t[k]);
        json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:s}", "id", t[k].id, "issue",
                              t[k].issue, "text", t[k].text, "figure", t[k].figure, "comparison",
                              t[k].cmp == BENCH_AT_MOST    ? "<="
                              : t[k].cmp == BENCH_AT_LEAST ? ">="
                                                           : "<",
                              "limit", t[k].limit, "unit", t[k].unit);
        json_object_set_new(e, "value", v.evaluated ? num_or_null(v.value) : json_null());
        json_object_set_new(e, "reached", v.evaluated ? json_boolean(v.reached) : json_null());
        json_array_append_new(tj, e);
    }
    json_object_set_new(root, "targets", tj);
    json_object_set_new(root, "seconds", json_real(i->seconds));

    int rc = json_dump_file(root, path, JSON_INDENT(2) | JSON_ENSURE_ASCII);
    json_decref(root);
    if (rc != 0) {
        bench_fmt(err, err_len, "cannot write %s", path);
        return -1;
    }
    return 0;
}
