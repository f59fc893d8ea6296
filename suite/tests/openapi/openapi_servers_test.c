/* SPDX-License-Identifier: Apache-2.0 */
/* OpenAPI documents as written in the wild: server URL base paths (several
 * servers, variables, per-path servers), path-level and operation-level
 * parameters, $ref across components, parameters named differently from the
 * suite's templates; the upstream reference's own document (a copy in
 * openapi/upstream/); and the refusal of a document that describes none of
 * the suite's routes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "openapi_schema.h"

#define UPSTREAM_PATH SBX_SOURCE_DIR "/openapi/upstream/filesystem-v1.openapi.yaml"

static struct openapi_doc *load(const char *yaml)
{
    char err[512];
    struct openapi_doc *d = openapi_load_string(yaml, strlen(yaml), err, sizeof err);
    if (!d) print_error("load: %s\n", err);
    assert_non_null(d);
    return d;
}

static size_t check_response(const struct openapi_doc *d, const char *route, const char *method,
                             long status, const char *ctype, const char *body, char **joined)
{
    struct openapi_violations v = {0};
    size_t n = openapi_validate_response(d, route, method, status, ctype, body,
                                         body ? strlen(body) : 0, &v);
    if (joined) *joined = openapi_violations_join(&v);
    openapi_violations_free(&v);
    return n;
}

static const char base_doc[] = "openapi: 3.0.3\n"
                               "info: {title: t, version: '1'}\n"
                               "servers:\n"
                               "  - url: http://localhost:8080/v1\n"
                               "paths:\n"
                               "  /files/{path}:\n"
                               "    parameters:\n"
                               "      - $ref: '#/components/parameters/P'\n"
                               "    put:\n"
                               "      parameters:\n"
                               "        - {name: mode, in: query, schema: {type: string}}\n"
                               "      responses:\n"
                               "        '204': {description: written}\n"
                               "        '403': {$ref: '#/components/responses/Forbidden'}\n"
                               "  /health:\n"
                               "    get:\n"
                               "      responses:\n"
                               "        '200':\n"
                               "          description: ok\n"
                               "          content:\n"
                               "            application/json:\n"
                               "              schema: {$ref: '#/components/schemas/H'}\n"
                               "components:\n"
                               "  parameters:\n"
                               "    P: {name: path, in: path, required: true, schema: {type: "
                               "string}}\n"
                               "  responses:\n"
                               "    Forbidden:\n"
                               "      description: no\n"
                               "      content:\n"
                               "        application/json:\n"
                               "          schema: {$ref: '#/components/schemas/Error'}\n"
                               "  schemas:\n"
                               "    H:\n"
                               "      type: object\n"
                               "      required: [status]\n"
                               "      properties: {status: {type: string, enum: [ok]}}\n"
                               "    Error:\n"
                               "      type: object\n"
                               "      required: [code, message]\n"
                               "      properties: {code: {type: string}, message: {type: "
                               "string}}\n";

/* A server URL's path is the base of every route; the bare paths are not
 * routes of the server. */
static void server_base_path(void **state)
{
    (void)state;
    struct openapi_doc *d = load(base_doc);
    const char *r = openapi_match_route(d, "/v1/files/a/b.txt?mode=0600");
    assert_non_null(r);
    assert_string_equal(r, "/v1/files/{path}");
    assert_string_equal(openapi_match_route(d, "/v1/health"), "/v1/health");
    assert_null(openapi_match_route(d, "/health"));
    assert_null(openapi_match_route(d, "/files/a"));
    assert_non_null(openapi_response(d, "/v1/files/{path}", "PUT", 204));
    assert_null(openapi_response(d, "/v1/files/{path}", "HEAD", 200));
    assert_int_equal(check_response(d, "/v1/files/{path}", "PUT", 204, NULL, NULL, NULL), 0);
    openapi_free(d);
}

/* Path-level and operation-level parameters and $ref chains through
 * components/responses and components/schemas: the shapes are still checked
 * (a wrong body fails). */
