/* SPDX-License-Identifier: Apache-2.0 */
/* The --header-file reader (suite/src/target/request_headers.c) on
 * arbitrary files: what ends up on every request of a run.
 *
 * Oracle: every header loaded has a field-name of token characters that is
 * not reserved and a non-empty one-line value (no CR, LF, NUL or other
 * control byte but tab, no surrounding blanks); a refused file gets a
 * reason that quotes no control byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "request_headers.h"

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
    snprintf(dir, sizeof dir, "/tmp/sbx-fuzz-headers-XXXXXX");
    FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(file, sizeof file, "%s/headers", dir);
    atexit(remove_files);
    return 0;
}

static const char *const reserved[] = {
    "host", "content-length", "content-type", "te", "connection", "transfer-encoding", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256 * 1024) return 0;
    if (!dir[0]) LLVMFuzzerInitialize(NULL, NULL);
    FILE *f = fopen(file, "wb");
    FUZZ_CHECK(f != NULL, "open %s", file);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size, "write");
    fclose(f);
    struct request_headers h;
    memset(&h, 0, sizeof h);
    char err[600];
    if (request_headers_add_file(&h, file, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0', "a refused file without a reason");
        for (const char *c = err; *c; c++)
            FUZZ_CHECK((unsigned char)*c >= 0x20, "control byte 0x%02x in the reason",
                       (unsigned char)*c);
    }
    for (size_t i = 0; i < h.n; i++) {
        const struct request_header *e = &h.v[i];
        FUZZ_CHECK(e->name[0] &&
                       strspn(e->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                                       "VWXYZ0123456789!#$%&'*+-.^_`|~") == strlen(e->name),
                   "name '%s'", e->name);
        FUZZ_CHECK(strcasecmp(e->name, e->lower) == 0, "lower-case form '%s'", e->lower);
        for (const char *const *r = reserved; *r; r++)
            FUZZ_CHECK(strcasecmp(e->name, *r) != 0, "reserved name '%s' loaded", e->name);
        FUZZ_CHECK(strncasecmp(e->name, "grpc-", 5) != 0, "grpc-* name '%s' loaded", e->name);
        size_t vl = strlen(e->value);
        FUZZ_CHECK(vl > 0 && e->value[0] != ' ' && e->value[0] != '\t' && e->value[vl - 1] != ' ' &&
                       e->value[vl - 1] != '\t',
                   "value of '%s' empty or padded", e->name);
        for (const char *c = e->value; *c; c++)
            FUZZ_CHECK(((unsigned char)*c >= 0x20 || *c == '\t') && *c != 0x7f,
                       "control byte 0x%02x in the value of '%s'", (unsigned char)*c, e->name);
    }
    request_headers_free(&h);
    return 0;
}
