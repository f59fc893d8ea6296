/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_OPENAPI_SCHEMA_H
#define SBX_OPENAPI_SCHEMA_H
/* The project's OpenAPI 3.0 document (openapi/sandboxd.yaml), loaded at run
 * time, and a validator of JSON values against its schemas. Cases validate
 * live response bodies through this, never against hand-copied shapes, so
 * editing the document changes what the suite checks.
 *
 * Supported schema keywords: $ref (local JSON pointers), type, nullable,
 * enum, required, properties, additionalProperties, items, minItems,
 * maxItems, uniqueItems, minProperties, maxProperties, pattern (POSIX ERE),
 * minLength, maxLength, minimum, maximum, exclusiveMinimum/Maximum,
 * format (date-time per RFC 3339, date, int32, int64), allOf, anyOf, oneOf,
 * not. Unknown keywords are ignored, as OpenAPI requires. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define OPENAPI_MAX_VIOLATIONS 32

/* Human-readable findings, e.g.
 * "$.entries[2].modified_at: '1700000000' is not an RFC 3339 date-time". */
struct openapi_violations {
    size_t count;
    char *items[OPENAPI_MAX_VIOLATIONS];
    size_t dropped; /* findings beyond OPENAPI_MAX_VIOLATIONS */
};

void openapi_violations_free(struct openapi_violations *v);
/* All findings joined with "; " (malloc'd, "" when none). */
char *openapi_violations_join(const struct openapi_violations *v);

struct openapi_doc;

/* Loads a document. NULL with a message in err when it cannot be read or is
 * not an OpenAPI 3.0 document. */
struct openapi_doc *openapi_load(const char *path, char *err, size_t errlen);
/* From a YAML text (tests). */
struct openapi_doc *openapi_load_string(const char *yaml, size_t len, char *err, size_t errlen);
void openapi_free(struct openapi_doc *doc);

/* The parsed document (borrowed). */
const json_t *openapi_root(const struct openapi_doc *doc);

/* Where the suite's document lives: the path set with openapi_set_path()
 * (the runner's --openapi), else $SBX_OPENAPI, else openapi/sandboxd.yaml
 * of the data directory (data_dir.h: installed, or the source tree). */
void openapi_set_path(const char *path);
const char *openapi_path(void);
/* The suite's document, loaded once per process on first use (thread-safe).
 * NULL with a message in err when it cannot be loaded. */
const struct openapi_doc *openapi_shared(char *err, size_t errlen);

/* Validates instance against components/schemas/<schema_name>. Returns the
 * number of findings added to out (0 = valid); an unknown schema name is a
 * finding too. */
size_t openapi_validate_schema(const struct openapi_doc *doc, const char *schema_name,
                               const json_t *instance, struct openapi_violations *out);

/* Validates instance against an arbitrary schema node of the document
 * (e.g. one returned by openapi_response_schema). */
size_t openapi_validate_node(const struct openapi_doc *doc, const json_t *schema,
                             const json_t *instance, struct openapi_violations *out);

/* The document's route for a template, whatever its parameters are called
 * ("/v1/files/{path}" finds "/v1/files/{filePath}"); routes are the
 * document's paths under each of its servers' base paths (a server
 * "http://localhost:8080/v1" and a path "/files/{path}" give the route
 * "/v1/files/{path}"). NULL when the document has no such route. */
const char *openapi_find_route(const struct openapi_doc *doc, const char *tmpl);

/* Whether the document describes at least one of the NULL-terminated route
 * templates; if not, err says so and lists the routes it has. */
bool openapi_describes_any(const struct openapi_doc *doc, const char *const *tmpls, char *err,
                           size_t errlen);

/* components/schemas/<name>, or NULL. */
const json_t *openapi_schema_named(const struct openapi_doc *doc, const char *name);

/* The project's own document, written from the contract (openapi/sandboxd.yaml
 * of the source tree), loaded once like openapi_shared(). Where the suite's
 * document (--openapi) does not describe a response the contract requires,
 * cases judge it by this one and record a document finding. */
const char *openapi_contract_path(void);
const struct openapi_doc *openapi_contract(char *err, size_t errlen);
/* Whether the suite's document is the contract's own. */
bool openapi_shared_is_contract(void);

/* The route template a concrete request path belongs to ("/v1/files/a/b" ->
 * "/v1/files/{path}"); a parameter that ends the template takes the rest of
 * the path, slashes included. NULL when no route matches. */
const char *openapi_match_route(const struct openapi_doc *doc, const char *request_path);

/* The documented response (its $ref resolved) for a route, method and
 * status. For a method the route does not define, the route's
 * x-other-methods response applies; for route == NULL or an unknown route,
 * the document's x-unknown-route response applies to 404. Falls back to the
 * operation's "default" response. NULL when nothing is documented. */
const json_t *openapi_response(const struct openapi_doc *doc, const char *route, const char *method,
                               long status);

/* The documented error response for an HTTP status wherever the document
 * lists it (any route or method, then x-other-methods and x-unknown-route):
 * for checking an error body when the route does not matter, since every
 * route shares the Error responses. NULL when no route documents it. */
const json_t *openapi_error_response(const struct openapi_doc *doc, long status);

/* The schema of a documented response's media type. content_type may carry
 * parameters ("application/json; charset=utf-8"); matching ignores them and
 * letter case. NULL when the response documents no such media type. */
const json_t *openapi_response_schema(const struct openapi_doc *doc, const json_t *response,
                                      const char *content_type);

/* Whether the documented response has any content (a body). */
bool openapi_response_has_content(const json_t *response);

/* Checks a whole response against the document: the status is documented
 * for (route, method); a body is present only if documented, under a
 * documented media type; a JSON body parses and is valid against the
 * schema. Returns the number of findings added to out. */
size_t openapi_validate_response(const struct openapi_doc *doc, const char *route,
                                 const char *method, long status, const char *content_type,
                                 const char *body, size_t body_len, struct openapi_violations *out);

/* Format checks, exposed for the unit tests and for cases. */
bool openapi_is_rfc3339_datetime(const char *s);

#endif
