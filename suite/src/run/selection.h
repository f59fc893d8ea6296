/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_SELECTION_H
#define SBX_SELECTION_H
/* Which catalog cases a run selects, and which of the selected ones are
 * skipped up front because a need is unmet. */
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "results.h"

struct selection {
    bool has_focus, has_skip;
    regex_t focus, skip; /* POSIX extended, over "ID title clauses tags" */
    const char *tags;    /* comma-separated; a case matches with any one */
    bool core_only;      /* --level core */
    bool transport;      /* --profile transport */
    char **only_ids;     /* --rerun-failed: NULL-terminated, or NULL */
};

/* Compiles the patterns; 0 or -1 with err. */
int selection_init(struct selection *s, const char *focus, const char *skip, char *err,
                   size_t err_len);
void selection_free(struct selection *s);

/* The text the patterns see for a case. */
void selection_text(const struct case_def *d, char *buf, size_t len);

/* True when def is a transport-profile case. */
bool case_is_transport(const struct case_def *d);

/* Fills res->cases (one per catalog case): selected, in_level, and the
 * transport-profile skips. */
int selection_apply(const struct selection *s, const struct catalog *cat, struct run_results *res);

struct capabilities {
    bool launch_mode, procfs, pty;
};

/* Marks selected cases with unmet needs as skipped with the reason. */
void selection_apply_needs(struct run_results *res, const struct capabilities *caps);

/* IDs of the failed, timed-out and errored cases of an earlier results.json
 * (NULL-terminated, malloc'd) or NULL with err. */
char **selection_failed_ids(const char *results_json, char *err, size_t err_len);
void selection_free_ids(char **ids);

#endif
