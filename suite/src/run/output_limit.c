/* SPDX-License-Identifier: Apache-2.0 */
/* The per-case bound on bytes taken from the runtime (see output_limit.h). */
#include <stdbool.h>
#include <stdio.h>

#include "output_limit.h"

static size_t limit = OUTPUT_LIMIT_DEFAULT;
static size_t taken; /* Start output of this process (one case per worker) */

void output_limit_set(size_t bytes)
{
    limit = bytes ? bytes : OUTPUT_LIMIT_DEFAULT;
}

size_t output_limit(void)
{
    return limit;
}

bool output_limit_take(size_t n)
{
    taken = n > SIZE_MAX - taken ? SIZE_MAX : taken + n;
    return taken <= limit;
}

const char *output_limit_text(void)
{
    static char text[32];
    if (limit % ((size_t)1 << 20) == 0)
        snprintf(text, sizeof text, "%zu MiB", limit >> 20);
    else
        snprintf(text, sizeof text, "%zu bytes", limit);
    return text;
}
