/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_BYTE_RANGE_H
#define SBX_REST_BYTE_RANGE_H
/* A single HTTP byte range (RFC 9110 section 14): bytes=a-b, a-, -n. */
#include <stdint.h>

enum byte_range_result {
    RANGE_NONE,          /* no usable Range header: answer the whole file (200) */
    RANGE_OK,            /* answer *start, *len with 206 */
    RANGE_UNSATISFIABLE, /* answer 416 with Content-Range: bytes * /size */
};

/* Parses `header` (may be NULL) against a file of `size` bytes. Multiple
 * ranges and other units are ignored (RANGE_NONE), as RFC 9110 allows. */
enum byte_range_result parse_byte_range(const char *header, uint64_t size, uint64_t *start,
                                        uint64_t *len);

#endif
