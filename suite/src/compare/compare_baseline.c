/* SPDX-License-Identifier: Apache-2.0 */
/* Writing and pruning baseline files (libyaml's emitter). */
#include "compare_baseline.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "baseline.h"

static int emit_scalar(yaml_emitter_t *em, const char *s, bool quoted)
{
    yaml_event_t ev;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                                 quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
    return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int emit_simple(yaml_emitter_t *em, int kind)
{
    yaml_event_t ev;
    switch (kind) {
    case 0:
        yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
        break;
    case 1:
        yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
        break;
    case 2:
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
        break;
    case 3:
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
        break;
    case 4:
        yaml_sequence_end_event_initialize(&ev);
        break;
    case 5:
        yaml_mapping_end_event_initialize(&ev);
        break;
    case 6:
        yaml_document_end_event_initialize(&ev, 1);
        break;
    default:
        yaml_stream_end_event_initialize(&ev);
    }
    return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

enum { EV_STREAM, EV_DOC, EV_MAP, EV_SEQ, EV_SEQ_END, EV_MAP_END, EV_DOC_END, EV_STREAM_END };

/* Writes the entries to path through a temporary file and rename. */
static int save(const char *path, const struct baseline *b, const char *header, char *err,
                size_t err_len)
{
    size_t l = strlen(path) + 24;
    char *tmp = malloc(l);
    if (!tmp) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    snprintf(tmp, l, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    fputs(header, f);
    yaml_emitter_t em;
    yaml_emitter_initialize(&em);
    yaml_emitter_set_output_file(&em, f);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, 100);
    /* Events must go out in order: one statement each. */
    int rc = 0;
#define EMIT(call)                                                                                 \
    do {                                                                                           \
        if (rc == 0) rc = (call);                                                                  \
    } while (0)
    EMIT(emit_simple(&em, EV_STREAM));
    EMIT(emit_simple(&em, EV_DOC));
    EMIT(emit_simple(&em, EV_MAP));
    EMIT(emit_scalar(&em, "expected_failures", false));
    EMIT(emit_simple(&em, EV_SEQ));
    for (size_t i = 0; rc == 0 && i < b->count; i++) {
        const struct baseline_entry *e = &b->entries[i];
        EMIT(emit_simple(&em, EV_MAP));
        EMIT(emit_scalar(&em, "id", false));
        EMIT(emit_scalar(&em, e->id, false));
        EMIT(emit_scalar(&em, "reason", false));
        EMIT(emit_scalar(&em, e->reason ? e->reason : "", true));
        EMIT(emit_scalar(&em, "link", false));
        EMIT(emit_scalar(&em, e->link ? e->link : "", true));
        EMIT(emit_simple(&em, EV_MAP_END));
    }
    EMIT(emit_simple(&em, EV_SEQ_END));
    EMIT(emit_simple(&em, EV_MAP_END));
    EMIT(emit_simple(&em, EV_DOC_END));
    EMIT(emit_simple(&em, EV_STREAM_END));
#undef EMIT
    if (rc == 0 && !yaml_emitter_flush(&em)) rc = -1;
    if (rc != 0)
        snprintf(err, err_len, "cannot write %s: %s", path,
                 em.problem ? em.problem : "YAML emitter error");
    yaml_emitter_delete(&em);
    if (fclose(f) != 0 && rc == 0) {
        snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(err, err_len, "cannot replace %s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc != 0) unlink(tmp);
    free(tmp);
    return rc == 0 ? 0 : -1;
}

/* An existing baseline, or an empty one when path does not exist yet. */
static int load_existing(const char *path, struct baseline *b, char *err, size_t err_len)
{
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        *b = (struct baseline){0};
        return 0;
    }
    return baseline_load(path, b, err, err_len);
}

static int unknown_ids(const char *path, const struct baseline *b, const struct cmp_run *run,
                       char *err, size_t err_len)
{
    for (size_t i = 0; i < b->count; i++)
        if (!cmp_run_case(run, b->entries[i].id)) {
            snprintf(err, err_len,
                     "%s names case %s, which %s does not have (a results file of another "
                     "catalog?)",
                     path, b->entries[i].id, run->path);
            return -1;
        }
    return 0;
}

static int append(struct baseline *b, const char *id, const char *reason, const char *link)
{
    struct baseline_entry *e = realloc(b->entries, (b->count + 1) * sizeof *e);
    if (!e) return -1;
    b->entries = e;
    e = &b->entries[b->count];
    e->id = strdup(id);
    e->reason = strdup(reason ? reason : "");
    e->link = strdup(link ? link : "");
    if (!e->id || !e->reason || !e->link) {
        free(e->id);
        free(e->reason);
        free(e->link);
        return -1;
    }
    b->count++;
    return 0;
}

/* The reason a new entry gets: the first failure, else the run's reason. */
static char *reason_of(const struct cmp_case *c)
{
    char *s = NULL;
    int n;
    if (c->expected && c->detail)
        n = asprintf(&s, "%s: expected %s, observed %s", c->outcome, c->expected, c->detail);
    else
        n = asprintf(&s, "%s%s%s", c->outcome, c->detail ? ": " : "", c->detail ? c->detail : "");
    if (n < 0) return NULL;
    if (strlen(s) > 300) strcpy(s + 296, "...");
    return s;
}

static char *header_for(const struct cmp_run *run, const char *what)
{
    char *h = NULL;
    if (asprintf(&h,
                 "# Known deviations (sandboxd-conformance --baseline FILE).\n"
                 "# %s from %s (%s, %s).\n"
                 "# Fill in each link with the issue that tracks the deviation.\n",
                 what, run->path, run->runtime, run->started_at ? run->started_at : "?") < 0)
        return NULL;
    return h;
}

int cmp_baseline_write(const char *path, const struct cmp_run *run, FILE *out, char *err,
                       size_t err_len)
{
    struct baseline b;
    if (load_existing(path, &b, err, err_len) != 0) return -1;
    if (unknown_ids(path, &b, run, err, err_len) != 0) {
        baseline_free(&b);
        return -1;
    }
    size_t kept = b.count, added = 0;
    int rc = 0;
    for (size_t i = 0; i < run->n_cases && rc == 0; i++) {
        const struct cmp_case *c = &run->cases[i];
        if (!cmp_outcome_bad(c->outcome) || baseline_find(&b, c->id)) continue;
        if (strcmp(c->outcome, "error") == 0) {
            /* A baseline covers failures and timeouts; an error is the suite's. */
            fprintf(out, "  not added %s (error: the suite could not run it)\n", c->id);
            continue;
        }
        char *reason = reason_of(c);
        rc = reason ? append(&b, c->id, reason, c->baseline_link) : -1;
        free(reason);
        if (rc == 0) {
            fprintf(out, "  added  %s\n", c->id);
            added++;
        }
    }
    char *header = header_for(run, "Failures written");
    if (rc != 0 || !header)
        snprintf(err, err_len, "out of memory");
    else
        rc = save(path, &b, header, err, err_len);
    if (rc == 0)
        fprintf(out, "%s: %zu entr%s added, %zu kept\n", path, added, added == 1 ? "y" : "ies",
                kept);
    free(header);
    baseline_free(&b);
    return rc;
}

int cmp_baseline_prune(const char *path, const struct cmp_run *run, FILE *out, char *err,
                       size_t err_len)
{
    struct baseline b;
    if (baseline_load(path, &b, err, err_len) != 0) return -1;
    if (unknown_ids(path, &b, run, err, err_len) != 0) {
        baseline_free(&b);
        return -1;
    }
    size_t kept = 0, pruned = 0;
    for (size_t i = 0; i < b.count; i++) {
        const struct cmp_case *c = cmp_run_case(run, b.entries[i].id);
        if (strcmp(c->outcome, "pass") == 0) {
            fprintf(out, "  pruned %s (passes now)%s%s\n", b.entries[i].id,
                    b.entries[i].reason ? ": " : "",
                    b.entries[i].reason ? b.entries[i].reason : "");
            free(b.entries[i].id);
            free(b.entries[i].reason);
            free(b.entries[i].link);
            pruned++;
        } else {
            b.entries[kept++] = b.entries[i];
        }
    }
    b.count = kept;
    int rc = 0;
    if (pruned) {
        char *header = header_for(run, "Pruned of the cases that pass");
        rc = header ? save(path, &b, header, err, err_len) : -1;
        if (!header) snprintf(err, err_len, "out of memory");
        free(header);
    }
    if (rc == 0)
        fprintf(out, "%s: %zu entr%s pruned, %zu kept%s\n", path, pruned, pruned == 1 ? "y" : "ies",
                kept, pruned ? "" : " (file unchanged)");
    baseline_free(&b);
    return rc;
}
