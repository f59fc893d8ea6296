/* SPDX-License-Identifier: Apache-2.0 */
/* The fleet summary (see fleet_summary.h): one line per bundle, the sandboxes
 * of a --targets list that have none, totals by verdict. */
#include "fleet_summary.h"
#include "summary_options.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SUMMARY_MAX_BUNDLES 4096
#define SUMMARY_MAX_FAILED_IDS 8

struct bundle {
    char name[256];
    char verdict[64];
    char runtime[128];
    char failed[512]; /* up to SUMMARY_MAX_FAILED_IDS IDs, then "..." */
    long long pass, fail, skip, other;
    int exit_code; /* the run's own exit status; -1 when unreadable */
    char error[256];
};

/* The --help text (summary_options.c). */
static void usage(FILE *f)
{
    opt_print_help(f, &summary_command);
}

static const char *str_at(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(o, a);
    if (b) v = json_object_get(v, b);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static long long int_at(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(json_object_get(o, a), b);
    return json_is_integer(v) ? json_integer_value(v) : 0;
}

static void load_bundle(struct bundle *b, const char *dir, const char *name)
{
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->exit_code = -1;
    char path[PATH_MAX];
    int k = snprintf(path, sizeof path, "%s/results.json", dir);
    if (k < 0 || (size_t)k >= sizeof path) {
        snprintf(b->error, sizeof b->error, "path too long");
        return;
    }
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) {
        snprintf(b->error, sizeof b->error, "%.120s: %.120s", path, jerr.text);
        return;
    }
    const json_t *code = json_object_get(json_object_get(doc, "verdict"), "exit_code");
    const char *verdict = str_at(doc, "verdict", "text");
    if (!json_is_integer(code) || !verdict) {
        snprintf(b->error, sizeof b->error, "%.200s: not a results.json (no verdict)", path);
        json_decref(doc);
        return;
    }
    b->exit_code = (int)json_integer_value(code);
    snprintf(b->verdict, sizeof b->verdict, "%s", verdict);
    const char *rt = str_at(doc, "runtime", "version");
    snprintf(b->runtime, sizeof b->runtime, "%s", rt ? rt : "(version unknown)");
    b->pass = int_at(doc, "summary", "pass");
    b->fail = int_at(doc, "summary", "fail");
    b->skip = int_at(doc, "summary", "skip");
    b->other = int_at(doc, "summary", "timeout") + int_at(doc, "summary", "error");
    size_t i, shown = 0;
    const json_t *c;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        const char *st = str_at(c, "status", NULL), *id = str_at(c, "id", NULL);
        if (!st || !id ||
            (strcmp(st, "fail") != 0 && strcmp(st, "timeout") != 0 && strcmp(st, "error") != 0))
            continue;
        size_t used = strlen(b->failed);
        if (shown++ == SUMMARY_MAX_FAILED_IDS) {
            snprintf(b->failed + used, sizeof b->failed - used, " ...");
            break;
        }
        snprintf(b->failed + used, sizeof b->failed - used, "%s%s", used ? " " : "", id);
    }
    json_decref(doc);
}

static int has_results(const char *dir)
{
    char path[PATH_MAX];
    int k = snprintf(path, sizeof path, "%s/results.json", dir);
    if (k < 0 || (size_t)k >= sizeof path) return 0;
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct bundle *)a)->name, ((const struct bundle *)b)->name);
}

/* Adds DIR (a bundle) or its subdirectories that are bundles. */
static int collect(const char *dir, struct bundle *out, size_t *n)
{
    if (has_results(dir)) {
        const char *base = strrchr(dir, '/');
        base = base && base[1] ? base + 1 : dir;
        if (*n < SUMMARY_MAX_BUNDLES) load_bundle(&out[(*n)++], dir, base);
        return 0;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "sandboxd-conformance summary: %s: neither a bundle nor a directory\n",
                dir);
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) && *n < SUMMARY_MAX_BUNDLES) {
        if (e->d_name[0] == '.') continue;
        char sub[PATH_MAX];
        int k = snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (k > 0 && (size_t)k < sizeof sub && has_results(sub))
            load_bundle(&out[(*n)++], sub, e->d_name);
    }
    closedir(d);
    return 0;
}