static void refs_across_components(void **state)
{
    (void)state;
    struct openapi_doc *d = load(base_doc);
    assert_int_equal(check_response(d, "/v1/files/{path}", "PUT", 403, "application/json",
                                    "{\"code\":\"PERMISSION_DENIED\",\"message\":\"no\"}", NULL),
                     0);
    char *j = NULL;
    assert_int_equal(check_response(d, "/v1/files/{path}", "PUT", 403, "application/json",
                                    "{\"code\":\"PERMISSION_DENIED\"}", &j),
                     1);
    assert_non_null(strstr(j, "\"message\" is missing"));
    free(j);
    assert_int_equal(
        check_response(d, "/v1/health", "GET", 200, "application/json", "{\"status\":1}", &j), 1);
    free(j);
    /* A status the document does not list for the operation stays a finding
     * of the validator (the cases decide whether the contract covers it). */
    assert_int_equal(check_response(d, "/v1/files/{path}", "PUT", 500, NULL, NULL, &j), 1);
    assert_non_null(strstr(j, "status 500 is not documented for PUT /v1/files/{path}"));
    free(j);
    openapi_free(d);
}

/* Several servers (each base path), variables with defaults, relative URLs,
 * and servers of a path item overriding the document's. */
static void several_servers(void **state)
{
    (void)state;
    struct openapi_doc *d = load("openapi: 3.0.1\n"
                                 "info: {title: t, version: '1'}\n"
                                 "servers:\n"
                                 "  - url: https://{host}:{port}/{base}/\n"
                                 "    variables:\n"
                                 "      host: {default: example.org}\n"
                                 "      port: {default: '8443'}\n"
                                 "      base: {default: api/v1}\n"
                                 "  - url: /v1\n"
                                 "  - url: http://localhost:8080\n"
                                 "paths:\n"
                                 "  /health:\n"
                                 "    get: {responses: {'200': {description: ok}}}\n"
                                 "  /metadata:\n"
                                 "    servers: [{url: 'http://10.0.0.1/runtime/v1'}]\n"
                                 "    get: {responses: {'200': {description: ok}}}\n");
    assert_string_equal(openapi_match_route(d, "/api/v1/health"), "/api/v1/health");
    assert_string_equal(openapi_match_route(d, "/v1/health"), "/v1/health");
    assert_string_equal(openapi_match_route(d, "/health"), "/health");
    assert_string_equal(openapi_match_route(d, "/runtime/v1/metadata"), "/runtime/v1/metadata");
    assert_null(openapi_match_route(d, "/v1/metadata"));
    openapi_free(d);

    /* No servers: the root, as OpenAPI 3.0 says ("/"). */
    d = load("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n"
             "  /v1/health:\n    get: {responses: {'200': {description: ok}}}\n");
    assert_string_equal(openapi_match_route(d, "/v1/health"), "/v1/health");
    openapi_free(d);
}

/* A path item given as a $ref, and a route whose parameter is named
 * differently from the suite's template ({filePath} for {path}). */
static void path_item_ref_and_parameter_names(void **state)
{
    (void)state;
    struct openapi_doc *d = load("openapi: 3.0.3\n"
                                 "info: {title: t, version: '1'}\n"
                                 "servers: [{url: /v1}]\n"
                                 "paths:\n"
                                 "  /files/{filePath}:\n"
                                 "    $ref: '#/x-items/Files'\n"
                                 "x-items:\n"
                                 "  Files:\n"
                                 "    get: {responses: {'200': {description: ok}}}\n");
    const char *r = openapi_find_route(d, "/v1/files/{path}");
    assert_non_null(r);
    assert_string_equal(r, "/v1/files/{filePath}");
    assert_non_null(openapi_response(d, "/v1/files/{path}", "GET", 200));
    assert_null(openapi_find_route(d, "/v1/files/{path}/x"));
    openapi_free(d);
}

/* A document describing none of the suite's routes is refused by the
 * suite's loader with a message naming what it has. */
