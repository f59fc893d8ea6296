/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_FILES_UTIL_H
#define SBX_CASES_FILES_UTIL_H
/* Workspace inspection through Execute for the file cases: what the
 * runtime's own processes see is the ground truth a REST answer is
 * compared with. Paths are relative to the case directory. */
#include <stdbool.h>
#include <stddef.h>

#include "case_api.h"

/* Runs `sh -c script` in the case directory and returns its stdout
 * (malloc'd, NUL-terminated, trailing newlines removed); NULL with a failure
 * naming `purpose` unless it exits 0. */
char *fx_sh(struct case_ctx *ctx, const char *script, const char *purpose);

/* Permission bits of a path as `stat -c %a` reports them; -1 (failure
 * recorded) if the path cannot be inspected. */
int fx_mode(struct case_ctx *ctx, const char *rel);

/* A shell-quoted copy of s ('...'), malloc'd. */
char *fx_quote(const char *s);

#endif
