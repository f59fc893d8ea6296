/* SPDX-License-Identifier: Apache-2.0 */
/* explore's replay file parser (suite/src/explore/explore_history.c) on
 * arbitrary bytes.
 *
 * Oracle: a refused file comes with a reason; an accepted one holds only
 * operations explore knows, whose paths stay in the workspace (no empty,
 * "." or ".." component, no leading '/'), within the size bounds; and it
 * dumps and parses back to the same operations. The same for the reader of
 * both formats (a concurrent round's jobs), which agrees with the plain
 * reader on a plain file. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_history.h"
#include "fuzz_check.h"

static int path_inside(const char *p)
{
    if (p[0] == '/') return 0;
    char buf[XOP_PATH_MAX + 2];
    snprintf(buf, sizeof buf, "/%s/", p);
    return !p[0] || (!strstr(buf, "//") && !strstr(buf, "/../") && !strstr(buf, "/./"));
}

static void check_ops(const struct xop *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK((unsigned)ops[i].kind < XOP__COUNT, "operation %zu of unknown kind", i);
        FUZZ_CHECK(path_inside(ops[i].path), "operation %zu leaves the workspace: %s", i,
                   ops[i].path);
        FUZZ_CHECK(path_inside(ops[i].target), "operation %zu links outside: %s", i, ops[i].target);
        FUZZ_CHECK(ops[i].size <= XHIST_MAX_SIZE, "operation %zu too large", i);
        FUZZ_CHECK(ops[i].kind != XOP_DELETE || ops[i].path[0], "DELETE of the workspace");
    }
}

/* The reader of both formats; plain_ok: the plain reader accepted it. */
static void check_jobs(const uint8_t *data, size_t size, int plain_ok, size_t plain_n)
{
    struct xhist_job *jobs = NULL;
    size_t n = 0;
    uint64_t seed = 0;
    bool concurrent = false;
    char err[512] = "";
    if (xhist_parse_jobs((const char *)data, size, &jobs, &n, &seed, &concurrent, err,
                         sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "a refused round without a reason");
        FUZZ_CHECK(jobs == NULL && n == 0, "a refused round left jobs");
        FUZZ_CHECK(!plain_ok, "a plain file the plain reader takes is refused as a round");
        return;
    }
    FUZZ_CHECK(n >= 1 && n <= XHIST_MAX_JOBS, "%zu jobs", n);
    FUZZ_CHECK(concurrent || (plain_ok && n == 1 && jobs[0].n == plain_n),
               "a plain file read differently by the two readers");
    size_t total = 0;
    for (size_t j = 0; j < n; j++) {
        check_ops(jobs[j].ops, jobs[j].n);
        total += jobs[j].n;
    }
    FUZZ_CHECK(total <= XHIST_MAX_OPS, "%zu operations in all", total);
    char *text = xhist_dump_jobs(jobs, n, seed, NULL);
    FUZZ_CHECK(text != NULL, "cannot dump the round");
    struct xhist_job *again = NULL;
    size_t n2 = 0;
    uint64_t seed2 = 0;
    FUZZ_CHECK(xhist_parse_jobs(text, strlen(text), &again, &n2, &seed2, &concurrent, err,
                                sizeof err) == 0,
               "its own round refused: %s", err);
    FUZZ_CHECK(n2 == n && seed2 == seed, "dump and parse changed the round");
    for (size_t j = 0; j < n; j++)
        FUZZ_CHECK(again[j].n == jobs[j].n && again[j].seed == jobs[j].seed,
                   "dump and parse changed job %zu", j);
    xhist_jobs_free(again, n2);
    xhist_jobs_free(jobs, n);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256 * 1024) return 0;
    struct xop *ops = NULL;
    size_t n = 0;
    uint64_t seed = 0;
    char err[512] = "";
    if (xhist_parse((const char *)data, size, &ops, &n, &seed, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "a refused replay file without a reason");
        FUZZ_CHECK(ops == NULL && n == 0, "a refused file left operations");
        check_jobs(data, size, 0, 0);
        return 0;
    }
    check_jobs(data, size, 1, n);
    check_ops(ops, n);
    char *text = xhist_dump(ops, n, seed, NULL);
    FUZZ_CHECK(text != NULL, "cannot dump what was parsed");
    struct xop *again = NULL;
    size_t n2 = 0;
    uint64_t seed2 = 0;
    FUZZ_CHECK(xhist_parse(text, strlen(text), &again, &n2, &seed2, err, sizeof err) == 0,
               "its own dump refused: %s", err);
    FUZZ_CHECK(n2 == n && seed2 == seed, "dump and parse changed the sequence");
    for (size_t i = 0; i < n; i++) {
        char *a = xop_render(&ops[i]), *b = xop_render(&again[i]);
        FUZZ_CHECK(a != NULL && b != NULL, "cannot render operation %zu", i);
        FUZZ_CHECK(strcmp(a, b) == 0, "operation %zu changed: %s / %s", i, a, b);
        free(a);
        free(b);
    }
    free(again);
    free(text);
    free(ops);
    return 0;
}
