/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded, always NUL-terminated formatting. */
#include "bench_text.h"

#include <stdarg.h>
#include <stdio.h>

int bench_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}
