/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_JSON_TEXT_H
#define SBX_REST_JSON_TEXT_H
/* JSON strings from file names and other bytes: Linux names need not be
 * UTF-8, JSON text must be, so each invalid byte becomes U+FFFD (as Go's
 * encoding/json does). */
#include <jansson.h>

json_t *json_text(const char *bytes);

#endif
