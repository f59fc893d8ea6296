/* SPDX-License-Identifier: Apache-2.0 */
/* The worker-to-scheduler event lines (see worker_event.h). */
#include "worker_event.h"

#include <jansson.h>
#include <string.h>

static const struct {
    enum worker_event_kind kind;
    const char *name;
    const char *text_key; /* where .text travels, NULL: none */
} kinds[] = {
    {WEV_START, "start", NULL},
    {WEV_DONE, "done", NULL},
    {WEV_FAIL, "fail", "observed"},
    {WEV_NOTE, "note", "text"},
    {WEV_DOC_FINDING, "docfinding", "text"},
    {WEV_SKIP, "skip", "reason"},
    {WEV_ERROR, "error", "message"},
    {WEV_UNREACHABLE, "unreachable", "what"},
    {WEV_TRACK, "track", NULL},
    {WEV_UNTRACK, "untrack", NULL},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

static size_t kind_index(enum worker_event_kind k)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (kinds[i].kind == k) return i;
    return 0;
}

char *worker_event_encode(const struct worker_event *ev, size_t *len)
{
    size_t k = kind_index(ev->kind);
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "ev", json_string(kinds[k].name));
    if (kinds[k].text_key)
        json_object_set_new(o, kinds[k].text_key, json_string(ev->text ? ev->text : ""));
    if (ev->kind == WEV_FAIL) {
        json_object_set_new(o, "expected", json_string(ev->expected ? ev->expected : ""));
        if (ev->request) json_object_set_new(o, "request", json_string(ev->request));
    }
    if (ev->kind == WEV_TRACK || ev->kind == WEV_UNTRACK)
        json_object_set_new(o, "pid", json_integer(ev->pid));
    char *line = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!line) return NULL;
    size_t n = strlen(line);
    line[n] = '\n'; /* replaces the NUL: the length says where it ends */
    *len = n + 1;
    return line;
}

static const char *text_of(json_t *o, const char *key)
{
    const char *s = key ? json_string_value(json_object_get(o, key)) : NULL;
    return s ? s : "";
}

int worker_event_decode(const char *line, struct worker_event *ev, void **holder)
{
    *holder = NULL;
    json_t *o = json_loads(line, 0, NULL);
    const char *name = json_string_value(json_object_get(o, "ev"));
    size_t k = N_KINDS;
    for (size_t i = 0; name && i < N_KINDS; i++)
        if (strcmp(kinds[i].name, name) == 0) k = i;
    if (!json_is_object(o) || k == N_KINDS) {
        json_decref(o);
        return -1;
    }
    memset(ev, 0, sizeof *ev);
    ev->kind = kinds[k].kind;
    ev->text = text_of(o, kinds[k].text_key);
    ev->expected = text_of(o, "expected");
    ev->request = json_string_value(json_object_get(o, "request"));
    json_t *pid = json_object_get(o, "pid");
    ev->pid = json_is_integer(pid) ? (int32_t)json_integer_value(pid) : 0;
    *holder = o;
    return 0;
}

void worker_event_release(void *holder)
{
    json_decref(holder);
}
