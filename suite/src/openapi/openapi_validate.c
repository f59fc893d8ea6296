/* SPDX-License-Identifier: Apache-2.0 */
/* JSON Schema validation of values against the document's schemas
 * (types, formats, strings, numbers, objects, arrays, combinators). */
#include "openapi_internal.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_integral(const json_t *v)
{
    if (json_is_integer(v)) return true;
    if (!json_is_real(v)) return false;
    double d = json_real_value(v);
    return isfinite(d) && floor(d) == d && fabs(d) < 9.2e18;
}

static bool type_ok(const char *type, const json_t *v)
{
    if (strcmp(type, "string") == 0) return json_is_string(v);
    if (strcmp(type, "integer") == 0) return is_integral(v);
    if (strcmp(type, "number") == 0) return json_is_number(v);
    if (strcmp(type, "boolean") == 0) return json_is_boolean(v);
    if (strcmp(type, "array") == 0) return json_is_array(v);
    if (strcmp(type, "object") == 0) return json_is_object(v);
    return true; /* unknown type names constrain nothing */
}

static double number_of(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

static size_t utf8_length(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) count++;
    return count;
}

static void check_format(const char *format, const json_t *v, const char *path,
                         struct openapi_violations *out)
{
    char shown[96];
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        bool has_nul = strlen(s) != json_string_length(v);
        if (strcmp(format, "date-time") == 0 && (has_nul || !openapi_is_rfc3339_datetime(s))) {
            openapi_render_value(v, shown, sizeof shown);
            openapi_finding_add(out, "%s: %s is not an RFC 3339 date-time", path, shown);
        } else if (strcmp(format, "date") == 0 &&
                   (has_nul || strlen(s) != 10 || !openapi_is_rfc3339_date(s))) {
            openapi_render_value(v, shown, sizeof shown);
            openapi_finding_add(out, "%s: %s is not an RFC 3339 full-date", path, shown);
        }
        return;
    }
    if (!is_integral(v)) return;
    if (strcmp(format, "int32") == 0) {
        double d = number_of(v);
        if (d < (double)INT32_MIN || d > (double)INT32_MAX) {
            openapi_render_value(v, shown, sizeof shown);
            openapi_finding_add(out, "%s: %s is outside int32", path, shown);
        }
    }
    /* int64: jansson holds integers as long long, so every integer fits. */
}

static void check_string(const json_t *schema, const json_t *v, const char *path,
                         struct openapi_violations *out)
{
    char shown[96];
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    const json_t *min = json_object_get(schema, "minLength");
    const json_t *max = json_object_get(schema, "maxLength");
    size_t chars = utf8_length(s, n);
    if (json_is_integer(min) && (json_int_t)chars < json_integer_value(min)) {
        openapi_render_value(v, shown, sizeof shown);
        openapi_finding_add(out, "%s: %s is shorter than %lld characters", path, shown,
                            (long long)json_integer_value(min));
    }
    if (json_is_integer(max) && (json_int_t)chars > json_integer_value(max)) {
        openapi_render_value(v, shown, sizeof shown);
        openapi_finding_add(out, "%s: %s is longer than %lld characters", path, shown,
                            (long long)json_integer_value(max));
    }
    const char *pattern = json_string_value(json_object_get(schema, "pattern"));
    if (pattern) {
        regex_t re;
        if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
            openapi_finding_add(out, "%s: the document's pattern %s is not a valid POSIX ERE", path,
                                pattern);
            return;
        }
        /* An embedded NUL never matches: the pattern describes text. */
        bool ok = strlen(s) == n && regexec(&re, s, 0, NULL, 0) == 0;
        regfree(&re);
        if (!ok) {
            openapi_render_value(v, shown, sizeof shown);
            openapi_finding_add(out, "%s: %s does not match the pattern %s", path, shown, pattern);
        }
    }
}

