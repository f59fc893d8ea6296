/* SPDX-License-Identifier: Apache-2.0 */
/* Per-address connection counts (see peer_cap.h). */
#include "peer_cap.h"

#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 256

/* One address holding connections; freed when its last one closes. */
struct peer {
    struct peer *next;
    uint8_t addr[16]; /* IPv4 as IPv4-mapped IPv6 */
    unsigned count;
};

struct peer_cap {
    unsigned limit;
    struct peer *bucket[BUCKETS];
};

struct peer_cap *peer_cap_new(unsigned limit)
{
    struct peer_cap *pc = calloc(1, sizeof(*pc));
    if (pc) pc->limit = limit ? limit : 1;
    return pc;
}

void peer_cap_free(struct peer_cap *pc)
{
    if (!pc) return;
    for (unsigned i = 0; i < BUCKETS; i++)
        for (struct peer *p = pc->bucket[i], *n; p; p = n) {
            n = p->next;
            free(p);
        }
    free(pc);
}

static bool key_of(const struct sockaddr *sa, uint8_t key[16])
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        memset(key, 0, 10);
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &in->sin_addr, 4);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        return true;
    }
    return false;
}

static unsigned hash(const uint8_t key[16])
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < 16; i++)
        h = (h ^ key[i]) * 16777619u;
    return h % BUCKETS;
}

bool peer_cap_admit(const struct sockaddr *peer, void **tag, void *user)
{
    struct peer_cap *pc = user;
    uint8_t key[16];
    if (!key_of(peer, key)) return false;
    struct peer **slot = &pc->bucket[hash(key)], *p = *slot;
    while (p && memcmp(p->addr, key, 16) != 0)
        p = p->next;
    if (!p) {
        p = calloc(1, sizeof(*p));
        if (!p) return false;
        memcpy(p->addr, key, 16);
        p->next = *slot;
        *slot = p;
    }
    if (p->count >= pc->limit) return false;
    p->count++;
    *tag = p;
    return true;
}

void peer_cap_release(void *tag, void *user)
{
    struct peer_cap *pc = user;
    struct peer *p = tag;
    if (--p->count > 0) return;
    struct peer **slot = &pc->bucket[hash(p->addr)];
    while (*slot != p)
        slot = &(*slot)->next;
    *slot = p->next;
    free(p);
}
