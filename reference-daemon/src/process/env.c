/* SPDX-License-Identifier: Apache-2.0 */
/* Environment merge. Keys are sorted once so the work is O((n + m) log n)
 * whatever the number of variables a request carries. */
#include "env.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct keyed {
    const struct env_var *var;
    size_t index;
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->var->key, y->var->key);
    if (c) return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Compares the name part of "NAME=value" with key. */
static int cmp_name(const char *key, const char *entry)
{
    size_t n = strcspn(entry, "=");
    int c = strncmp(key, entry, n);
    if (c) return c;
    return key[n] != '\0';
}

static const struct keyed *find_key(const struct keyed *sorted, size_t n, const char *entry)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_name(sorted[mid].var->key, entry);
        if (c == 0) return &sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

char **env_build(char *const *base, const struct env_var *vars, size_t nvars)
{
    size_t nbase = 0;
    while (base && base[nbase])
        nbase++;

    /* Sort, then keep only the last occurrence of each key. */
    struct keyed *sorted = calloc(nvars ? nvars : 1, sizeof(*sorted));
    if (!sorted) return NULL;
    for (size_t i = 0; i < nvars; i++)
        sorted[i] = (struct keyed){&vars[i], i};
    qsort(sorted, nvars, sizeof(*sorted), cmp_keyed);
    size_t nuniq = 0;
    for (size_t i = 0; i < nvars; i++) {
        if (i + 1 < nvars && strcmp(sorted[i].var->key, sorted[i + 1].var->key) == 0) continue;
        sorted[nuniq++] = sorted[i];
    }

    size_t bytes = 0;
    for (size_t i = 0; i < nuniq; i++)
        bytes += strlen(sorted[i].var->key) + strlen(sorted[i].var->value) + 2;
    size_t slots = nbase + nuniq + 1;
    if (slots > SIZE_MAX / sizeof(char *) - bytes) {
        free(sorted);
        return NULL;
    }
    char **env = malloc(slots * sizeof(char *) + bytes);
    if (!env) {
        free(sorted);
        return NULL;
    }
    char *store = (char *)(env + slots);
    size_t n = 0;
    for (size_t i = 0; i < nbase; i++) {
        if (!find_key(sorted, nuniq, base[i])) env[n++] = base[i];
    }
    for (size_t i = 0; i < nuniq; i++) {
        size_t kl = strlen(sorted[i].var->key), vl = strlen(sorted[i].var->value);
        env[n++] = store;
        memcpy(store, sorted[i].var->key, kl);
        store[kl] = '=';
        memcpy(store + kl + 1, sorted[i].var->value, vl + 1);
        store += kl + vl + 2;
    }
    env[n] = NULL;
    free(sorted);
    return env;
}
