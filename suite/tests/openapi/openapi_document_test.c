/* SPDX-License-Identifier: Apache-2.0 */
/* The project's document (openapi/sandboxd.yaml) through the validator: what
 * it accepts and refuses, and that editing the document changes the checks. */
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

#define DOC_PATH SBX_SOURCE_DIR "/openapi/sandboxd.yaml"

static struct openapi_doc *doc;

static int setup(void **state)
{
    (void)state;
    char err[512];
    doc = openapi_load(DOC_PATH, err, sizeof err);
    if (!doc) print_error("load: %s\n", err);
    return doc ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    openapi_free(doc);
    return 0;
}

static size_t count_in(const struct openapi_doc *d, const char *schema, const char *json,
                       char **joined)
{
    json_error_t jerr;
    json_t *v = json_loads(json, JSON_DECODE_ANY, &jerr);
    assert_non_null(v);
    struct openapi_violations out = {0};
    size_t n = openapi_validate_schema(d, schema, v, &out);
    if (joined) *joined = openapi_violations_join(&out);
    openapi_violations_free(&out);
    json_decref(v);
    return n;
}

static void ok(const char *schema, const char *json)
{
    char *j = NULL;
    size_t n = count_in(doc, schema, json, &j);
    if (n) print_error("%s refused %s: %s\n", schema, json, j);
    free(j);
    assert_int_equal(n, 0);
}

static void bad(const char *schema, const char *json, const char *fragment)
{
    char *j = NULL;
    size_t n = count_in(doc, schema, json, &j);
    if (n == 0 || !strstr(j, fragment))
        print_error("%s on %s: expected '%s' in '%s'\n", schema, json, fragment, j);
    assert_true(n > 0);
    assert_non_null(strstr(j, fragment));
    free(j);
}

#define ENTRY(name, type, mode)                                                                    \
    "{\"name\":\"" name "\",\"size\":3,\"type\":\"" type                                           \
    "\",\"modified_at\":\"2024-05-01T10:00:00.5Z\"" mode "}"

static void directory_listing(void **state)
{
    (void)state;
    ok("DirectoryListing", "{\"path\":\"/\",\"entries\":[]}");
    ok("DirectoryListing",
       "{\"path\":\"/src\",\"entries\":[" ENTRY("a", "file", ",\"mode\":\"0644\"") "," ENTRY(
           "b", "directory",
           "") "," ENTRY("c", "file",
                         ",\"mode\":\"4755\"") "," ENTRY("d", "file",
                                                         ",\"mode\":\"01777\"") "],\"extra\":1}");
    bad("DirectoryListing", "{\"path\":\"/\",\"entries\":null}", "$.entries: null");
    bad("DirectoryListing", "{\"path\":\"/\"}", "required field \"entries\"");
    bad("DirectoryListing", "{\"entries\":[]}", "required field \"path\"");
    bad("DirectoryListing", "{\"path\":\"/\",\"entries\":[" ENTRY("a", "symlink", "") "]}",
        "$.entries[0].type: 'symlink' is not one of");
    bad("DirectoryListing",
        "{\"path\":\"/\",\"entries\":[" ENTRY("a", "file", "") "," ENTRY(
            "b", "file",
            "") ","
                "{\"name\":\"c\",\"size\":1,\"type\":\"file\",\"modified_at\":\"1700000000\"}]}",
        "$.entries[2].modified_at: '1700000000' is not an RFC 3339 date-time");
    bad("DirectoryListing",
        "{\"path\":\"/\",\"entries\":[{\"name\":\"a\",\"size\":\"3\",\"type\":\"file\","
        "\"modified_at\":\"2024-05-01T10:00:00Z\"}]}",
        "$.entries[0].size: '3' is a string, not an integer");
    bad("DirectoryListing",
        "{\"path\":\"/\",\"entries\":[{\"name\":\"a\",\"size\":-1,\"type\":\"file\","
        "\"modified_at\":\"2024-05-01T10:00:00Z\"}]}",
        "below the minimum 0");
    const char *bad_modes[] = {"644", "00644", "rw-r--r--", "0o644", "420", "0999", "", "0x1a4"};
    for (size_t i = 0; i < sizeof bad_modes / sizeof *bad_modes; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"path\":\"/\",\"entries\":[" ENTRY("a", "file", ",\"mode\":\"%s\"") "]}",
                 bad_modes[i]);
        bad("DirectoryListing", json, "does not match the pattern");
    }
    bad("DirectoryListing",
        "{\"path\":\"/\",\"entries\":[" ENTRY("a", "file", ",\"mode\":420") "]}", "not a string");
}

