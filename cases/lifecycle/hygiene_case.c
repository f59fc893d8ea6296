/* SPDX-License-Identifier: Apache-2.0 */
/* L5: process hygiene over many cycles. The launched runtime's open
 * descriptors (/proc/<pid>/fd) and resident memory (VmRSS of
 * /proc/<pid>/status) are read from the host after a warm-up and again after
 * many failed PTY Starts and many Executes: a leak per process grows with
 * the count, caches and allocator growth stay within a fixed slack. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"
#include "lifecycle/lc_util.h"

#define WARM_PTY 20
#define WARM_EXEC 200
#define CYCLE_PTY 200
#define CYCLE_EXEC 2000
#define CYCLE_BUDGET_MS 100000u
#define FD_SLACK 8
#define RSS_SLACK_KIB 512

static int count_fds(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static long rss_kib(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
    fclose(f);
    return kib;
}

/* Whether AddressSanitizer's runtime is mapped into the process. */
static bool asan_runtime(int pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *f = fopen(path, "r");
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, "libasan") != NULL;
    if (f) fclose(f);
    return found;
}

/* A PTY Start of a command that does not exist: the runtime must refuse it
 * (or report its failure) and give back everything it opened for it. */
static bool failed_pty_start(struct case_ctx *ctx, const char *missing)
{
    const char *argv[] = {missing, NULL};
    const uint32_t size[2] = {80, 24};
    struct rpc_spec spec = {.argv = argv, .timeout_ms = 10000};
    struct rpc_stream *s = rpc_start(ctx, &spec, size);
    if (!s) return false;
    struct rpc_result r = {0};
    int end = rpc_collect(s, 15000, &r, NULL);
    rpc_result_free(&r);
    rpc_stream_free(s);
    return end == 0;
}

static bool one_execute(struct case_ctx *ctx)
{
    const char *argv[] = {"true", NULL};
    struct rpc_spec spec = {.argv = argv, .timeout_ms = 10000};
    struct rpc_result r = {0};
    int code = rpc_execute(ctx, &spec, &r);
    rpc_result_free(&r);
    return code == 0;
}

/* Runs n of each; false (failure recorded) when a call broke, or when the
 * time budget ran out (*done says how far it got). */
static bool cycles(struct case_ctx *ctx, const char *missing, int n_pty, int n_exec,
                   uint64_t deadline, int *done)
{
    *done = 0;
    for (int i = 0; i < n_pty; i++, (*done)++) {
        if (case_now_ms() > deadline) return false;
        if (!failed_pty_start(ctx, missing)) {
            case_fail(ctx, "a failed PTY Start to end with a status", "Start %d of %d did not end",
                      i + 1, n_pty);
            return false;
        }
    }
    for (int i = 0; i < n_exec; i++, (*done)++) {
        if (case_now_ms() > deadline) return false;
        if (!one_execute(ctx)) {
            case_fail(ctx, "Execute of `true` to answer OK", "Execute %d of %d did not", i + 1,
                      n_exec);
            return false;
        }
    }
    return true;
}

static void hygiene_cycles(struct case_ctx *ctx)
{
    struct private_runtime *rt = case_runtime_start(ctx, NULL);
    if (!rt) return;
    case_use_runtime(ctx, rt);
    int pid = private_runtime_pid(rt);
    char missing[64];
    snprintf(missing, sizeof missing, "sbx-no-such-command-%08llx",
             (unsigned long long)(case_rand(ctx) & 0xffffffffu));
    int done = 0;
    uint64_t deadline = case_now_ms() + CYCLE_BUDGET_MS;
    if (count_fds(pid) < 0 || rss_kib(pid) < 0) {
        case_skip(ctx,
                  "cannot read /proc/%d/fd and /proc/%d/status of the launched runtime "
                  "(another user, or a wrapper between the suite and the runtime)",
                  pid, pid);
    } else if (cycles(ctx, missing, WARM_PTY, WARM_EXEC, deadline, &done)) {
        /* Two equal rounds after the warm-up: a leak grows in both, a cache
         * or the allocator's first growth in the first one at most. */
        int fd[3] = {count_fds(pid), -1, -1};
        long rss[3] = {rss_kib(pid), -1, -1};
        int rounds = 0;
        for (; rounds < 2; rounds++) {
            if (!cycles(ctx, missing, CYCLE_PTY / 2, CYCLE_EXEC / 2, deadline, &done)) break;
            fd[rounds + 1] = count_fds(pid);
            rss[rounds + 1] = rss_kib(pid);
        }
        if (rounds == 2) {
            CASE_CHECK(ctx, fd[1] >= 0 && fd[2] >= 0 && fd[2] - fd[0] <= FD_SLACK,
                       "open descriptors not growing with the processes run (slack 8)",
                       "%d after the warm-up, %d and %d after each round of %d failed PTY "
                       "Starts and %d Executes",
                       fd[0], fd[1], fd[2], CYCLE_PTY / 2, CYCLE_EXEC / 2);
            if (asan_runtime(pid))
                case_note(ctx, "the runtime carries AddressSanitizer (its quarantine keeps "
                               "freed memory): VmRSS not judged");
            else
                CASE_CHECK(ctx, rss[2] >= 0 && rss[2] - rss[1] <= RSS_SLACK_KIB,
                           "resident memory not growing over the second round (slack 512 KiB)",
                           "VmRSS %ld KiB after the warm-up, %ld and %ld KiB after each round of "
                           "%d failed PTY Starts and %d Executes (%+.2f KiB per process in the "
                           "second)",
                           rss[0], rss[1], rss[2], CYCLE_PTY / 2, CYCLE_EXEC / 2,
                           (double)(rss[2] - rss[1]) / ((CYCLE_PTY + CYCLE_EXEC) / 2));
            case_note(ctx,
                      "descriptors %d -> %d -> %d, VmRSS %ld -> %ld -> %ld KiB over two "
                      "rounds of %d failed PTY Starts and %d Executes",
                      fd[0], fd[1], fd[2], rss[0], rss[1], rss[2], CYCLE_PTY / 2, CYCLE_EXEC / 2);
        } else if (!case_failed(ctx)) {
            case_skip(ctx, "ran only %d of %d cycles within %u s: too few to tell a leak", done,
                      (CYCLE_PTY + CYCLE_EXEC) / 2, CYCLE_BUDGET_MS / 1000);
        }
    } else if (!case_failed(ctx)) {
        case_skip(ctx, "the warm-up did not finish within %u s", CYCLE_BUDGET_MS / 1000);
    }
    case_use_shared_runtime(ctx);
    private_runtime_stop(rt);
}
SBX_CASE(hygiene_cycles, .id = "L5-001",
         .title = "Descriptors and memory stay flat over hundreds of failed PTY Starts and "
                  "thousands of Executes",
         .clauses = "L5", .level = LEVEL_SHOULD, .tags = "lifecycle", .needs = NEEDS_LAUNCH,
         .timeout_s = 150,
         .catches = "a failed PTY Start leaking its PTY master, a per-process record never freed",
         .how = "a private instance; after a warm-up (20 failed PTY Starts, 200 Executes) counts "
                "/proc/<pid>/fd and reads VmRSS, then 200 PTY Starts of a missing command and 2000 "
                "Executes of `true` in two equal rounds (100 s at most, else skipped): descriptors "
                "may grow by 8 in all, VmRSS by 512 KiB over the second round (not judged for a "
                "runtime carrying AddressSanitizer)");
