/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_REQUEST_PATH_H
#define SBX_REST_REQUEST_PATH_H
/* The {path} of /v1/files/{path}: taken raw from the request target and
 * percent-decoded exactly once (F12, S8). */

/* Decodes raw into a malloc'd string in *out. Returns 0, or an HTTP status
 * (400) with *why set to a static reason. */
int rest_decode_path(const char *raw, char **out, const char **why);

/* Decodes a raw query value (NULL stays NULL). Returns 0 or 400. */
int rest_decode_query(const char *raw, char **out);

#endif
