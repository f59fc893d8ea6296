/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_METADATA_FILTER_H
#define SBX_REST_METADATA_FILTER_H
/* Which environment variables /v1/metadata may serve (M3, M4). */
#include <stdbool.h>

/* The credential markers, upper case: the API description's five (TOKEN,
 * SECRET, PASSWORD, CREDENTIAL, KEY) first, then PASSWD, CRED, AUTH,
 * BEARER, PRIVATE, CERT. */
#define METADATA_MARKER_COUNT 11
#define METADATA_DESCRIBED_MARKERS 5
extern const char *const metadata_markers[METADATA_MARKER_COUNT];

/* True when `name` starts with `prefix` (letter case kept). */
bool metadata_prefix_matches(const char *name, const char *prefix);

/* True when `name` contains a credential marker in any letter case. */
bool metadata_name_secret(const char *name);

/* True when `name` starts with `prefix` and contains none of the credential
 * markers in any letter case. */
bool metadata_name_allowed(const char *name, const char *prefix);

#endif
