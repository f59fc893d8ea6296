/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CONSOLE_H
#define SBX_CONSOLE_H
/* The console reporter: a header, a live line per finished case, then a
 * summary per clause group, the failures with detail and the verdict. */
#include <stdbool.h>
#include <stdio.h>

#include "results.h"

struct console {
    FILE *out;
    bool color;
    bool quiet;
};

/* color_opt: -1 auto (TTY and no NO_COLOR), 0 never, 1 always. */
void console_init(struct console *c, FILE *out, int color_opt, bool quiet);
void console_case_done(struct console *c, const struct case_result *r, size_t done, size_t total);
void console_summary(struct console *c, const struct run_results *res);

#endif
