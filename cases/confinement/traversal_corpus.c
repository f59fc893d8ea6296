/* SPDX-License-Identifier: Apache-2.0 */
/* The traversal corpus (traversal.yaml) loaded with libyaml: every vector
 * complete, and every PUT or DELETE template ending in one of the suite's
 * own names. */
#include "confinement/traversal_internal.h"

#include "confinement/traversal.h"

#include "case_api.h"
#include "data_dir.h"
#include "rest_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *const class_names[TC_COUNT] = {
    [TC_ESCAPE_ENCODED] = "escape-encoded",
    [TC_ESCAPE_RAW] = "escape-raw",
    [TC_ABSOLUTE] = "absolute",
    [TC_ABSOLUTE_INSIDE] = "absolute-inside",
    [TC_LITERAL] = "literal",
    [TC_INSIDE] = "inside",
    [TC_BACKSLASH] = "backslash",
    [TC_OVERLONG_UTF8] = "overlong-utf8",
    [TC_NUL] = "nul",
    [TC_BAD_ENCODING] = "bad-encoding",
    [TC_OVERLONG_NAME] = "overlong-name",
    [TC_OVERLONG_PATH] = "overlong-path",
};

const char *trav_class_name(enum trav_class c)
{
    return c < TC_COUNT ? class_names[c] : "?";
}

static char *corpus_path(void)
{
    const char *dir = getenv("SBX_CASES_DIR");
    if (dir && *dir) return conf_xasprintf("%s/confinement/traversal.yaml", dir);
    return conf_xasprintf("%s/cases/confinement/traversal.yaml", data_dir());
}

static const char *const name_placeholders[] = {"{pf}", "{pd}", "{pi}", "{tf}",
                                                "{sf}", "{in}", "{sib}"};

/* A PUT or DELETE template must end in one of our own names (plus at most a
 * suffix within that last component), so that even a runtime that resolves
 * it naively can only ever write or remove our canaries. */
static bool ends_in_own_name(const char *t)
{
    const char *last = NULL;
    size_t last_len = 0;
    for (size_t i = 0; i < sizeof name_placeholders / sizeof name_placeholders[0]; i++)
        for (const char *p = strstr(t, name_placeholders[i]); p;
             p = strstr(p + 1, name_placeholders[i]))
            if (!last || p > last) {
                last = p;
                last_len = strlen(name_placeholders[i]);
            }
    if (!last) return false;
    const char *rest = last + last_len;
    size_t n = strlen(rest);
    if (n >= 1 && rest[n - 1] == '/')
        n--;
    else if (n >= 3 && (strcmp(rest + n - 3, "%2f") == 0 || strcmp(rest + n - 3, "%2F") == 0))
        n -= 3;
    for (size_t i = 0; i < n; i++) {
        if (rest[i] == '/' || rest[i] == '{') return false;
        if (i + 2 < n && rest[i] == '%' && rest[i + 1] == '2' &&
            (rest[i + 2] == 'f' || rest[i + 2] == 'F'))
            return false;
    }
    return true;
}

static bool parse_bool(const char *s)
{
    return strcmp(s, "true") == 0 || strcmp(s, "yes") == 0;
}

static void free_vector(struct trav_vector *v)
{
    free(v->id);
    free(v->path);
    free(v->put_path);
    free(v->delete_path);
    free(v->delete_query);
    free(v->about);
    memset(v, 0, sizeof *v);
}

/* A key given twice in one vector is refused (and nothing leaks): which of
 * two PUT templates would apply must never be a guess. */
static int set_string(char **slot, const char *key, const char *val, char *err, size_t errlen)
{
    if (*slot) {
        snprintf(err, errlen, "key \"%s\" given twice", key);
        return -1;
    }
    *slot = conf_xstrdup(val);
    return 0;
}

static int set_field(struct trav_vector *v, const char *key, const char *val, char *err,
                     size_t errlen)
{
    char **slot = strcmp(key, "id") == 0             ? &v->id
                  : strcmp(key, "path") == 0         ? &v->path
                  : strcmp(key, "put_path") == 0     ? &v->put_path
                  : strcmp(key, "delete_path") == 0  ? &v->delete_path
                  : strcmp(key, "delete_query") == 0 ? &v->delete_query
                  : strcmp(key, "about") == 0        ? &v->about
                                                     : NULL;
    if (slot) return set_string(slot, key, val, err, errlen);
    if (strcmp(key, "class") == 0) {
        int c;
        for (c = 0; c < TC_COUNT; c++)
            if (strcmp(val, class_names[c]) == 0) break;
        if (c == TC_COUNT) {
            snprintf(err, errlen, "unknown class \"%s\"", val);
            return -1;
        }
        v->cls = (enum trav_class)c;
    } else if (strcmp(key, "put") == 0) {
        if (strcmp(val, "overwrite") != 0 && strcmp(val, "create") != 0) {
            snprintf(err, errlen, "put must be create or overwrite, not \"%s\"", val);
            return -1;
        }
        v->put_overwrite = strcmp(val, "overwrite") == 0;
    } else if (strcmp(key, "escapes") == 0)
        v->escapes = parse_bool(val);
    else if (strcmp(key, "raw") == 0)
        v->raw = parse_bool(val);
    else {
        snprintf(err, errlen, "unknown key \"%s\"", key);
        return -1;
    }
    return 0;
}

