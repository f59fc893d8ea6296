/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_FIRST_LOOK_H
#define SBX_CASES_FIRST_LOOK_H
/* Running the shipped sbx-first-look inside the runtime: what a program's
 * very first instructions see (terminal size, pid, process group, session,
 * working directory, one environment variable), before any shell or loader
 * could have given a late setting time to land. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct case_ctx;

enum first_look_via {
    FIRST_LOOK_EXECUTE,
    FIRST_LOOK_START,
    FIRST_LOOK_START_PTY,
};

struct first_look {
    bool tty;        /* stdin was a terminal */
    long rows, cols; /* its size, when tty */
    long pid, pgid, sid;
    char cwd[1024];
    bool env_set; /* the variable asked for was set */
    char env_value[256];
};

struct first_look_run {
    const char *helper; /* uploaded name, relative to the case directory */
    enum first_look_via via;
    const uint32_t *pty_cols_rows; /* FIRST_LOOK_START_PTY */
    const char *cwd;               /* NULL: the case directory */
    const char *const *env;        /* "NAME=value" list or NULL */
    const char *env_name;          /* the variable to report, or NULL */
    unsigned wait_ms;              /* bound on the call; 0: FIRST_LOOK_WAIT_MS */
};

#define FIRST_LOOK_WAIT_MS 15000u
#define FIRST_LOOK_LATE (-2)

/* Runs the helper once. 0 with *fl filled; FIRST_LOOK_LATE when the call
 * did not end within its wait (its deadline passed: a slow runtime, not a
 * wrong answer); -1 when it failed otherwise or its output held no
 * first-look line (why says what came back in both cases). */
int first_look(struct case_ctx *ctx, const struct first_look_run *run, struct first_look *fl,
               char *why, size_t whylen);

/* Uploads the helper for a case: 0 with its name; otherwise the case is
 * marked skipped with the reason (the runtime cannot take or run it). */
int first_look_upload(struct case_ctx *ctx, char *helper, size_t len);

#endif
