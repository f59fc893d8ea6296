/* SPDX-License-Identifier: Apache-2.0 */
/* The --baseline loader (suite/src/compare/baseline.c) on arbitrary files.
 *
 * Oracle: a baseline that loads has an id for every entry, and looking each
 * id up finds an entry with that id. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "fuzz_check.h"

static char dir[64], file[128];

static void remove_files(void)
{
    unlink(file);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/sbx-fuzz-baseline-XXXXXX");
    FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(file, sizeof file, "%s/known.yaml", dir);
    atexit(remove_files);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256 * 1024) return 0;
    if (!dir[0]) LLVMFuzzerInitialize(NULL, NULL);
    FILE *f = fopen(file, "wb");
    FUZZ_CHECK(f != NULL, "open %s", file);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size, "write");
    fclose(f);
    struct baseline b;
    char err[512];
    memset(&b, 0, sizeof b);
    if (baseline_load(file, &b, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "a refused baseline without a reason");
        baseline_free(&b);
        return 0;
    }
    for (size_t i = 0; i < b.count; i++) {
        const char *id = b.entries[i].id;
        FUZZ_CHECK(id && id[0], "entry %zu without an id", i);
        const struct baseline_entry *e = baseline_find(&b, id);
        FUZZ_CHECK(e && strcmp(e->id, id) == 0, "id %s not found again", id);
    }
    FUZZ_CHECK(baseline_find(&b, "no such id \x01") == NULL, "found an id never listed");
    baseline_free(&b);
    return 0;
}
