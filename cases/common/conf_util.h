/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_CONF_UTIL_H
#define SBX_CASES_CONF_UTIL_H
/* Small helpers shared by the confinement, concurrency and transport cases:
 * growing strings (string_buf.h), shell quoting, single percent-decoding, Error-body checks
 * and a few REST/Execute conveniences. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "string_buf.h"

struct case_ctx;
struct http_response;

void *conf_xmalloc(size_t n);
char *conf_xstrdup(const char *s);
char *conf_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Single-quoted shell word for any byte string. Malloc'd. */
char *conf_sh_quote(const char *s);
/* A shell expression producing exactly these bytes ("$(printf '\101...')"),
 * so names with any bytes can be handled by an ASCII-only script. */
char *conf_sh_bytes(const char *s, size_t len);

/* Percent-decodes once. Invalid escapes are kept as they are. Returns a
 * malloc'd buffer and its length (the result may contain NUL bytes). */
char *conf_pct_decode_once(const char *s, size_t *out_len);
/* Percent-encodes every byte except unreserved characters (and '/' unless
 * encode_slash). Malloc'd. */
char *conf_pct_encode(const char *s, bool encode_slash);

/* The Error code the contract (section 2) pairs with an HTTP status
 * (400, 403, 404, 409), or NULL when it names none. */
const char *conf_error_code_for_status(long status);

/* Checks that the response carries a JSON Error body ({"code": string,
 * "message": string}); with want_code also that code equals it. Returns true
 * when it does; otherwise writes the reason to why. */
bool conf_error_body_ok(const struct http_response *resp, const char *want_code, char *why,
                        size_t whylen);

/* Location header of a 3xx response reduced to its path ("/v1/files/..."),
 * malloc'd, NULL when absent. */
char *conf_location_path(const struct http_response *resp);

/* Execute `sh -c script` in the case directory; returns the exit code and
 * a malloc'd stdout in *out (may be NULL); -1 (with *why) when the call
 * failed with a gRPC status or transport error. */
int conf_sh(struct case_ctx *ctx, const char *script, char **out, char *why, size_t whylen);

/* GET /v1/health with a timeout; true when it answered 200 in time. */
bool conf_health_ok(const char *rest_addr, long timeout_ms, long *status_out, double *secs_out);

/* Number of components in a relative or absolute path ("a/b" = 2, "/" = 0). */
int conf_path_depth(const char *path);

/* Parses n decimal numbers from s, each after the first preceded by the one
 * character sep (leading blanks allowed, as strtol skips them). Returns the
 * position after the last number, or NULL when fewer than n parse or one is
 * out of range: text from the runtime under test is never trusted to fit.
 * out[i] is written only for the numbers that parsed. */
const char *conf_parse_longs(const char *s, char sep, long *out, size_t n);

/* Finds needle (len nlen) in hay (len hlen). */
const void *conf_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen);

#endif
