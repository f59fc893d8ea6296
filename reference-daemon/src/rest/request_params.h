/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_REQUEST_PARAMS_H
#define SBX_REST_REQUEST_PARAMS_H
/* Validation of the query parameters of /v1/files (F3, F10). */
#include <stdbool.h>
#include <sys/types.h>

#define SBX_DEFAULT_FILE_MODE 0644

/* `mode`: absent or empty means 0644; otherwise it must match ^0[0-7]{3}$.
 * Returns 0 and sets *out, or -1. */
int parse_file_mode(const char *s, mode_t *out);

/* `recursive`: absent or empty means false; true/false and the other
 * spellings of Go's strconv.ParseBool are understood. Returns 0 or -1. */
int parse_recursive(const char *s, bool *out);

#endif
