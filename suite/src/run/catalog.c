/* SPDX-License-Identifier: Apache-2.0 */
/* Catalog: walks the linker section that SBX_CASE fills. The section bounds
 * are weak so that a binary without any case still links. */
#include "catalog.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clauses.h"
#include "text_util.h"

extern const struct case_def __start_sbx_cases[] __attribute__((weak));
extern const struct case_def __stop_sbx_cases[] __attribute__((weak));

const char *const catalog_known_tags[] = {
    "process",  "pty",    "grpc",   "files",     "traversal", "concurrency",
    "metadata", "health", "errors", "lifecycle", "transport", NULL,
};

static int by_id(const void *a, const void *b)
{
    const struct case_def *const *x = a, *const *y = b;
    return strcmp((*x)->id, (*y)->id);
}

/* Appends one problem line to err (bounded). */
__attribute__((format(printf, 4, 5))) static void problem(char *err, size_t err_len, int *n,
                                                          const char *fmt, ...)
{
    size_t used = strlen(err);
    if (used + 2 < err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + used, err_len - used, fmt, ap);
        va_end(ap);
    }
    (*n)++;
}

static void check_clauses(const char *list, const char *id, char *err, size_t err_len, int *n)
{
    const char *cur = list, *it;
    for (size_t l; (l = text_list_next(&cur, &it)) != 0;) {
        char item[64];
        if (l > sizeof item - 1) l = sizeof item - 1;
        memcpy(item, it, l);
        item[l] = '\0';
        if (!clause_find(item))
            problem(err, err_len, n, "case %s: unknown clause '%s'\n", id, item);
    }
}

int catalog_load(struct catalog *cat, char *err, size_t err_len)
{
    memset(cat, 0, sizeof *cat);
    err[0] = '\0';
    /* The section bounds are two linker symbols, compared as addresses. */
    const struct case_def *start = __start_sbx_cases;
    uintptr_t lo = (uintptr_t)__start_sbx_cases, hi = (uintptr_t)__stop_sbx_cases;
    size_t slots = (lo && hi > lo) ? (size_t)(hi - lo) / sizeof(struct case_def) : 0;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, not of structs
    cat->cases = calloc(slots ? slots : 1, sizeof *cat->cases);
    if (!cat->cases) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int problems = 0;
    for (size_t i = 0; i < slots; i++) {
        const struct case_def *d = &start[i];
        if (!d->fn) /* alignment padding between entries */
            continue;
        if (!d->id || !*d->id || !d->title || !*d->title || !d->clauses || !*d->clauses) {
            problem(err, err_len, &problems, "case %s: id, title and clauses are required\n",
                    d->id ? d->id : "(no id)");
            continue;
        }
        if (d->level != LEVEL_MUST && d->level != LEVEL_SHOULD)
            problem(err, err_len, &problems, "case %s: bad level\n", d->id);
        check_clauses(d->clauses, d->id, err, err_len, &problems);
        /* Tags are free-form beyond the documented set (catalog_known_tags). */
        cat->cases[cat->count++] = d;
    }
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, not of structs
    qsort(cat->cases, cat->count, sizeof *cat->cases, by_id);
    for (size_t i = 1; i < cat->count; i++)
        if (strcmp(cat->cases[i - 1]->id, cat->cases[i]->id) == 0)
            problem(err, err_len, &problems, "duplicate case ID %s\n", cat->cases[i]->id);
    if (problems) {
        catalog_free(cat);
        return -1;
    }
    return 0;
}

void catalog_free(struct catalog *cat)
{
    free(cat->cases);
    cat->cases = NULL;
    cat->count = 0;
}

const struct case_def *catalog_find(const struct catalog *cat, const char *id)
{
    for (size_t i = 0; i < cat->count; i++)
        if (strcmp(cat->cases[i]->id, id) == 0) return cat->cases[i];
    return NULL;
}

unsigned case_timeout_s(const struct case_def *def)
{
    return def->timeout_s ? def->timeout_s : 30;
}

const char *case_level_name(enum case_level level)
{
    return level == LEVEL_MUST ? "MUST" : "SHOULD";
}

const char *case_needs_text(unsigned needs, char *buf, size_t len)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{NEEDS_LAUNCH, "launch"},
                 {NEEDS_PROCFS, "procfs"},
                 {NEEDS_PTY, "pty"},
                 {NEEDS_ALONE, "alone"},
                 {NEEDS_TRANSPORT, "transport"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (needs & names[i].bit) {
            size_t u = strlen(buf);
            snprintf(buf + u, len - u, "%s%s", u ? "," : "", names[i].name);
        }
    if (!buf[0]) snprintf(buf, len, "-");
    return buf;
}

/* The file relative to the source tree. The build maps the tree's absolute
 * path away; a compiler cache that rewrites paths relative to the build
 * directory leaves "../../cases/x.c", whose leading "../" go here. */
static const char *tree_relative(const char *file)
{
    while (strncmp(file, "../", 3) == 0 || strncmp(file, "./", 2) == 0)
        file += file[1] == '/' ? 2 : 3;
    return file;
}

const char *case_source_text(const struct case_def *def, char *buf, size_t len)
{
    if (def->file)
        snprintf(buf, len, "%s:%u", tree_relative(def->file), def->line);
    else
        snprintf(buf, len, "-");
    return buf;
}
