/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_OPENAPI_YAML_H
#define SBX_OPENAPI_YAML_H
/* YAML to JSON values (libyaml + jansson), enough for an OpenAPI document:
 * mappings become objects, sequences arrays, and plain scalars are typed as
 * YAML's core schema does (null, true/false, integers, floats, else string);
 * quoted scalars and scalars tagged !!str stay strings. Anchors and aliases
 * are resolved; only the first document of a stream is read. */
#include <jansson.h>
#include <stddef.h>

/* Parses a YAML text. Returns a new reference, or NULL with a message
 * ("line 12 column 3: ...") in err. */
json_t *yaml_load_string(const char *text, size_t len, char *err, size_t errlen);

/* Same for a file. */
json_t *yaml_load_file(const char *path, char *err, size_t errlen);

#endif
