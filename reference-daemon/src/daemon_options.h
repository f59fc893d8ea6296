/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_DAEMON_OPTIONS_H
#define SBX_DAEMON_OPTIONS_H
/* The daemon's one table of flags (daemon_options.c): daemon_config.c
 * parses by it; --help and the man page's OPTIONS rows are printed from it
 * (daemon_options_doc.c). */
#include <stddef.h>
#include <stdio.h>

#include "daemon_config.h"

/* What a flag's value is and how it is checked. */
enum daemon_option_kind {
    DOPT_TEXT,     /* const char *, any value */
    DOPT_NONEMPTY, /* const char *, not empty */
    DOPT_PORT,     /* int, 0-65535 */
    DOPT_DURATION, /* uint64_t ms, a Go-style duration */
    DOPT_TIMEOUT,  /* uint64_t ms, a duration of at most 2^32-1 ms */
    DOPT_COUNT,    /* unsigned, 1-1000000 */
    DOPT_SIZE,     /* size_t, bytes or Ki/Mi/Gi */
    DOPT_CHUNK,    /* size_t, a size of 1 byte to 4 MiB */
    DOPT_HELP,     /* no value: print --help and exit */
    DOPT_VERSION,  /* no value: print the version and exit */
    DOPT_INTERNAL, /* for the build: the man page's rows, the flag list */
};

struct daemon_option {
    const char *name; /* without the dashes */
    const char *arg;  /* the value's name; NULL for DOPT_HELP and DOPT_VERSION */
    enum daemon_option_kind kind;
    size_t offset;    /* of the field in struct daemon_config */
    const char *help; /* --help text, lines joined by \n */
    const char *man;  /* man text (roff) */
};

extern const struct daemon_option daemon_options[];
extern const size_t daemon_n_options;

/* The flag named name ("--grpc-port"), NULL if none. */
const struct daemon_option *daemon_option_find(const char *name);

/* Sets the flag's field from val: 0, or -1 for an invalid value. */
int daemon_option_set(struct daemon_config *cfg, const struct daemon_option *o, const char *val);

void daemon_options_help(FILE *f);
/* The OPTIONS rows (.TP) of the man page. */
void daemon_options_man(FILE *f);
/* One line per flag: "daemon", --name, "-", argument or "-", "once",
 * "documented" or "internal" (the suite's --dump-options format). */
void daemon_options_dump(FILE *f);

#endif
