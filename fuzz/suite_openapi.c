/* SPDX-License-Identifier: Apache-2.0 */
/* The suite's OpenAPI reader and schema validator on arbitrary YAML/JSON:
 * the YAML loader (suite/src/openapi/openapi_yaml.c) and the document loader on any
 * bytes, given as a document with --openapi; and responses validated against
 * the project's own document (openapi/sandboxd.yaml), as every REST case
 * validates live answers.
 *
 * Oracle: a loaded document answers route matching and response lookups
 * without crashing; a validation returns the number of findings it recorded
 * (kept plus dropped), and each finding is a non-empty text; validating the
 * same instance twice gives the same count.
 *
 * Input: byte 0 picks the mode: even = the rest is a document; odd = the
 * rest is a response body checked against route, method and status chosen
 * by byte 0's other bits. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "openapi_schema.h"
#include "openapi_yaml.h"

static struct openapi_doc *own;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char err[512];
    own = openapi_load(SBX_SOURCE_DIR "/openapi/sandboxd.yaml", err, sizeof err);
    FUZZ_CHECK(own != NULL, "the project's OpenAPI document: %s", err);
    return 0;
}

static void check_violations(struct openapi_violations *v, size_t n)
{
    FUZZ_CHECK(n == v->count + v->dropped, "%zu findings, %zu kept, %zu dropped", n, v->count,
               v->dropped);
    for (size_t i = 0; i < v->count; i++)
        FUZZ_CHECK(v->items[i] && v->items[i][0], "finding %zu is empty", i);
    char *all = openapi_violations_join(v);
    free(all);
    openapi_violations_free(v);
}

static void check_document(const char *text, size_t len)
{
    char err[512];
    json_t *j = yaml_load_string(text, len, err, sizeof err);
    if (j) json_decref(j);
    struct openapi_doc *doc = openapi_load_string(text, len, err, sizeof err);
    if (!doc) {
        FUZZ_CHECK(err[0] != '\0', "a refused document without a reason");
        return;
    }
    static const char *const paths[] = {"/v1/files/a/b", "/v1/files/", "/v1/health", "/v1/metadata",
                                        "/nope"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        const char *route = openapi_match_route(doc, paths[i]);
        const json_t *resp = openapi_response(doc, route, "GET", 200);
        if (resp) {
            (void)openapi_response_has_content(resp);
            const json_t *schema = openapi_response_schema(doc, resp, "application/json");
            if (schema) {
                struct openapi_violations v = {0};
                json_t *inst = json_pack("{s:s, s:i}", "status", "ok", "n", 1);
                size_t n = openapi_validate_node(doc, schema, inst, &v);
                json_decref(inst);
                check_violations(&v, n);
            }
        }
        (void)openapi_error_response(doc, 404);
    }
    struct openapi_violations v = {0};
    size_t n = openapi_validate_schema(doc, "Error", json_null(), &v);
    check_violations(&v, n);
    openapi_free(doc);
}

static void check_response(uint8_t sel, const char *body, size_t len)
{
    static const char *const routes[] = {"/v1/files/{path}", "/v1/health", "/v1/metadata", NULL};
    static const char *const methods[] = {"GET", "PUT", "DELETE", "HEAD"};
    static const long statuses[] = {200, 201, 204, 206, 400, 403, 404, 416};
    static const char *const types[] = {"application/json", "application/json; charset=utf-8",
                                        "application/octet-stream", NULL};
    const char *route = routes[(sel >> 1) & 3];
    const char *method = methods[(sel >> 3) & 3];
    long status = statuses[(sel >> 5) & 7];
    const char *ctype = types[(sel >> 3) & 3];
    struct openapi_violations v1 = {0}, v2 = {0};
    size_t n1 = openapi_validate_response(own, route, method, status, ctype, body, len, &v1);
    size_t n2 = openapi_validate_response(own, route, method, status, ctype, body, len, &v2);
    FUZZ_CHECK(n1 == n2, "the same response gave %zu then %zu findings", n1, n2);
    check_violations(&v1, n1);
    check_violations(&v2, n2);

    char err[256];
    json_t *j = yaml_load_string(body, len, err, sizeof err);
    if (j) {
        static const char *const schemas[] = {"Error", "HealthResponse", "DirectoryListing",
                                              "MetadataResponse"};
        struct openapi_violations v = {0};
        size_t n = openapi_validate_schema(own, schemas[sel >> 6], j, &v);
        check_violations(&v, n);
        json_decref(j);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 128 * 1024) return 0;
    if (!own) LLVMFuzzerInitialize(NULL, NULL);
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    if (data[0] & 1)
        check_response(data[0], text, size - 1);
    else
        check_document(text, size - 1);
    free(text);
    return 0;
}
