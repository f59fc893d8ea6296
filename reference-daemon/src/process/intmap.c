/* SPDX-License-Identifier: Apache-2.0 */
/* Linear probing with tombstones; the table doubles at 50 % load and is
 * rebuilt in place of its tombstones when they pile up. */
#include "intmap.h"

#include <stdlib.h>

#define EMPTY 0
#define DELETED INT32_MIN

void intmap_init(struct intmap *m)
{
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->used = m->live = 0;
}

void intmap_free(struct intmap *m)
{
    free(m->keys);
    free(m->vals);
    intmap_init(m);
}

static size_t slot_of(int32_t key, size_t cap)
{
    uint32_t h = (uint32_t)key * 2654435761u;
    return (size_t)(h ^ (h >> 16)) & (cap - 1);
}

static int rehash(struct intmap *m, size_t cap)
{
    int32_t *keys = calloc(cap, sizeof(*keys));
    void **vals = calloc(cap, sizeof(*vals));
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        int32_t k = m->keys[i];
        if (k == EMPTY || k == DELETED) continue;
        size_t s = slot_of(k, cap);
        while (keys[s] != EMPTY)
            s = (s + 1) & (cap - 1);
        keys[s] = k;
        vals[s] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    m->used = m->live;
    return 0;
}

static long find_slot(const struct intmap *m, int32_t key)
{
    if (!m->cap) return -1;
    size_t s = slot_of(key, m->cap);
    for (size_t n = 0; n < m->cap; n++) {
        if (m->keys[s] == EMPTY) return -1;
        if (m->keys[s] == key) return (long)s;
        s = (s + 1) & (m->cap - 1);
    }
    return -1;
}

int intmap_put(struct intmap *m, int32_t key, void *val)
{
    long found = find_slot(m, key);
    if (found >= 0) {
        m->vals[found] = val;
        return 0;
    }
    if ((m->used + 1) * 2 > m->cap) {
        /* Rebuilt at most 25 % full, so tombstones alone never double it. */
        size_t cap = 16;
        while ((m->live + 1) * 4 > cap)
            cap *= 2;
        if (rehash(m, cap) < 0) return -1;
    }
    size_t s = slot_of(key, m->cap);
    while (m->keys[s] != EMPTY && m->keys[s] != DELETED)
        s = (s + 1) & (m->cap - 1);
    if (m->keys[s] == EMPTY) m->used++;
    m->keys[s] = key;
    m->vals[s] = val;
    m->live++;
    return 0;
}

void *intmap_get(const struct intmap *m, int32_t key)
{
    long s = find_slot(m, key);
    return s < 0 ? NULL : m->vals[s];
}

void *intmap_del(struct intmap *m, int32_t key)
{
    long s = find_slot(m, key);
    if (s < 0) return NULL;
    void *v = m->vals[s];
    m->keys[s] = DELETED;
    m->vals[s] = NULL;
    m->live--;
    return v;
}
