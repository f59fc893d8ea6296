/* SPDX-License-Identifier: Apache-2.0 */
/* --rerun-failed on arbitrary files: the ids read from an earlier
 * results.json (suite/src/run/selection.c) and the selection they make over the
 * real catalog.
 *
 * Oracle: every id read is one the file lists with outcome fail, timeout or
 * error; the selection holds exactly the catalog's cases among those ids. */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "fuzz_check.h"
#include "results.h"
#include "selection.h"

static char dir[64], file[128];
static struct catalog cat;

static void remove_files(void)
{
    unlink(file);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/sbx-fuzz-rerun-XXXXXX");
    FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(file, sizeof file, "%s/results.json", dir);
    atexit(remove_files);
    char err[256];
    FUZZ_CHECK(catalog_load(&cat, err, sizeof err) == 0, "catalog: %s", err);
    return 0;
}

/* Whether the document lists id as failed, timed out or errored. */
static bool listed_bad(const uint8_t *data, size_t size, const char *id)
{
    json_t *doc = json_loadb((const char *)data, size, 0, NULL);
    bool found = false;
    json_t *cases = json_object_get(doc, "cases"), *c;
    size_t i;
    json_array_foreach(cases, i, c)
    {
        const char *cid = json_string_value(json_object_get(c, "id"));
        const char *o = json_string_value(json_object_get(c, "outcome"));
        if (cid && o && strcmp(cid, id) == 0 &&
            (!strcmp(o, "fail") || !strcmp(o, "timeout") || !strcmp(o, "error")))
            found = true;
    }
    json_decref(doc);
    return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256 * 1024) return 0;
    if (!dir[0]) LLVMFuzzerInitialize(NULL, NULL);
    FILE *f = fopen(file, "wb");
    FUZZ_CHECK(f != NULL, "open %s", file);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size, "write");
    fclose(f);
    char err[512] = "";
    char **ids = selection_failed_ids(file, err, sizeof err);
    if (!ids) {
        FUZZ_CHECK(err[0] != '\0', "refused without a reason");
        return 0;
    }
    for (char **id = ids; *id; id++)
        FUZZ_CHECK(listed_bad(data, size, *id), "id '%s' was not listed as failed", *id);

    struct selection sel;
    FUZZ_CHECK(selection_init(&sel, NULL, NULL, err, sizeof err) == 0, "selection: %s", err);
    sel.only_ids = ids;
    sel.transport = true;
    struct run_results res;
    memset(&res, 0, sizeof res);
    FUZZ_CHECK(selection_apply(&sel, &cat, &res) == 0, "selection_apply");
    for (size_t i = 0; i < res.count; i++) {
        bool listed = false;
        for (char **id = ids; *id && !listed; id++)
            listed = strcmp(*id, res.cases[i].def->id) == 0;
        FUZZ_CHECK(res.cases[i].selected == listed, "case %s: selected %d, listed %d",
                   res.cases[i].def->id, res.cases[i].selected, listed);
    }
    run_results_free(&res);
    sel.only_ids = NULL;
    selection_free(&sel);
    selection_free_ids(ids);
    return 0;
}
