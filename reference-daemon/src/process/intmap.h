/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROCESS_INTMAP_H
#define SBX_PROCESS_INTMAP_H
/* A small open-addressing hash map from non-zero int32 keys to pointers:
 * the process registry (process_id -> process) and the PID index. */
#include <stddef.h>
#include <stdint.h>

struct intmap {
    int32_t *keys; /* 0 = empty, INT32_MIN = deleted */
    void **vals;
    size_t cap;  /* power of two, or 0 before the first insert */
    size_t used; /* live + deleted slots */
    size_t live;
};

void intmap_init(struct intmap *m);
void intmap_free(struct intmap *m);
/* Returns 0, or -1 when out of memory. Replaces an existing value. key must
 * not be 0 or INT32_MIN. */
int intmap_put(struct intmap *m, int32_t key, void *val);
void *intmap_get(const struct intmap *m, int32_t key);
/* Returns the removed value or NULL. */
void *intmap_del(struct intmap *m, int32_t key);

#endif
