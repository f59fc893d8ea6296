#ifndef SBX_REST_METADATA_FILTER_H
#define SBX_REST_METADATA_FILTER_H
/* Which environment variables /v1/metadata may serve (M3, M4). */
#include <stdbool.h>

/* True when `name` starts with `prefix` and contains none of the credential
 * markers (TOKEN, SECRET, PASSWORD, CREDENTIAL, KEY, PASSWD, CRED, AUTH,
 * BEARER, PRIVATE, CERT) in any letter case. */
bool metadata_name_allowed(const char *name, const char *prefix);

#endif
