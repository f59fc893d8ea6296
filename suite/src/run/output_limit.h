/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_OUTPUT_LIMIT_H
#define SBX_OUTPUT_LIMIT_H
/* How many bytes a case may take from a runtime: the output of all its
 * Start streams together, and each response body. A hostile runtime can
 * stream forever; past the limit the stream is cancelled or the transfer
 * stopped, and the case fails saying so. Each case runs in its own worker,
 * so the Start count is per case. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OUTPUT_LIMIT_DEFAULT ((size_t)512 << 20)

/* --max-output (0 = the default). Set before workers start. */
void output_limit_set(size_t bytes);
size_t output_limit(void);

/* Start output: adds n bytes to the case's total; false once it exceeds
 * the limit. */
bool output_limit_take(size_t n);

/* "512 MiB" (or bytes when not a whole MiB), for messages. */
const char *output_limit_text(void);

#endif
