/* SPDX-License-Identifier: Apache-2.0 */
/* YAML to jansson values for the OpenAPI document (see openapi_yaml.h). */
#include "openapi_yaml.h"

#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Deeper nesting than this is refused rather than recursed into. */
#define YAML_MAX_DEPTH 64
#define YAML_MAX_ANCHORS 256

struct anchor {
    char *name;
    json_t *value; /* borrowed from the tree under construction */
};

struct loader {
    yaml_parser_t parser;
    struct anchor anchors[YAML_MAX_ANCHORS];
    size_t n_anchors;
    char *err;
    size_t errlen;
    bool failed;
};

static void fail_at(struct loader *ld, const yaml_mark_t *mark, const char *what)
{
    if (ld->failed) return;
    ld->failed = true;
    snprintf(ld->err, ld->errlen, "line %zu column %zu: %s", mark->line + 1, mark->column + 1,
             what);
}

static void fail_parser(struct loader *ld)
{
    if (ld->failed) return;
    ld->failed = true;
    snprintf(ld->err, ld->errlen, "line %zu column %zu: %s", ld->parser.problem_mark.line + 1,
             ld->parser.problem_mark.column + 1,
             ld->parser.problem ? ld->parser.problem : "YAML syntax error");
}

static bool next_event(struct loader *ld, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&ld->parser, ev)) {
        fail_parser(ld);
        return false;
    }
    return true;
}

static bool matches(const char *text, const char *ere)
{
    regex_t re;
    if (regcomp(&re, ere, REG_EXTENDED | REG_NOSUB) != 0) return false;
    bool ok = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* Types a plain scalar the way YAML 1.2's core schema does. */
static json_t *plain_scalar(const char *s)
{
    if (*s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
        strcmp(s, "NULL") == 0)
        return json_null();
    if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0)
        return json_true();
    if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
        return json_false();
    if (matches(s, "^[-+]?[0-9]+$")) {
        errno = 0;
        long long v = strtoll(s, NULL, 10);
        if (errno == 0) return json_integer(v);
        return json_string(s);
    }
    if (matches(s, "^0x[0-9a-fA-F]+$")) {
        errno = 0;
        long long v = strtoll(s + 2, NULL, 16);
        if (errno == 0) return json_integer(v);
        return json_string(s);
    }
    if (matches(s, "^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"))
        return json_real(strtod(s, NULL));
    return json_string(s);
}

static json_t *scalar_value(const yaml_event_t *ev)
{
    const char *text = (const char *)ev->data.scalar.value;
    const char *tag = (const char *)ev->data.scalar.tag;
    if (tag && strcmp(tag, YAML_STR_TAG) == 0) return json_stringn(text, ev->data.scalar.length);
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return json_stringn(text, ev->data.scalar.length);
    return plain_scalar(text);
}

static void remember_anchor(struct loader *ld, const yaml_mark_t *mark, const yaml_char_t *name,
                            json_t *value)
{
    if (!name) return;
    if (ld->n_anchors == YAML_MAX_ANCHORS) {
        fail_at(ld, mark, "too many anchors");
        return;
    }
    ld->anchors[ld->n_anchors].name = strdup((const char *)name);
    ld->anchors[ld->n_anchors].value = value;
    ld->n_anchors++;
}

static json_t *alias_value(struct loader *ld, const yaml_event_t *ev)
{
    for (size_t i = ld->n_anchors; i-- > 0;)
        if (strcmp(ld->anchors[i].name, (const char *)ev->data.alias.anchor) == 0)
            return json_incref(ld->anchors[i].value);
    fail_at(ld, &ev->start_mark, "alias to an unknown anchor");
    return NULL;
}

static json_t *parse_node(struct loader *ld, yaml_event_t *ev, int depth);

/* Reads the entries of a mapping whose start event was consumed. */
static bool parse_mapping(struct loader *ld, json_t *obj, int depth)
{
    for (;;) {
        yaml_event_t key_ev;
        if (!next_event(ld, &key_ev)) return false;
        if (key_ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&key_ev);
            return true;
        }
        if (key_ev.type != YAML_SCALAR_EVENT) {
            fail_at(ld, &key_ev.start_mark, "only scalar mapping keys are supported");
            yaml_event_delete(&key_ev);
            return false;
        }
        char *key = strdup((const char *)key_ev.data.scalar.value);
        yaml_event_delete(&key_ev);
        yaml_event_t val_ev;
        if (!key || !next_event(ld, &val_ev)) {
            free(key);
            return false;
        }
        json_t *val = parse_node(ld, &val_ev, depth + 1);
        yaml_event_delete(&val_ev);
        if (!val) {
            free(key);
            return false;
        }
        json_object_set_new(obj, key, val);
        free(key);
    }
}