static int validate(const struct trav_vector *v, char *err, size_t errlen)
{
    if (!v->id || !v->path) {
        snprintf(err, errlen, "vector %s without id or path", v->id ? v->id : "?");
        return -1;
    }
    const char *put = v->put_path ? v->put_path : v->path;
    const char *del = v->delete_path ? v->delete_path : v->path;
    if (!ends_in_own_name(put) || !ends_in_own_name(del)) {
        snprintf(err, errlen,
                 "vector %s: PUT and DELETE targets must end in a canary or fixture name "
                 "placeholder",
                 v->id);
        return -1;
    }
    return 0;
}

int trav_load(struct trav_corpus *corpus, char *err, size_t errlen)
{
    memset(corpus, 0, sizeof *corpus);
    char *path = corpus_path();
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);

    /* States: 0 top mapping key, 1 inside vectors sequence, 2 inside a vector. */
    int state = 0, skip_depth = 0, rc = -1;
    bool want_vectors_seq = false, done = false;
    char *key = NULL;
    size_t cap = 0;
    struct trav_vector cur = {0};
    err[0] = '\0';
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            snprintf(err, errlen, "%s:%zu: YAML error: %s", path, parser.problem_mark.line + 1,
                     parser.problem ? parser.problem : "?");
            break;
        }
        yaml_event_type_t t = ev.type;
        if (skip_depth > 0) {
            if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT)
                skip_depth++;
            else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT)
                skip_depth--;
            if (skip_depth == 0) {
                free(key);
                key = NULL;
            }
        } else if (t == YAML_STREAM_END_EVENT) {
            done = true;
            rc = err[0] ? -1 : 0;
        } else if (state == 0) {
            if (t == YAML_SCALAR_EVENT) {
                if (!key)
                    key = conf_xstrdup((const char *)ev.data.scalar.value);
                else {
                    free(key);
                    key = NULL;
                }
            } else if (t == YAML_SEQUENCE_START_EVENT && key && strcmp(key, "vectors") == 0) {
                state = 1;
                want_vectors_seq = true;
                free(key);
                key = NULL;
            } else if ((t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) && key) {
                skip_depth = 1;
            }
        } else if (state == 1) {
            if (t == YAML_MAPPING_START_EVENT) {
                memset(&cur, 0, sizeof cur);
                state = 2;
            } else if (t == YAML_SEQUENCE_END_EVENT) {
                state = 0;
            }
        } else if (state == 2) {
            if (t == YAML_SCALAR_EVENT) {
                const char *val = (const char *)ev.data.scalar.value;
                if (!key)
                    key = conf_xstrdup(val);
                else {
                    char ferr[200];
                    if (set_field(&cur, key, val, ferr, sizeof ferr) != 0 && !err[0])
                        snprintf(err, errlen, "%s:%zu: %s", path, ev.start_mark.line + 1, ferr);
                    free(key);
                    key = NULL;
                }
            } else if (t == YAML_MAPPING_END_EVENT) {
                char verr[300];
                bool valid = validate(&cur, verr, sizeof verr) == 0;
                if (!valid && !err[0]) snprintf(err, errlen, "%s: %s", path, verr);
                for (size_t i = 0; i < corpus->n && valid; i++)
                    if (strcmp(corpus->v[i].id, cur.id) == 0) {
                        if (!err[0])
                            snprintf(err, errlen, "%s: duplicate vector id %s", path, cur.id);
                        valid = false;
                    }
                /* Only complete vectors are kept: later ones are compared
                 * with them by id. */
                if (!valid) {
                    free_vector(&cur);
                } else {
                    if (corpus->n == cap) {
                        cap = cap ? cap * 2 : 64;
                        struct trav_vector *nv = realloc(corpus->v, cap * sizeof *nv);
                        if (!nv) abort();
                        corpus->v = nv;
                    }
                    corpus->v[corpus->n++] = cur;
                    memset(&cur, 0, sizeof cur);
                }
                state = 1;
            } else if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
                if (!err[0])
                    snprintf(err, errlen, "%s:%zu: vector fields must be scalars", path,
                             ev.start_mark.line + 1);
                skip_depth = 1;
            }
        }
        yaml_event_delete(&ev);
    }
    free(key);
    free_vector(&cur); /* a vector the file broke off (a YAML error inside it) */
    yaml_parser_delete(&parser);
    fclose(f);
    if (rc == 0 && (!want_vectors_seq || corpus->n == 0)) {
        snprintf(err, errlen, "%s: no \"vectors\" list", path);
        rc = -1;
    }
    free(path);
    if (rc != 0) trav_free(corpus);
    return rc;
}

void trav_free(struct trav_corpus *corpus)
{
    for (size_t i = 0; i < corpus->n; i++)
        free_vector(&corpus->v[i]);
    free(corpus->v);
    memset(corpus, 0, sizeof *corpus);
}
