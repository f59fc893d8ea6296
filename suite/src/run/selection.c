/* SPDX-License-Identifier: Apache-2.0 */
/* Selection: focus/skip patterns, tags, level, profile, rerun set, needs. */
#include "selection.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_util.h"

int selection_init(struct selection *s, const char *focus, const char *skip, char *err,
                   size_t err_len)
{
    memset(s, 0, sizeof *s);
    if (focus) {
        int rc = regcomp(&s->focus, focus, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char m[200];
            regerror(rc, &s->focus, m, sizeof m);
            snprintf(err, err_len, "--focus '%s': %s", focus, m);
            return -1;
        }
        s->has_focus = true;
    }
    if (skip) {
        int rc = regcomp(&s->skip, skip, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char m[200];
            regerror(rc, &s->skip, m, sizeof m);
            snprintf(err, err_len, "--skip '%s': %s", skip, m);
            selection_free(s);
            return -1;
        }
        s->has_skip = true;
    }
    return 0;
}

void selection_free(struct selection *s)
{
    if (s->has_focus) regfree(&s->focus);
    if (s->has_skip) regfree(&s->skip);
    s->has_focus = s->has_skip = false;
}

void selection_text(const struct case_def *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s %s %s", d->id, d->title, d->clauses, d->tags ? d->tags : "");
}

bool case_is_transport(const struct case_def *d)
{
    return (d->needs & NEEDS_TRANSPORT) || text_list_has(d->tags, "transport");
}

static bool any_tag(const char *wanted, const char *tags)
{
    const char *cur = wanted, *it;
    for (size_t n; (n = text_list_next(&cur, &it)) != 0;) {
        char item[64];
        size_t l = n < sizeof item - 1 ? n : sizeof item - 1;
        memcpy(item, it, l);
        item[l] = '\0';
        if (text_list_has(tags, item)) return true;
    }
    return false;
}

int selection_apply(const struct selection *s, const struct catalog *cat, struct run_results *res)
{
    res->cases = calloc(cat->count ? cat->count : 1, sizeof *res->cases);
    if (!res->cases) return -1;
    res->count = cat->count;
    for (size_t i = 0; i < cat->count; i++) {
        const struct case_def *d = cat->cases[i];
        struct case_result *r = &res->cases[i];
        r->def = d;
        bool transport = case_is_transport(d);
        r->in_level = (!s->core_only || d->level == LEVEL_MUST) && (!transport || s->transport);
        char text[1024];
        selection_text(d, text, sizeof text);
        bool sel = !(s->core_only && d->level != LEVEL_MUST);
        if (sel && s->has_focus && regexec(&s->focus, text, 0, NULL, 0) != 0) sel = false;
        if (sel && s->has_skip && regexec(&s->skip, text, 0, NULL, 0) == 0) sel = false;
        if (sel && s->tags && *s->tags && !any_tag(s->tags, d->tags)) sel = false;
        if (sel && s->only_ids) {
            bool found = false;
            for (char **id = s->only_ids; *id && !found; id++)
                found = strcmp(*id, d->id) == 0;
            sel = found;
        }
        r->selected = sel;
        if (sel && transport && !s->transport) {
            r->outcome = OUT_SKIP;
            r->reason = strdup("transport profile not selected (--profile transport)");
        }
    }
    return 0;
}

void selection_apply_needs(struct run_results *res, const struct capabilities *caps)
{
    for (size_t i = 0; i < res->count; i++) {
        struct case_result *r = &res->cases[i];
        if (!r->selected || r->outcome != OUT_NOT_RUN) continue;
        const char *why = NULL;
        unsigned needs = r->def->needs;
        if ((needs & NEEDS_LAUNCH) && !caps->launch_mode)
            why = "needs launch mode";
        else if ((needs & NEEDS_PROCFS) && !caps->procfs)
            why = "no /proc in the runtime";
        else if ((needs & NEEDS_PTY) && !caps->pty)
            why = "no pseudo-terminals in the runtime's host";
        if (why) {
            r->outcome = OUT_SKIP;
            r->reason = strdup(why);
        }
    }
}

char **selection_failed_ids(const char *path, char *err, size_t err_len)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) {
        snprintf(err, err_len, "--rerun-failed %s: %s (line %d)", path, je.text, je.line);
        return NULL;
    }
    json_t *cases = json_object_get(doc, "cases");
    if (!json_is_array(cases)) {
        snprintf(err, err_len, "--rerun-failed %s: not a results file (no \"cases\" array)", path);
        json_decref(doc);
        return NULL;
    }
    size_t n = json_array_size(cases), k = 0;
    char **ids = calloc(n + 1, sizeof *ids);
    if (!ids) {
        json_decref(doc);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(cases, i);
        const char *id = json_string_value(json_object_get(c, "id"));
        const char *o = json_string_value(json_object_get(c, "outcome"));
        if (id && o &&
            (strcmp(o, "fail") == 0 || strcmp(o, "timeout") == 0 || strcmp(o, "error") == 0))
            ids[k++] = strdup(id);
    }
    json_decref(doc);
    return ids;
}

void selection_free_ids(char **ids)
{
    for (char **p = ids; p && *p; p++)
        free(*p);
    free(ids);
}
