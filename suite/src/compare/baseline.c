/* SPDX-License-Identifier: Apache-2.0 */
/* Baseline files (libyaml document API). */
#include "baseline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *scalar(yaml_document_t *doc, yaml_node_t *n)
{
    (void)doc;
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = scalar(doc, yaml_document_get_node(doc, p->key));
        if (k && strcmp(k, key) == 0) return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

int baseline_load(const char *path, struct baseline *b, char *err, size_t err_len)
{
    *b = (struct baseline){0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "cannot open baseline %s", path);
        return -1;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    int rc = -1;
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, err_len, "%s:%zu: %s", path, parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "YAML syntax error");
        yaml_parser_delete(&parser);
        fclose(f);
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    yaml_node_t *list = root;
    if (root && root->type == YAML_MAPPING_NODE) {
        list = map_get(&doc, root, "expected_failures");
        if (!list) list = map_get(&doc, root, "known_deviations");
    }
    if (!root) { /* an empty file is an empty baseline */
        rc = 0;
        goto out;
    }
    if (!list || list->type != YAML_SEQUENCE_NODE) {
        snprintf(err, err_len,
                 "%s: expected a list of {id, reason, link} (top level or under "
                 "expected_failures:)",
                 path);
        goto out;
    }
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    b->entries = calloc(n ? n : 1, sizeof *b->entries);
    if (!b->entries) {
        snprintf(err, err_len, "%s: out of memory", path);
        goto out;
    }
    for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top;
         it++) {
        yaml_node_t *e = yaml_document_get_node(&doc, *it);
        const char *id = scalar(&doc, map_get(&doc, e, "id"));
        if (!id && e && e->type == YAML_SCALAR_NODE)
            id = scalar(&doc, e); /* a bare ID is allowed */
        if (!id || !*id) {
            snprintf(err, err_len, "%s:%zu: entry without an id", path,
                     e ? e->start_mark.line + 1 : 0);
            goto out;
        }
        const char *reason = scalar(&doc, map_get(&doc, e, "reason"));
        const char *link = scalar(&doc, map_get(&doc, e, "link"));
        if (link && !*link) link = NULL; /* an empty link is one still to fill in */
        struct baseline_entry *be = &b->entries[b->count++];
        be->id = strdup(id);
        be->reason = reason ? strdup(reason) : NULL;
        be->link = link ? strdup(link) : NULL;
        if (!be->id || (reason && !be->reason) || (link && !be->link)) {
            snprintf(err, err_len, "%s: out of memory", path);
            goto out;
        }
    }
    rc = 0;
out:
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(f);
    if (rc != 0) baseline_free(b);
    return rc;
}

const struct baseline_entry *baseline_find(const struct baseline *b, const char *id)
{
    for (size_t i = 0; b && i < b->count; i++)
        if (strcmp(b->entries[i].id, id) == 0) return &b->entries[i];
    return NULL;
}

void baseline_free(struct baseline *b)
{
    /* entries is NULL when loading failed before the allocation */
    for (size_t i = 0; b->entries && i < b->count; i++) {
        free(b->entries[i].id);
        free(b->entries[i].reason);
        free(b->entries[i].link);
    }
    free(b->entries);
    b->entries = NULL;
    b->count = 0;
}