static void health_metadata_error(void **state)
{
    (void)state;
    ok("HealthResponse", "{\"status\":\"ok\"}");
    ok("HealthResponse", "{\"status\":\"ok\",\"uptime_seconds\":0}");
    bad("HealthResponse", "{\"status\":\"OK\"}", "not one of");
    bad("HealthResponse", "{\"uptime_seconds\":3}", "required field \"status\"");
    bad("HealthResponse", "{\"status\":\"ok\",\"uptime_seconds\":-1}", "minimum");
    bad("HealthResponse", "{\"status\":\"ok\",\"uptime_seconds\":1.5}", "not an integer");
    bad("HealthResponse", "{\"status\":\"ok\",\"uptime_seconds\":\"3\"}", "not an integer");

    ok("MetadataResponse", "{\"env\":{}}");
    ok("MetadataResponse", "{\"env\":{\"SANDBOX_A\":\"1\",\"SANDBOX_B\":\"\"}}");
    bad("MetadataResponse", "{\"env\":null}", "$.env: null");
    bad("MetadataResponse", "{}", "required field \"env\"");
    bad("MetadataResponse", "{\"env\":[]}", "not an object");
    bad("MetadataResponse", "{\"env\":{\"SANDBOX_A\":1}}", "$.env.SANDBOX_A: 1 is an integer");

    ok("Error", "{\"code\":\"NOT_FOUND\",\"message\":\"\"}");
    bad("Error", "{\"code\":\"NOT_FOUND\"}", "required field \"message\"");
    bad("Error", "{\"code\":\"not_found\",\"message\":\"x\"}", "not one of");
    bad("Error", "{\"error\":\"x\"}", "required field \"code\"");
    ok("ErrorNotFound", "{\"code\":\"NOT_FOUND\",\"message\":\"x\"}");
    bad("ErrorNotFound", "{\"code\":\"CONFLICT\",\"message\":\"x\"}", "'CONFLICT' is not one of");
    ok("ErrorAnyCode", "{\"code\":\"METHOD_NOT_ALLOWED\",\"message\":\"x\"}");
}

static void responses_of_the_contract_table(void **state)
{
    (void)state;
    const char *files = "/v1/files/{path}";
    assert_string_equal(openapi_match_route(doc, "/v1/files/a/b%20c"), files);
    assert_string_equal(openapi_match_route(doc, "/v1/files/"), files);
    assert_string_equal(openapi_match_route(doc, "/v1/health"), "/v1/health");
    assert_null(openapi_match_route(doc, "/v1/nothing"));

    struct openapi_violations out = {0};
    const char *nf = "{\"code\":\"NOT_FOUND\",\"message\":\"no\"}";
    const char *conflict = "{\"code\":\"CONFLICT\",\"message\":\"no\"}";
    assert_int_equal(
        openapi_validate_response(doc, files, "GET", 404, "application/json", nf, strlen(nf), &out),
        0);
    assert_int_equal(openapi_validate_response(doc, files, "DELETE", 409, "application/json",
                                               conflict, strlen(conflict), &out),
                     0);
    assert_int_equal(openapi_validate_response(doc, files, "PUT", 204, NULL, NULL, 0, &out), 0);
    assert_int_equal(openapi_validate_response(doc, files, "HEAD", 404, NULL, NULL, 0, &out), 0);
    const char *any = "{\"code\":\"X\",\"message\":\"\"}";
    assert_int_equal(openapi_validate_response(doc, files, "POST", 405, "application/json", any,
                                               strlen(any), &out),
                     0);
    assert_int_equal(
        openapi_validate_response(doc, NULL, "GET", 404, "application/json", nf, strlen(nf), &out),
        0);
    assert_int_equal(out.count, 0);

    /* The route-independent error responses. */
    const json_t *e409 = openapi_error_response(doc, 409);
    assert_non_null(e409);
    json_t *cv = json_loads(conflict, 0, NULL);
    const json_t *s409 = openapi_response_schema(doc, e409, "application/json");
    assert_int_equal(openapi_validate_node(doc, s409, cv, &out), 0);
    json_decref(cv);
    json_t *nv = json_loads(nf, 0, NULL);
    assert_true(openapi_validate_node(doc, s409, nv, &out) > 0);
    json_decref(nv);
    openapi_violations_free(&out);
    assert_non_null(openapi_error_response(doc, 405));
    assert_non_null(openapi_error_response(doc, 503));
    assert_null(openapi_error_response(doc, 418));
    assert_null(openapi_error_response(doc, 200));

    /* A 404 whose code is CONFLICT, a plain-text error, a PUT 200. */
    assert_true(openapi_validate_response(doc, files, "GET", 404, "application/json", conflict,
                                          strlen(conflict), &out) > 0);
    assert_true(openapi_validate_response(doc, files, "GET", 404, "text/plain", "nope", 4, &out) >
                0);
    assert_true(openapi_validate_response(doc, files, "PUT", 200, NULL, NULL, 0, &out) > 0);
    assert_true(openapi_validate_response(doc, "/v1/health", "GET", 503, "application/json", nf,
                                          strlen(nf), &out) > 0);
    openapi_violations_free(&out);
}

