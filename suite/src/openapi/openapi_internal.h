/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_OPENAPI_INTERNAL_H
#define SBX_OPENAPI_INTERNAL_H
/* What the OpenAPI files share behind openapi_schema.h: the loaded document
 * (openapi_document.c), findings and their wording (openapi_findings.c),
 * formats (openapi_format.c), schema validation (openapi_validate.c), and
 * routes and responses (openapi_routes.c). */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "openapi_schema.h"

/* $ref chains and nesting deeper than this are reported, not followed. */
#define SCHEMA_MAX_DEPTH 48

struct openapi_doc {
    json_t *root;
    json_t *any_schema; /* {}: for a media type documented without a schema */
    /* Every path item under every server's base path: "/v1" + "/files/{path}"
     * gives "/v1/files/{path}" (the suite matches request paths as sent). */
    json_t *routes;
    json_t *bases; /* the distinct base paths, "" for a server at the root */
};

/* ---- findings (openapi_findings.c) --------------------------------------- */

/* Appends a finding (bounded: past the cap only counted). */
void openapi_finding_add(struct openapi_violations *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Findings in all, kept or only counted. */
size_t openapi_findings_total(const struct openapi_violations *v);
/* Moves src's findings to dst; src is left empty. */
void openapi_findings_merge(struct openapi_violations *dst, struct openapi_violations *src);
/* A short rendering of a value for messages: strings in single quotes. */
void openapi_render_value(const json_t *v, char *buf, size_t len);
/* The JSON type of a value as JSON Schema names it. */
const char *openapi_type_name(const json_t *v);
/* Appends ".name" or "[\"name\"]" / "[i]" to a JSON path. */
void openapi_path_key(char *dst, size_t len, const char *base, const char *key);

/* ---- formats (openapi_format.c) ------------------------------------------ */

/* full-date = YYYY-MM-DD with a real calendar day. */
bool openapi_is_rfc3339_date(const char *s);

/* ---- the document (openapi_document.c) ----------------------------------- */

/* Resolves $ref chains; NULL (and a finding when out is given) if broken. */
const json_t *openapi_deref(const struct openapi_doc *doc, const json_t *node,
                            struct openapi_violations *out, const char *where);

/* ---- validation (openapi_validate.c) ------------------------------------- */

/* Validates v at JSON path `path` against schema, depth levels deep. */
void openapi_validate_at(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                         const char *path, struct openapi_violations *out, int depth);

#endif
