/* SPDX-License-Identifier: Apache-2.0 */
/* The schema validator's keywords, on small inline documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openapi_schema.h"

static const char *DOC =
    "openapi: 3.0.3\n"
    "info: {title: t, version: '1'}\n"
    "paths:\n"
    "  /v1/things/{id}:\n"
    "    x-other-methods: {$ref: '#/components/responses/Any'}\n"
    "    get:\n"
    "      responses:\n"
    "        '200':\n"
    "          description: ok\n"
    "          content:\n"
    "            application/json: {schema: {$ref: '#/components/schemas/Thing'}}\n"
    "            application/octet-stream: {schema: {type: string, format: binary}}\n"
    "        '204': {description: empty}\n"
    "        default: {$ref: '#/components/responses/Any'}\n"
    "  /v1/ping:\n"
    "    get:\n"
    "      responses:\n"
    "        '200': {description: ok}\n"
    "x-unknown-route: {$ref: '#/components/responses/Any'}\n"
    "components:\n"
    "  responses:\n"
    "    Any:\n"
    "      description: error\n"
    "      content:\n"
    "        application/json: {schema: {$ref: '#/components/schemas/Err'}}\n"
    "  schemas:\n"
    "    Err:\n"
    "      type: object\n"
    "      required: [code]\n"
    "      properties: {code: {type: string}}\n"
    "    Thing:\n"
    "      type: object\n"
    "      required: [name, n]\n"
    "      additionalProperties: false\n"
    "      properties:\n"
    "        name: {type: string, minLength: 2, maxLength: 4, pattern: '^[a-z]+$'}\n"
    "        n: {type: integer, format: int32, minimum: 0, maximum: 10}\n"
    "        x: {type: number, minimum: 0, exclusiveMinimum: true}\n"
    "        at: {type: string, format: date-time}\n"
    "        day: {type: string, format: date}\n"
    "        opt: {type: string, nullable: true}\n"
    "        kind: {type: string, enum: [a, b]}\n"
    "        tags: {type: array, items: {type: string}, minItems: 1, maxItems: 2,"
    " uniqueItems: true}\n"
    "        env: {type: object, additionalProperties: {type: string}}\n"
    "        one: {oneOf: [{type: string}, {type: integer}]}\n"
    "        any: {anyOf: [{type: string, enum: [q]}, {type: boolean}]}\n"
    "        both: {allOf: [{type: integer}, {minimum: 5}]}\n"
    "        never: {not: {type: string}}\n"
    "        loop: {$ref: '#/components/schemas/Loop'}\n"
    "        broken: {$ref: '#/components/schemas/Missing'}\n"
    "    Loop: {$ref: '#/components/schemas/Loop'}\n";

static struct openapi_doc *doc;

static int setup(void **state)
{
    (void)state;
    char err[256];
    doc = openapi_load_string(DOC, strlen(DOC), err, sizeof err);
    if (!doc) print_error("load: %s\n", err);
    return doc ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    openapi_free(doc);
    return 0;
}

/* Validates a JSON text against Thing; returns the findings joined. */
static char *check(const char *json)
{
    json_error_t jerr;
    json_t *v = json_loads(json, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    assert_non_null(v);
    struct openapi_violations out = {0};
    openapi_validate_schema(doc, "Thing", v, &out);
    char *joined = openapi_violations_join(&out);
    openapi_violations_free(&out);
    json_decref(v);
    return joined;
}

static void expect_ok(const char *json)
{
    char *s = check(json);
    if (s[0]) print_error("unexpected findings for %s: %s\n", json, s);
    assert_string_equal(s, "");
    free(s);
}

static void expect_finding(const char *json, const char *fragment)
{
    char *s = check(json);
    if (!strstr(s, fragment)) print_error("for %s expected '%s' in: %s\n", json, fragment, s);
    assert_non_null(strstr(s, fragment));
    free(s);
}

static void valid_instances_pass(void **state)
{
    (void)state;
    expect_ok("{\"name\":\"ab\",\"n\":0}");
    expect_ok("{\"name\":\"abcd\",\"n\":10,\"x\":0.5,\"at\":\"2024-02-29T23:59:60.123+05:30\","
              "\"day\":\"2000-02-29\",\"opt\":null,\"kind\":\"b\",\"tags\":[\"a\",\"b\"],"
              "\"env\":{\"A\":\"1\"},\"one\":3,\"any\":true,\"both\":7,\"never\":1}");
    /* JSON has one number type: an integral real is an integer. */
    expect_ok("{\"name\":\"ab\",\"n\":3.0}");
}

static void type_required_and_extra_fields(void **state)
{
    (void)state;
    expect_finding("[]", "$: [] is an array, not an object");
    expect_finding("{\"name\":\"ab\"}", "$: required field \"n\" is missing");
    expect_finding("{\"name\":\"ab\",\"n\":\"1\"}", "$.n: '1' is a string, not an integer");
    expect_finding("{\"name\":\"ab\",\"n\":1.5}", "$.n: 1.5 is a number, not an integer");
    expect_finding("{\"name\":null,\"n\":1}", "$.name: null where a string is required");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"zz\":1}", "field \"zz\" is not allowed");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"env\":{\"A\":1}}",
                   "$.env.A: 1 is an integer, not a string");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"env\":{\"A-B\":null}}", "$.env[\"A-B\"]: null");
}