/* Writes a copy of the document with one text replaced; returns its path. */
static char *modified_copy(const char *from, const char *to)
{
    FILE *in = fopen(DOC_PATH, "rb");
    assert_non_null(in);
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    char *at = strstr(text, from);
    assert_non_null(at);
    char *path = strdup("/tmp/openapi-doc-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "wb");
    fwrite(text, 1, (size_t)(at - text), out);
    fputs(to, out);
    fputs(at + strlen(from), out);
    fclose(out);
    return path;
}

static void editing_the_document_changes_the_checks(void **state)
{
    (void)state;
    const char *symlink_listing = "{\"path\":\"/\",\"entries\":[" ENTRY("l", "symlink", "") "]}";
    const char *no_time = "{\"path\":\"/\",\"entries\":[{\"name\":\"a\",\"size\":1,"
                          "\"type\":\"file\"}]}";
    assert_true(count_in(doc, "DirectoryListing", symlink_listing, NULL) > 0);
    assert_true(count_in(doc, "DirectoryListing", no_time, NULL) > 0);

    char *p1 = modified_copy("enum: [file, directory]", "enum: [file, directory, symlink]");
    char err[512];
    struct openapi_doc *d1 = openapi_load(p1, err, sizeof err);
    assert_non_null(d1);
    assert_int_equal(count_in(d1, "DirectoryListing", symlink_listing, NULL), 0);
    openapi_free(d1);

    char *p2 =
        modified_copy("required: [name, size, type, modified_at]", "required: [name, size, type]");
    struct openapi_doc *d2 = openapi_load(p2, err, sizeof err);
    assert_non_null(d2);
    assert_int_equal(count_in(d2, "DirectoryListing", no_time, NULL), 0);
    openapi_free(d2);

    /* The suite's shared document follows SBX_OPENAPI. */
    openapi_set_path(NULL);
    setenv("SBX_OPENAPI", p1, 1);
    assert_string_equal(openapi_path(), p1);
    const struct openapi_doc *shared = openapi_shared(err, sizeof err);
    assert_non_null(shared);
    assert_int_equal(count_in(shared, "DirectoryListing", symlink_listing, NULL), 0);

    /* And an explicit path (the runner's --openapi) wins over the variable. */
    openapi_set_path(DOC_PATH);
    shared = openapi_shared(err, sizeof err);
    assert_non_null(shared);
    assert_true(count_in(shared, "DirectoryListing", symlink_listing, NULL) > 0);

    openapi_set_path("/nonexistent/doc.yaml");
    assert_null(openapi_shared(err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/doc.yaml"));
    openapi_set_path(NULL);
    unsetenv("SBX_OPENAPI");

    unlink(p1);
    unlink(p2);
    free(p1);
    free(p2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(directory_listing),
        cmocka_unit_test(health_metadata_error),
        cmocka_unit_test(responses_of_the_contract_table),
        cmocka_unit_test(editing_the_document_changes_the_checks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