static void check_number(const json_t *schema, const json_t *v, const char *path,
                         struct openapi_violations *out)
{
    char shown[96];
    double d = number_of(v);
    const json_t *min = json_object_get(schema, "minimum");
    const json_t *max = json_object_get(schema, "maximum");
    bool xmin = json_is_true(json_object_get(schema, "exclusiveMinimum"));
    bool xmax = json_is_true(json_object_get(schema, "exclusiveMaximum"));
    if (json_is_number(min) && (xmin ? d <= number_of(min) : d < number_of(min))) {
        openapi_render_value(v, shown, sizeof shown);
        openapi_finding_add(out, "%s: %s is below the %sminimum %g", path, shown,
                            xmin ? "exclusive " : "", number_of(min));
    }
    if (json_is_number(max) && (xmax ? d >= number_of(max) : d > number_of(max))) {
        openapi_render_value(v, shown, sizeof shown);
        openapi_finding_add(out, "%s: %s is above the %smaximum %g", path, shown,
                            xmax ? "exclusive " : "", number_of(max));
    }
}

static void check_object(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                         const char *path, struct openapi_violations *out, int depth)
{
    char sub[512];
    const json_t *required = json_object_get(schema, "required");
    size_t i;
    const json_t *name;
    for (i = 0; i < json_array_size(required) && (name = json_array_get(required, i)); i++) {
        const char *key = json_string_value(name);
        if (key && !json_object_get(v, key))
            openapi_finding_add(out, "%s: required field \"%s\" is missing", path, key);
    }
    const json_t *props = json_object_get(schema, "properties");
    const json_t *extra = json_object_get(schema, "additionalProperties");
    const char *key;
    const json_t *val;
    for (void *it = json_object_iter((json_t *)v);
         it && (key = json_object_iter_key(it)) && (val = json_object_iter_value(it));
         it = json_object_iter_next((json_t *)v, it)) {
        openapi_path_key(sub, sizeof sub, path, key);
        const json_t *ps = json_object_get(props, key);
        if (ps)
            openapi_validate_at(doc, ps, val, sub, out, depth + 1);
        else if (json_is_false(extra))
            openapi_finding_add(
                out, "%s: field \"%s\" is not allowed (additionalProperties: false)", path, key);
        else if (json_is_object(extra))
            openapi_validate_at(doc, extra, val, sub, out, depth + 1);
    }
    const json_t *minp = json_object_get(schema, "minProperties");
    const json_t *maxp = json_object_get(schema, "maxProperties");
    if (json_is_integer(minp) && (json_int_t)json_object_size(v) < json_integer_value(minp))
        openapi_finding_add(out, "%s: fewer than %lld fields", path,
                            (long long)json_integer_value(minp));
    if (json_is_integer(maxp) && (json_int_t)json_object_size(v) > json_integer_value(maxp))
        openapi_finding_add(out, "%s: more than %lld fields", path,
                            (long long)json_integer_value(maxp));
}

static void check_array(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                        const char *path, struct openapi_violations *out, int depth)
{
    char sub[512];
    const json_t *items = json_object_get(schema, "items");
    size_t n = json_array_size(v);
    if (json_is_object(items))
        for (size_t i = 0; i < n; i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            openapi_validate_at(doc, items, json_array_get(v, i), sub, out, depth + 1);
        }
    const json_t *mini = json_object_get(schema, "minItems");
    const json_t *maxi = json_object_get(schema, "maxItems");
    if (json_is_integer(mini) && (json_int_t)n < json_integer_value(mini))
        openapi_finding_add(out, "%s: fewer than %lld items", path,
                            (long long)json_integer_value(mini));
    if (json_is_integer(maxi) && (json_int_t)n > json_integer_value(maxi))
        openapi_finding_add(out, "%s: more than %lld items", path,
                            (long long)json_integer_value(maxi));
    if (json_is_true(json_object_get(schema, "uniqueItems")))
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (json_equal(json_array_get(v, i), json_array_get(v, j))) {
                    openapi_finding_add(out, "%s: items %zu and %zu are equal (uniqueItems)", path,
                                        i, j);
                    return;
                }
}