static void strings_numbers_and_enums(void **state)
{
    (void)state;
    expect_finding("{\"name\":\"a\",\"n\":1}", "shorter than 2");
    expect_finding("{\"name\":\"abcde\",\"n\":1}", "longer than 4");
    expect_finding("{\"name\":\"aB\",\"n\":1}", "$.name: 'aB' does not match the pattern ^[a-z]+$");
    expect_finding("{\"name\":\"a\\u0000b\",\"n\":1}", "does not match the pattern");
    expect_finding("{\"name\":\"ab\",\"n\":-1}", "$.n: -1 is below the minimum 0");
    expect_finding("{\"name\":\"ab\",\"n\":11}", "above the maximum 10");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"x\":0}", "below the exclusive minimum");
    expect_finding("{\"name\":\"ab\",\"n\":3000000000}", "outside int32");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"kind\":\"c\"}",
                   "$.kind: 'c' is not one of [\"a\",\"b\"]");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"tags\":[]}", "fewer than 1 items");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"tags\":[\"a\",\"a\"]}", "uniqueItems");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"tags\":[\"a\",\"b\",\"c\"]}", "more than 2 items");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"tags\":[1]}", "$.tags[0]: 1 is an integer");
}

static void formats(void **state)
{
    (void)state;
    expect_finding("{\"name\":\"ab\",\"n\":1,\"at\":\"1700000000\"}",
                   "$.at: '1700000000' is not an RFC 3339 date-time");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"day\":\"2001-02-29\"}", "full-date");

    const char *good[] = {"2024-01-02T03:04:05Z", "2024-01-02t03:04:05z",
                          "2024-01-02T03:04:05.000000001-00:00", "1999-12-31T23:59:60+14:00",
                          "2000-02-29T00:00:00Z"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        assert_true(openapi_is_rfc3339_datetime(good[i]));
    const char *bad[] = {"2024-01-02 03:04:05Z",
                         "2024-01-02T03:04:05",
                         "2024-01-02T03:04Z",
                         "2024-13-02T03:04:05Z",
                         "2023-02-29T03:04:05Z",
                         "2024-01-02T24:00:00Z",
                         "2024-01-02T03:04:05.Z",
                         "2024-01-02T03:04:05+0100",
                         "24-01-02T03:04:05Z",
                         "2024-01-02T03:04:05Z ",
                         "2024-01-02T03:04:61Z",
                         "Tue, 02 Jan 2024 03:04:05 GMT",
                         "",
                         "2024-01-02T03:04:05+24:00"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (openapi_is_rfc3339_datetime(bad[i])) print_error("accepted %s\n", bad[i]);
        assert_false(openapi_is_rfc3339_datetime(bad[i]));
    }
}

static void combinators_and_refs(void **state)
{
    (void)state;
    expect_finding("{\"name\":\"ab\",\"n\":1,\"one\":true}", "none of the oneOf");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"any\":\"r\"}", "none of the anyOf");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"both\":4}", "$.both: 4 is below the minimum 5");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"both\":\"x\"}", "not an integer");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"never\":\"s\"}", "must not match");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"broken\":1}", "does not resolve");
    expect_finding("{\"name\":\"ab\",\"n\":1,\"loop\":1}", "$ref chain too long");

    struct openapi_violations out = {0};
    json_t *v = json_object();
    assert_int_equal(openapi_validate_schema(doc, "Nope", v, &out), 1);
    assert_non_null(strstr(out.items[0], "no schema Nope"));
    openapi_violations_free(&out);
    json_decref(v);
}

