/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_FILE_SLASH_H
#define SBX_FAULTS_REST_FILE_SLASH_H
/* The variant-file-slash-ignored switch of the fault build: a trailing '/'
 * after the name of a regular file (`a.txt/`, nothing after it) is
 * ignored, as the upstream daemon does: GET and HEAD serve the file, PUT
 * replaces it, DELETE removes it. The contract leaves this open ("Not fixed
 * by this contract"). */
#include <stdbool.h>

#include "daemon_state.h"

typedef int (*fault_path_opener)(const struct daemon_state *st, const char *path, int flags);

/* Opens path with open; when the variant is on and path, ending in '/',
 * is not a directory, opens it again without its trailing slashes. */
int variant_file_slash_open(const struct daemon_state *st, const char *path, int flags,
                            fault_path_opener open);

/* Whether the variant lets a trailing '/' be overlooked by PUT and DELETE. */
bool variant_file_slash_ignored(void);

#endif
