/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_PATH_DECODE_H
#define SBX_FAULTS_REST_PATH_DECODE_H
/* The path-decoding faults and variants of the fault build
 * (slash-not-separator, plus-as-space, nul-truncate, decode-twice,
 * backslash-separator, variant-literal-400): wrappers of
 * rest/rest_behaviour.h's path decisions. */
#include "rest/rest_behaviour.h"

ssize_t fault_path_decode(const char *in, size_t len, char *out);
int fault_path_decoded(char *path, const char **why);

#endif