static void findings_are_capped(void **state)
{
    (void)state;
    json_t *v = json_object();
    for (int i = 0; i < 50; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        json_object_set_new(v, key, json_integer(i));
    }
    struct openapi_violations out = {0};
    size_t n = openapi_validate_schema(doc, "Thing", v, &out);
    assert_true(n > OPENAPI_MAX_VIOLATIONS);
    assert_int_equal(out.count, OPENAPI_MAX_VIOLATIONS);
    assert_int_equal(out.count + out.dropped, n);
    char *joined = openapi_violations_join(&out);
    assert_non_null(strstr(joined, "more"));
    free(joined);
    openapi_violations_free(&out);
    json_decref(v);
}

static void routes_and_responses(void **state)
{
    (void)state;
    assert_string_equal(openapi_match_route(doc, "/v1/things/a/b/c?x=1"), "/v1/things/{id}");
    assert_string_equal(openapi_match_route(doc, "/v1/ping"), "/v1/ping");
    assert_null(openapi_match_route(doc, "/v1/pingx"));
    assert_null(openapi_match_route(doc, "/v2/things/a"));

    const char *r = "/v1/things/{id}";
    struct openapi_violations out = {0};
    const char *thing = "{\"name\":\"ab\",\"n\":1}";
    assert_int_equal(openapi_validate_response(doc, r, "GET", 200,
                                               "application/json; charset=utf-8", thing,
                                               strlen(thing), &out),
                     0);
    assert_int_equal(openapi_validate_response(doc, r, "get", 200, "Application/Octet-Stream",
                                               "\x00\xff", 2, &out),
                     0);
    assert_int_equal(openapi_validate_response(doc, r, "GET", 204, NULL, NULL, 0, &out), 0);
    /* "default" covers undocumented statuses of a defined operation. */
    assert_int_equal(openapi_validate_response(doc, r, "GET", 418, "application/json",
                                               "{\"code\":\"X\"}", 12, &out),
                     0);
    /* 405 for a method the route lacks, and 404 for an unknown route. */
    assert_int_equal(openapi_validate_response(doc, r, "PATCH", 405, "application/json",
                                               "{\"code\":\"X\"}", 12, &out),
                     0);
    assert_int_equal(openapi_validate_response(doc, "/nope", "GET", 404, "application/json",
                                               "{\"code\":\"X\"}", 12, &out),
                     0);
    assert_int_equal(openapi_validate_response(doc, NULL, "GET", 404, "application/json",
                                               "{\"code\":\"X\"}", 12, &out),
                     0);
    assert_int_equal(out.count, 0);

    assert_int_equal(openapi_validate_response(doc, r, "GET", 204, NULL, "x", 1, &out), 1);
    assert_int_equal(openapi_validate_response(doc, r, "GET", 200, "text/plain", "x", 1, &out), 1);
    assert_int_equal(openapi_validate_response(doc, r, "GET", 200, NULL, "x", 1, &out), 1);
    assert_int_equal(
        openapi_validate_response(doc, r, "GET", 200, "application/json", "{x", 2, &out), 1);
    assert_int_equal(openapi_validate_response(doc, r, "PUT", 204, NULL, NULL, 0, &out), 1);
    assert_int_equal(openapi_validate_response(doc, "/v1/ping", "GET", 500, NULL, NULL, 0, &out),
                     1);
    assert_int_equal(
        openapi_validate_response(doc, r, "PATCH", 405, "application/json", "{}", 2, &out), 1);
    char *joined = openapi_violations_join(&out);
    assert_non_null(strstr(joined, "not documented"));
    assert_non_null(strstr(joined, "not valid JSON"));
    assert_non_null(strstr(joined, "required field \"code\""));
    free(joined);
    openapi_violations_free(&out);
}

static void non_openapi_documents_are_refused(void **state)
{
    (void)state;
    char err[256];
    const char *swagger = "swagger: '2.0'\npaths: {}\n";
    assert_null(openapi_load_string(swagger, strlen(swagger), err, sizeof err));
    assert_non_null(strstr(err, "not an OpenAPI 3.0"));
    const char *nopaths = "openapi: 3.0.0\n";
    assert_null(openapi_load_string(nopaths, strlen(nopaths), err, sizeof err));
    assert_null(openapi_load("/nonexistent.yaml", err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_instances_pass),
        cmocka_unit_test(type_required_and_extra_fields),
        cmocka_unit_test(strings_numbers_and_enums),
        cmocka_unit_test(formats),
        cmocka_unit_test(combinators_and_refs),
        cmocka_unit_test(findings_are_capped),
        cmocka_unit_test(routes_and_responses),
        cmocka_unit_test(non_openapi_documents_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
