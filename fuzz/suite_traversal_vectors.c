/* SPDX-License-Identifier: Apache-2.0 */
/* The traversal vector loader (cases/confinement/traversal.c) on arbitrary
 * files given as traversal.yaml through $SBX_CASES_DIR.
 *
 * Oracle: a corpus that loads holds only complete vectors (an id, a known
 * class, a path), and every PUT and DELETE template it accepts ends in one
 * of the suite's own names, the loader's safety rule: whatever a runtime
 * does with the path, a write or a removal can only reach a canary. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confinement/traversal.h"
#include "fuzz_check.h"

static char dir[64], file[128];

static void remove_files(void)
{
    char sub[96];
    unlink(file);
    snprintf(sub, sizeof sub, "%s/confinement", dir);
    rmdir(sub);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/sbx-fuzz-trav-XXXXXX");
    FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char sub[96];
    snprintf(sub, sizeof sub, "%s/confinement", dir);
    FUZZ_CHECK(mkdir(sub, 0700) == 0, "mkdir");
    snprintf(file, sizeof file, "%s/traversal.yaml", sub);
    setenv("SBX_CASES_DIR", dir, 1);
    atexit(remove_files);
    return 0;
}

/* The template's last placeholder is followed by no separator: nothing
 * after it but a suffix within the same component, and at most one final
 * '/' (or "%2f") naming it as a directory. */
static int ends_in_placeholder(const char *t)
{
    static const char *const own[] = {"{pf}", "{pd}", "{pi}", "{tf}", "{sf}", "{in}", "{sib}"};
    const char *last = NULL;
    size_t last_len = 0;
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        for (const char *p = strstr(t, own[i]); p; p = strstr(p + 1, own[i]))
            if (!last || p > last) {
                last = p;
                last_len = strlen(own[i]);
            }
    if (!last) return 0;
    char rest[4096];
    snprintf(rest, sizeof rest, "%s", last + last_len);
    size_t n = strlen(rest);
    if (n >= 1 && rest[n - 1] == '/')
        rest[n - 1] = '\0';
    else if (n >= 3 && rest[n - 3] == '%' && rest[n - 2] == '2' && (rest[n - 1] | 0x20) == 'f')
        rest[n - 3] = '\0';
    return strchr(rest, '/') == NULL && strstr(rest, "%2f") == NULL && strstr(rest, "%2F") == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256 * 1024) return 0;
    if (!dir[0]) LLVMFuzzerInitialize(NULL, NULL);
    FILE *f = fopen(file, "wb");
    FUZZ_CHECK(f != NULL, "open %s", file);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size, "write");
    fclose(f);
    struct trav_corpus c;
    char err[512];
    if (trav_load(&c, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "a refused corpus without a reason");
        trav_free(&c);
        return 0;
    }
    for (size_t i = 0; i < c.n; i++) {
        const struct trav_vector *v = &c.v[i];
        FUZZ_CHECK(v->id && v->id[0], "vector %zu without an id", i);
        FUZZ_CHECK(v->cls < TC_COUNT, "vector %s: class %d", v->id, (int)v->cls);
        FUZZ_CHECK(v->path != NULL, "vector %s without a path", v->id);
        const char *put = v->put_path ? v->put_path : v->path;
        const char *del = v->delete_path ? v->delete_path : v->path;
        FUZZ_CHECK(ends_in_placeholder(put), "vector %s: PUT template '%s' is not one of ours",
                   v->id, put);
        FUZZ_CHECK(ends_in_placeholder(del), "vector %s: DELETE template '%s' is not one of ours",
                   v->id, del);
    }
    trav_free(&c);
    return 0;
}
