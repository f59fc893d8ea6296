/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_REST_EXPECT_H
#define SBX_CASES_REST_EXPECT_H
/* Expectations on REST responses shared by the file, metadata, health,
 * confinement and concurrency cases. Every check records a failure with
 * case_fail() naming what was expected and what arrived, and returns
 * whether it held, so a case can stop or go on. JSON bodies are validated
 * against the project's OpenAPI document (openapi_schema.h), never against
 * hand-written shapes. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "case_api.h"
#include "rest_client.h"

/* ---- Requests ------------------------------------------------------------ */

/* One request on the case's endpoint (addr NULL) or on addr, recorded with
 * case_request(). A transport failure (no HTTP response) is recorded as a
 * failure. Returns true when a response arrived. */
bool rx_send(struct case_ctx *ctx, const char *addr, const char *method, const char *target,
             const void *body, size_t len, const char *const *headers, struct http_response *resp);

/* Shorthands on the case's endpoint with a relative path under the root
 * (encoded with rest_files_target). query may be NULL ("mode=0600"). */
bool rx_file(struct case_ctx *ctx, const char *method, const char *relpath, const char *query,
             struct http_response *resp);
bool rx_put(struct case_ctx *ctx, const char *relpath, const void *data, size_t len,
            const char *query, struct http_response *resp);

/* "<case_dir>/<rel>" (malloc'd); rel "" gives the case directory itself. */
char *rx_path(struct case_ctx *ctx, const char *rel);

/* ---- Statuses and bodies ---------------------------------------------------- */

/* Fails unless resp->status is one of the 0-terminated list. */
bool expect_status_in(struct case_ctx *ctx, const struct http_response *resp, const long *statuses);
#define expect_status(ctx, resp, ...)                                                              \
    expect_status_in((ctx), (resp), (const long[]){__VA_ARGS__, 0})

/* Fails unless the response has an empty body (204, HEAD). */
bool expect_no_body(struct case_ctx *ctx, const struct http_response *resp);

/* Validates the whole response against the OpenAPI document: the status is
 * documented for the route and method, a body only where documented, under
 * a documented media type, and a JSON body valid against its schema. route
 * is a template ("/v1/files/{path}") or a concrete request-target from which
 * the route is matched. */
bool expect_schema(struct case_ctx *ctx, const struct http_response *resp, const char *route,
                   const char *method);

/* F13: resp->status is http_status, the body is application/json and valid
 * against the document's error response for that status (which fixes the
 * code the contract lists for it; any code for 405/416), and when
 * code_or_null is given, "code" equals it. */
bool expect_error_body(struct case_ctx *ctx, const struct http_response *resp, long http_status,
                       const char *code_or_null);

/* For responses whose status may legitimately vary (e.g. 400 or 409): if
 * the status is 4xx/5xx, checks the error body for that status. */
bool expect_error_body_any(struct case_ctx *ctx, const struct http_response *resp);

/* Parses an application/json body; NULL (failure recorded) otherwise. The
 * caller owns the value. */
json_t *expect_json(struct case_ctx *ctx, const struct http_response *resp);

/* Validates a value against a named component schema of the document. */
bool expect_valid(struct case_ctx *ctx, const char *schema_name, const json_t *value,
                  const char *what);

/* ---- Files and listings ------------------------------------------------------ */

/* PUT that must succeed: 204 with an empty body. */
bool expect_put_ok(struct case_ctx *ctx, const char *relpath, const void *data, size_t len,
                   const char *query);

/* GET that must return exactly these bytes (200). */
bool expect_file_content(struct case_ctx *ctx, const char *relpath, const void *data, size_t len);

/* GET of a directory: 200, application/json, valid DirectoryListing per the
 * document. Returns the listing (caller owns) or NULL with a failure. */
json_t *rx_list(struct case_ctx *ctx, const char *relpath);

/* The entry named `name` of a listing, or NULL. */
const json_t *listing_entry(const json_t *listing, const char *name);
size_t listing_size(const json_t *listing);
/* The "type" of an entry ("file", "directory", ...) or NULL. */
const char *entry_type(const json_t *entry);

/* ---- Conveniences -------------------------------------------------------------- */

/* Value of a header as a malloc'd string, NULL if absent. */
char *rx_header(const struct http_response *resp, const char *name);

/* A printable preview of the body, for failure messages (static buffer per
 * thread, valid until the next call). */
const char *rx_preview(const struct http_response *resp);

#endif
