/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_PERCENT_DECODE_H
#define SBX_REST_PERCENT_DECODE_H
/* Percent-decoding of request targets, applied exactly once (F12). */
#include <stddef.h>
#include <sys/types.h>

#define PCT_INVALID (-1) /* a '%' not followed by two hex digits */
#define PCT_NUL (-2)     /* the decoded bytes hold a NUL (%00) */

/* Decodes in[0..len) into out (capacity >= len + 1, NUL-terminated). '+' is
 * kept as '+'. Returns the decoded length, PCT_INVALID or PCT_NUL. */
ssize_t pct_decode(const char *in, size_t len, char *out);

#endif