/* allOf: every part; anyOf: at least one; oneOf: exactly one; not: none. */
static void check_combinators(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                              const char *path, struct openapi_violations *out, int depth)
{
    size_t i;
    const json_t *part;
    const json_t *all = json_object_get(schema, "allOf");
    for (i = 0; i < json_array_size(all) && (part = json_array_get(all, i)); i++)
        openapi_validate_at(doc, part, v, path, out, depth + 1);

    const char *names[] = {"anyOf", "oneOf"};
    for (int k = 0; k < 2; k++) {
        const json_t *list = json_object_get(schema, names[k]);
        if (!json_is_array(list) || json_array_size(list) == 0) continue;
        size_t passed = 0;
        struct openapi_violations first = {0};
        for (i = 0; i < json_array_size(list) && (part = json_array_get(list, i)); i++) {
            struct openapi_violations tmp = {0};
            openapi_validate_at(doc, part, v, path, &tmp, depth + 1);
            if (openapi_findings_total(&tmp) == 0)
                passed++;
            else if (openapi_findings_total(&first) == 0)
                openapi_findings_merge(&first, &tmp);
            openapi_violations_free(&tmp);
        }
        if (passed == 0) {
            openapi_finding_add(out, "%s: matches none of the %s alternatives", path, names[k]);
            openapi_findings_merge(out, &first);
        } else if (k == 1 && passed > 1) {
            openapi_finding_add(out, "%s: matches %zu oneOf alternatives, not exactly one", path,
                                passed);
        }
        openapi_violations_free(&first);
    }
    const json_t *not = json_object_get(schema, "not");
    if (json_is_object(not )) {
        struct openapi_violations tmp = {0};
        openapi_validate_at(doc, not, v, path, &tmp, depth + 1);
        if (openapi_findings_total(&tmp) == 0)
            openapi_finding_add(out, "%s: matches a schema it must not match", path);
        openapi_violations_free(&tmp);
    }
}

void openapi_validate_at(const struct openapi_doc *doc, const json_t *schema, const json_t *v,
                         const char *path, struct openapi_violations *out, int depth)
{
    char shown[96];
    if (depth > SCHEMA_MAX_DEPTH) {
        openapi_finding_add(out, "%s: nested too deeply to validate", path);
        return;
    }
    schema = openapi_deref(doc, schema, out, path);
    if (!json_is_object(schema)) return;

    const char *type = json_string_value(json_object_get(schema, "type"));
    if (json_is_null(v)) {
        if (json_is_true(json_object_get(schema, "nullable"))) return;
        if (type) {
            openapi_finding_add(out, "%s: null where %s %s is required", path,
                                strchr("aeiou", type[0]) ? "an" : "a", type);
            return;
        }
    }
    if (type && !type_ok(type, v)) {
        openapi_render_value(v, shown, sizeof shown);
        openapi_finding_add(out, "%s: %s is %s %s, not %s %s", path, shown,
                            strchr("aeiou", openapi_type_name(v)[0]) ? "an" : "a",
                            openapi_type_name(v), strchr("aeiou", type[0]) ? "an" : "a", type);
        return;
    }

    const json_t *en = json_object_get(schema, "enum");
    if (json_is_array(en)) {
        bool found = false;
        size_t i;
        const json_t *opt;
        for (i = 0; i < json_array_size(en) && (opt = json_array_get(en, i)); i++) {
            /* Integral reals compare equal to integers. */
            if (json_equal(opt, v) ||
                (json_is_number(opt) && json_is_number(v) && number_of(opt) == number_of(v)))
                found = true;
        }
        if (!found) {
            openapi_render_value(v, shown, sizeof shown);
            char *allowed = json_dumps(en, JSON_COMPACT);
            openapi_finding_add(out, "%s: %s is not one of %s", path, shown,
                                allowed ? allowed : "the enum");
            free(allowed);
        }
    }

    const char *format = json_string_value(json_object_get(schema, "format"));
    if (format) check_format(format, v, path, out);
    if (json_is_string(v))
        check_string(schema, v, path, out);
    else if (json_is_number(v))
        check_number(schema, v, path, out);
    else if (json_is_object(v))
        check_object(doc, schema, v, path, out, depth);
    else if (json_is_array(v))
        check_array(doc, schema, v, path, out, depth);
    check_combinators(doc, schema, v, path, out, depth);
}

size_t openapi_validate_node(const struct openapi_doc *doc, const json_t *schema,
                             const json_t *instance, struct openapi_violations *out)
{
    size_t before = openapi_findings_total(out);
    openapi_validate_at(doc, schema, instance, "$", out, 0);
    return openapi_findings_total(out) - before;
}

size_t openapi_validate_schema(const struct openapi_doc *doc, const char *schema_name,
                               const json_t *instance, struct openapi_violations *out)
{
    const json_t *schema = openapi_schema_named(doc, schema_name);
    if (!schema) {
        openapi_finding_add(out, "the OpenAPI document has no schema %s", schema_name);
        return 1;
    }
    return openapi_validate_node(doc, schema, instance, out);
}
