/* SPDX-License-Identifier: Apache-2.0 */
/* The Range header parser (GET /v1/files, F2). Oracle: a range it accepts
 * is non-empty and lies inside the file; a syntactically valid single range
 * is never silently ignored when its first byte is inside the file.
 *
 * Input: 8 bytes of file size (little endian), then the header value. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "rest/byte_range.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8 || size > 8 + 4096) return 0;
    uint64_t file_size = 0;
    for (int i = 7; i >= 0; i--)
        file_size = file_size << 8 | data[i];
    if (data[7] & 0x80) file_size &= 0xffff; /* keep small files common */
    char *header = malloc(size - 8 + 1);
    if (!header) return 0;
    memcpy(header, data + 8, size - 8);
    header[size - 8] = '\0';

    uint64_t start = UINT64_MAX, len = UINT64_MAX;
    enum byte_range_result r = parse_byte_range(header, file_size, &start, &len);
    FUZZ_CHECK(r == RANGE_NONE || r == RANGE_OK || r == RANGE_UNSATISFIABLE, "result %d", r);
    if (r == RANGE_OK) {
        FUZZ_CHECK(len >= 1, "empty range for '%s'", header);
        FUZZ_CHECK(start < file_size, "start %llu beyond size %llu for '%s'",
                   (unsigned long long)start, (unsigned long long)file_size, header);
        FUZZ_CHECK(len <= file_size - start, "range %llu+%llu beyond size %llu for '%s'",
                   (unsigned long long)start, (unsigned long long)len,
                   (unsigned long long)file_size, header);
    }
    if (r != RANGE_NONE) FUZZ_CHECK(file_size > 0, "a range of an empty file: '%s'", header);

    /* Plain "bytes=A-B" with A inside the file and A <= B: always a range. */
    unsigned long long a, b;
    int used = 0;
    if (sscanf(header, "bytes=%llu-%llu%n", &a, &b, &used) == 2 && header[used] == '\0' &&
        header[6] >= '0' && header[6] <= '9' && a <= b && a < file_size &&
        strchr(header, '+') == NULL && strchr(header, ' ') == NULL &&
        strchr(header + 6, '-') > header + 6 && strchr(header, '-')[1] >= '0' &&
        strchr(header, '-')[1] <= '9' && a < UINT64_MAX / 2 && b < UINT64_MAX / 2) {
        FUZZ_CHECK(r == RANGE_OK && start == a, "'%s' of %llu bytes: result %d start %llu", header,
                   (unsigned long long)file_size, r, (unsigned long long)start);
    }
    free(header);
    return 0;
}
