/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_TEXT_H
#define SBX_BENCH_TEXT_H
/* Bounded formatting for messages and labels: truncation is the intended
 * behaviour for them (an error text cut at 256 bytes is still useful). */
#include <stddef.h>

/* Returns what vsnprintf returns. */
int bench_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
