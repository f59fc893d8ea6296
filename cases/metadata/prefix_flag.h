/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_PREFIX_FLAG_H
#define SBX_CASES_PREFIX_FLAG_H
/* Finds the value of --metadata-env-prefix in a runtime's launch command
 * (a shell-like command line; no case API, so it is unit-tested alone). */
#include <stdbool.h>
#include <stddef.h>

/* The flag as one word followed by its value, or `--metadata-env-prefix=V`;
 * the value may be quoted with ' or "; the last occurrence wins, as with
 * the usual flag parsers. Copies the value into out; false when the flag is
 * absent or its value does not fit. */
bool meta_prefix_in_command(const char *command, char *out, size_t outlen);

#endif