static bool parse_sequence(struct loader *ld, json_t *arr, int depth)
{
    for (;;) {
        yaml_event_t item_ev;
        if (!next_event(ld, &item_ev)) return false;
        if (item_ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&item_ev);
            return true;
        }
        json_t *val = parse_node(ld, &item_ev, depth + 1);
        yaml_event_delete(&item_ev);
        if (!val) return false;
        json_array_append_new(arr, val);
    }
}

/* Builds the value that starts with event ev (not deleted here). */
static json_t *parse_node(struct loader *ld, yaml_event_t *ev, int depth)
{
    if (depth > YAML_MAX_DEPTH) {
        fail_at(ld, &ev->start_mark, "nesting too deep");
        return NULL;
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        json_t *v = scalar_value(ev);
        remember_anchor(ld, &ev->start_mark, ev->data.scalar.anchor, v);
        return v;
    }
    case YAML_ALIAS_EVENT:
        return alias_value(ld, ev);
    case YAML_MAPPING_START_EVENT: {
        /* The anchor is recorded once the node is complete, so a
         * self-referencing alias is refused instead of making a cycle. */
        json_t *obj = json_object();
        if (!parse_mapping(ld, obj, depth)) {
            json_decref(obj);
            return NULL;
        }
        remember_anchor(ld, &ev->start_mark, ev->data.mapping_start.anchor, obj);
        return obj;
    }
    case YAML_SEQUENCE_START_EVENT: {
        json_t *arr = json_array();
        if (!parse_sequence(ld, arr, depth)) {
            json_decref(arr);
            return NULL;
        }
        remember_anchor(ld, &ev->start_mark, ev->data.sequence_start.anchor, arr);
        return arr;
    }
    default:
        fail_at(ld, &ev->start_mark, "unexpected YAML event");
        return NULL;
    }
}

static json_t *load(struct loader *ld)
{
    json_t *root = NULL;
    yaml_event_t ev;
    /* Skip STREAM-START and DOCUMENT-START, build the first node. */
    for (int i = 0; i < 4 && !root && !ld->failed; i++) {
        if (!next_event(ld, &ev)) break;
        if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        if (ev.type == YAML_STREAM_END_EVENT) {
            fail_at(ld, &ev.start_mark, "empty document");
            yaml_event_delete(&ev);
            break;
        }
        root = parse_node(ld, &ev, 0);
        yaml_event_delete(&ev);
    }
    if (!root && !ld->failed) snprintf(ld->err, ld->errlen, "no YAML document found");
    if (ld->failed) {
        json_decref(root);
        root = NULL;
    }
    for (size_t i = 0; i < ld->n_anchors; i++)
        free(ld->anchors[i].name);
    return root;
}

json_t *yaml_load_string(const char *text, size_t len, char *err, size_t errlen)
{
    struct loader ld = {.err = err, .errlen = errlen};
    if (errlen) err[0] = '\0';
    if (!yaml_parser_initialize(&ld.parser)) {
        snprintf(err, errlen, "cannot initialise the YAML parser");
        return NULL;
    }
    yaml_parser_set_input_string(&ld.parser, (const unsigned char *)text, len);
    json_t *root = load(&ld);
    yaml_parser_delete(&ld.parser);
    return root;
}

json_t *yaml_load_file(const char *path, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct loader ld = {.err = err, .errlen = errlen};
    if (errlen) err[0] = '\0';
    if (!yaml_parser_initialize(&ld.parser)) {
        fclose(fp);
        snprintf(err, errlen, "cannot initialise the YAML parser");
        return NULL;
    }
    yaml_parser_set_input_file(&ld.parser, fp);
    json_t *root = load(&ld);
    yaml_parser_delete(&ld.parser);
    fclose(fp);
    if (!root && errlen) {
        char inner[256];
        snprintf(inner, sizeof inner, "%s", err);
        snprintf(err, errlen, "%s: %s", path, inner);
    }
    return root;
}
