/* SPDX-License-Identifier: Apache-2.0 */
/* YAML to JSON conversion used to load the OpenAPI document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "openapi_yaml.h"

static json_t *load(const char *text)
{
    char err[256];
    json_t *v = yaml_load_string(text, strlen(text), err, sizeof err);
    if (!v) print_error("yaml: %s\n", err);
    return v;
}

static void scalars_are_typed_like_the_core_schema(void **state)
{
    (void)state;
    json_t *v = load("a: 12\nb: -3\nc: 1.5\nd: true\ne: False\nf: ~\ng: null\nh: text\n"
                     "i: '12'\nj: \"true\"\nk: !!str 7\nl: 0x1f\nm:\nn: 1e3\n");
    assert_non_null(v);
    assert_int_equal(json_integer_value(json_object_get(v, "a")), 12);
    assert_int_equal(json_integer_value(json_object_get(v, "b")), -3);
    assert_true(json_is_real(json_object_get(v, "c")));
    assert_true(json_is_true(json_object_get(v, "d")));
    assert_true(json_is_false(json_object_get(v, "e")));
    assert_true(json_is_null(json_object_get(v, "f")));
    assert_true(json_is_null(json_object_get(v, "g")));
    assert_string_equal(json_string_value(json_object_get(v, "h")), "text");
    assert_string_equal(json_string_value(json_object_get(v, "i")), "12");
    assert_string_equal(json_string_value(json_object_get(v, "j")), "true");
    assert_string_equal(json_string_value(json_object_get(v, "k")), "7");
    assert_int_equal(json_integer_value(json_object_get(v, "l")), 31);
    assert_true(json_is_null(json_object_get(v, "m")));
    assert_true(json_is_real(json_object_get(v, "n")));
    json_decref(v);
}

static void keys_stay_strings_and_nesting_is_kept(void **state)
{
    (void)state;
    json_t *v = load("responses:\n  '200': {description: ok}\n  404:\n    description: nf\n"
                     "list: [1, [2, 3], {x: y}]\n");
    assert_non_null(v);
    json_t *r = json_object_get(v, "responses");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(r, "200"), "description")), "ok");
    assert_non_null(json_object_get(r, "404"));
    json_t *list = json_object_get(v, "list");
    assert_int_equal(json_array_size(list), 3);
    assert_int_equal(json_array_size(json_array_get(list, 1)), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 2), "x")), "y");
    json_decref(v);
}

static void anchors_and_aliases_resolve(void **state)
{
    (void)state;
    json_t *v = load("base: &b {type: string, pattern: '^a$'}\nuse: *b\n");
    assert_non_null(v);
    assert_true(json_equal(json_object_get(v, "base"), json_object_get(v, "use")));
    json_decref(v);
}

static void errors_name_the_line(void **state)
{
    (void)state;
    char err[256];
    const char *bad = "a: 1\nb: [1, 2\nc: 3\n";
    assert_null(yaml_load_string(bad, strlen(bad), err, sizeof err));
    assert_non_null(strstr(err, "line "));

    const char *alias = "a: *nowhere\n";
    assert_null(yaml_load_string(alias, strlen(alias), err, sizeof err));
    assert_non_null(strstr(err, "unknown anchor"));

    /* A node that refers to itself is refused instead of building a cycle. */
    const char *self = "a: &s [1, *s]\n";
    assert_null(yaml_load_string(self, strlen(self), err, sizeof err));

    assert_null(yaml_load_string("", 0, err, sizeof err));
    assert_null(yaml_load_file("/nonexistent/x.yaml", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/x.yaml"));
}

static void deep_nesting_is_bounded(void **state)
{
    (void)state;
    char text[400];
    size_t n = 0;
    for (int i = 0; i < 150; i++)
        text[n++] = '[';
    text[n] = '\0';
    char err[256];
    assert_null(yaml_load_string(text, n, err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars_are_typed_like_the_core_schema),
        cmocka_unit_test(keys_stay_strings_and_nesting_is_kept),
        cmocka_unit_test(anchors_and_aliases_resolve),
        cmocka_unit_test(errors_name_the_line),
        cmocka_unit_test(deep_nesting_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