/* Appends a missing entry for every listed name without a bundle. */
static int add_missing(const char *targets, struct bundle *out, size_t *n)
{
    FILE *f = fopen(targets, "r");
    if (!f) {
        perror(targets);
        return -1;
    }
    char line[1024];
    size_t found = *n;
    while (fgets(line, sizeof line, f) && *n < SUMMARY_MAX_BUNDLES) {
        char name[256];
        if (sscanf(line, "%255s", name) != 1 || name[0] == '#') continue;
        int have = 0;
        for (size_t i = 0; i < found && !have; i++)
            have = strcmp(out[i].name, name) == 0;
        if (have) continue;
        struct bundle *b = &out[(*n)++];
        memset(b, 0, sizeof *b);
        snprintf(b->name, sizeof b->name, "%s", name);
        b->exit_code = -1;
        snprintf(b->error, sizeof b->error, "no bundle (the run did not finish)");
    }
    fclose(f);
    return 0;
}

static void write_report(FILE *f, const struct bundle *b, size_t n, int markdown)
{
    size_t ok = 0, bad = 0, missing = 0;
    if (markdown)
        fputs("# Fleet conformance\n\n| sandbox | verdict | pass | fail | skip | timeout/error "
              "| runtime | failed cases |\n|---|---|---:|---:|---:|---:|---|---|\n",
              f);
    else
        fprintf(f, "%-24s %-18s %5s %5s %5s %5s  %s\n", "SANDBOX", "VERDICT", "PASS", "FAIL",
                "SKIP", "T/E", "RUNTIME / FAILED CASES");
    for (size_t i = 0; i < n; i++) {
        if (b[i].exit_code < 0) {
            missing++;
            if (markdown)
                fprintf(f, "| %s | **missing** | | | | | | %s |\n", b[i].name, b[i].error);
            else
                fprintf(f, "%-24s %-18s %s\n", b[i].name, "MISSING", b[i].error);
            continue;
        }
        b[i].exit_code == 0 ? ok++ : bad++;
        if (markdown)
            fprintf(f, "| %s | %s | %lld | %lld | %lld | %lld | %s | %s |\n", b[i].name,
                    b[i].verdict, b[i].pass, b[i].fail, b[i].skip, b[i].other, b[i].runtime,
                    b[i].failed[0] ? b[i].failed : "-");
        else
            fprintf(f, "%-24s %-18s %5lld %5lld %5lld %5lld  %s%s%s\n", b[i].name, b[i].verdict,
                    b[i].pass, b[i].fail, b[i].skip, b[i].other, b[i].runtime,
                    b[i].failed[0] ? " / " : "", b[i].failed);
    }
    fprintf(f, "%s%zu sandboxes: %zu passed, %zu failed, %zu missing\n", markdown ? "\n" : "\n", n,
            ok, bad, missing);
}

int fleet_summary_main(int argc, char **argv)
{
    struct summary_opts o = {0};
    struct opt_result words;
    char err[300];
    if (opt_parse(&summary_command, &o, argc, argv, &words, err, sizeof err) != 0) {
        fprintf(stderr, "sandboxd-conformance summary: %s\n", err);
        usage(stderr);
        return 2;
    }
    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (words.n_words == 0) {
        usage(stderr);
        return 2;
    }
    const char *targets = o.targets, *markdown = o.markdown;
    int first = words.first;
    struct bundle *b = calloc(SUMMARY_MAX_BUNDLES, sizeof *b);
    if (!b) return 1;
    size_t n = 0;
    int rc = 0;
    for (int i = first; i < argc; i++)
        if (collect(argv[i], b, &n) != 0) rc = 1;
    qsort(b, n, sizeof *b, by_name);
    if (targets && add_missing(targets, b, &n) != 0) rc = 1;
    write_report(stdout, b, n, 0);
    if (markdown) {
        FILE *f = fopen(markdown, "w");
        if (!f) {
            perror(markdown);
            rc = 1;
        } else {
            write_report(f, b, n, 1);
            if (fclose(f) != 0) {
                perror(markdown);
                rc = 1;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        if (b[i].exit_code != 0) rc = 1;
    if (n == 0) {
        fprintf(stderr, "sandboxd-conformance summary: no bundle found\n");
        rc = 1;
    }
    free(b);
    return rc;
}
