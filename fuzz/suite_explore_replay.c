/* SPDX-License-Identifier: Apache-2.0 */
/* explore's replay file parser (suite/src/explore/explore_history.c) on
 * arbitrary bytes.
 *
 * Oracle: a refused file comes with a reason; an accepted one holds only
 * operations explore knows, whose paths stay in the workspace (no empty,
 * "." or ".." component, no leading '/'), within the size bounds; and it
 * dumps and parses back to the same operations. */
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
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK((unsigned)ops[i].kind < XOP__COUNT, "operation %zu of unknown kind", i);
        FUZZ_CHECK(path_inside(ops[i].path), "operation %zu leaves the workspace: %s", i,
                   ops[i].path);
        FUZZ_CHECK(path_inside(ops[i].target), "operation %zu links outside: %s", i, ops[i].target);
        FUZZ_CHECK(ops[i].size <= XHIST_MAX_SIZE, "operation %zu too large", i);
        FUZZ_CHECK(ops[i].kind != XOP_DELETE || ops[i].path[0], "DELETE of the workspace");
    }
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