static void no_suite_route(void **state)
{
    (void)state;
    struct openapi_doc *d = load("openapi: 3.0.3\n"
                                 "info: {title: t, version: '1'}\n"
                                 "servers: [{url: 'http://localhost:9000/api'}]\n"
                                 "paths:\n"
                                 "  /pets:\n"
                                 "    get: {responses: {'200': {description: ok}}}\n");
    const char *const wanted[] = {"/v1/files/{path}", "/v1/health", NULL};
    char err[1024];
    assert_false(openapi_describes_any(d, wanted, err, sizeof err));
    assert_non_null(strstr(err, "none of the routes the suite checks"));
    assert_non_null(strstr(err, "/api/pets"));
    assert_non_null(strstr(err, "/api"));
    const char *const pets[] = {"/api/pets", NULL};
    assert_true(openapi_describes_any(d, pets, err, sizeof err));
    openapi_free(d);

    char path[] = "/tmp/sbx-openapi-pets-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char pets_doc[] = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n"
                                   "  /pets:\n    get: {responses: {'200': {description: ok}}}\n";
    assert_int_equal(write(fd, pets_doc, sizeof pets_doc - 1), (ssize_t)(sizeof pets_doc - 1));
    close(fd);
    openapi_set_path(path);
    assert_null(openapi_shared(err, sizeof err));
    assert_non_null(strstr(err, "none of the routes the suite checks"));
    assert_false(openapi_shared_is_contract());
    openapi_set_path(NULL);
    unlink(path);
}

/* The upstream reference's document: its routes under /v1, what it
 * describes and what it does not (HEAD, 206, 405, unknown routes), and its
 * shapes still refuse a wrong body. */
static void upstream_document(void **state)
{
    (void)state;
    char err[512];
    struct openapi_doc *d = openapi_load(UPSTREAM_PATH, err, sizeof err);
    if (!d) print_error("%s\n", err);
    assert_non_null(d);
    assert_string_equal(openapi_match_route(d, "/v1/files/work/a.txt"), "/v1/files/{path}");
    assert_string_equal(openapi_match_route(d, "/v1/health"), "/v1/health");
    assert_string_equal(openapi_match_route(d, "/v1/metadata"), "/v1/metadata");
    assert_non_null(openapi_response(d, "/v1/files/{path}", "PUT", 204));
    assert_non_null(openapi_response(d, "/v1/files/{path}", "DELETE", 409));
    assert_null(openapi_response(d, "/v1/files/{path}", "HEAD", 200));
    assert_null(openapi_response(d, "/v1/files/{path}", "GET", 206));
    assert_null(openapi_response(d, "/v1/files/{path}", "POST", 405));
    assert_null(openapi_response(d, NULL, "GET", 404));
    assert_null(openapi_error_response(d, 405));
    assert_non_null(openapi_error_response(d, 404));
    static const char good[] =
        "{\"path\":\"/w\",\"entries\":[{\"name\":\"a\",\"size\":1,\"type\":\"file\","
        "\"modified_at\":\"2026-01-02T03:04:05Z\"}]}";
    static const char bad_time[] =
        "{\"path\":\"/w\",\"entries\":[{\"name\":\"a\",\"size\":1,\"type\":\"file\","
        "\"modified_at\":\"1700000000\"}]}";
    assert_int_equal(
        check_response(d, "/v1/files/{path}", "GET", 200, "application/json", good, NULL), 0);
    char *j = NULL;
    assert_int_equal(
        check_response(d, "/v1/files/{path}", "GET", 200, "application/json", bad_time, &j), 1);
    assert_non_null(strstr(j, "RFC 3339"));
    free(j);
    assert_int_equal(check_response(d, "/v1/health", "GET", 200, "application/json",
                                    "{\"status\":\"ok\",\"uptime_seconds\":3}", NULL),
                     0);
    assert_int_equal(check_response(d, "/v1/health", "GET", 200, "application/json",
                                    "{\"status\":\"fine\"}", NULL),
                     1);
    openapi_free(d);

    /* Through the suite's loader: accepted, and not the contract's own. */
    openapi_set_path(UPSTREAM_PATH);
    assert_non_null(openapi_shared(err, sizeof err));
    assert_false(openapi_shared_is_contract());
    assert_non_null(openapi_contract(err, sizeof err));
    openapi_set_path(NULL);
    assert_true(openapi_shared_is_contract());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(server_base_path), cmocka_unit_test(refs_across_components),
        cmocka_unit_test(several_servers),  cmocka_unit_test(path_item_ref_and_parameter_names),
        cmocka_unit_test(no_suite_route),   cmocka_unit_test(upstream_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
