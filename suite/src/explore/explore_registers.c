/* SPDX-License-Identifier: Apache-2.0 */
/* Recording and checking the register history of concurrent jobs. */
#include "explore_registers.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_rng.h"
#include "text_util.h"

#define ID_LEN 24

void xreg_init(struct xreg_history *h)
{
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->lock, NULL);
}

void xreg_free(struct xreg_history *h)
{
    free(h->ev);
    pthread_mutex_destroy(&h->lock);
    memset(h, 0, sizeof *h);
}

void xreg_record(struct xreg_history *h, const struct xreg_event *e)
{
    pthread_mutex_lock(&h->lock);
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        struct xreg_event *grown = realloc(h->ev, cap * sizeof *grown);
        if (!grown) abort();
        h->ev = grown;
        h->cap = cap;
    }
    h->ev[h->n++] = *e;
    pthread_mutex_unlock(&h->lock);
}

uint8_t *xreg_body(uint64_t version, size_t *len)
{
    uint8_t *b = calloc(1, XREG_SIZE);
    if (!b) abort();
    /* "v" + 20 digits + "\n", then the derived bytes */
    char head[ID_LEN];
    snprintf(head, sizeof head, "v%020" PRIu64 "\n", version);
    memcpy(b, head, ID_LEN - 2);
    struct xrng r;
    xrng_seed(&r, version);
    for (size_t i = ID_LEN - 2; i < XREG_SIZE; i++)
        b[i] = (uint8_t)('a' + xrng_below(&r, 26));
    *len = XREG_SIZE;
    return b;
}

uint64_t xreg_identify(const uint8_t *body, size_t len)
{
    if (len != XREG_SIZE || body[0] != 'v') return XREG_TORN;
    char id[ID_LEN];
    memcpy(id, body + 1, 20);
    id[20] = '\0';
    char *end = NULL;
    uint64_t v = strtoull(id, &end, 10);
    if (v == 0 || v == XREG_TORN) return XREG_TORN;
    size_t n = 0;
    uint8_t *want = xreg_body(v, &n);
    bool same = memcmp(want, body, n) == 0;
    free(want);
    return same ? v : XREG_TORN;
}

static const struct xreg_event *writer(const struct xreg_history *h, int reg, uint64_t v)
{
    for (size_t i = 0; i < h->n; i++)
        if (h->ev[i].write && h->ev[i].reg == reg && h->ev[i].version == v) return &h->ev[i];
    return NULL;
}

static bool ok_write(const struct xreg_event *e)
{
    return e->status >= 200 && e->status < 300;
}

/* A successful write of reg entirely inside (after, before). */
static const struct xreg_event *write_between(const struct xreg_history *h, int reg, double after,
                                              double before)
{
    for (size_t i = 0; i < h->n; i++) {
        const struct xreg_event *w = &h->ev[i];
        if (w->write && w->reg == reg && ok_write(w) && w->t0 > after && w->t1 < before) return w;
    }
    return NULL;
}

int xreg_check(const struct xreg_history *h, const uint64_t *final, const bool *final_known,
               char clause[24], char **expected, char **observed)
{
    for (size_t i = 0; i < h->n; i++) {
        const struct xreg_event *r = &h->ev[i];
        if (r->write || r->status != 200) continue;
        if (r->version == XREG_TORN) {
            snprintf(clause, 24, "C1");
            *expected = text_fmt("a GET of shared file c%d while jobs overwrite it returns one "
                                 "complete version",
                                 r->reg);
            *observed = text_fmt("job %d read bytes that are no complete version (%.3f-%.3f s)",
                                 r->job, r->t0, r->t1);
            return 1;
        }
        const struct xreg_event *w = writer(h, r->reg, r->version);
        const struct xreg_event *later = w ? write_between(h, r->reg, w->t1, r->t0) : NULL;
        if (!w || w->t0 > r->t1 || later) {
            snprintf(clause, 24, "C1");
            *expected =
                text_fmt("a version of c%d that was current at some instant of the read", r->reg);
            *observed = text_fmt("job %d read version %" PRIu64 " at %.3f-%.3f s%s", r->job,
                                 r->version, r->t0, r->t1,
                                 !w      ? ", which no job wrote"
                                 : later ? ", overwritten before the read began"
                                         : ", written only after the read ended");
            return 1;
        }
    }
    for (int reg = 0; reg < XREG_COUNT; reg++) {
        if (!final_known[reg]) continue;
        if (final[reg] == 0) {
            for (size_t i = 0; i < h->n; i++)
                if (h->ev[i].write && h->ev[i].reg == reg && ok_write(&h->ev[i])) {
                    snprintf(clause, 24, "C2");
                    *expected = text_fmt("c%d ends holding one of its written versions", reg);
                    *observed = text_fmt("it is absent (GET answered 404)");
                    return 1;
                }
            continue;
        }
        if (final[reg] == XREG_TORN) {
            snprintf(clause, 24, "C2");
            *expected = text_fmt("c%d ends holding one complete version", reg);
            *observed = text_fmt("its final content is no complete version");
            return 1;
        }
        const struct xreg_event *w = writer(h, reg, final[reg]);
        /* The final version must not have been overwritten by a successful
         * write that began after it ended. */
        const struct xreg_event *later = w ? write_between(h, reg, w->t1, 1e300) : NULL;
        if (!w || later) {
            snprintf(clause, 24, "C2");
            *expected = text_fmt("c%d ends holding one of its last written versions", reg);
            *observed = text_fmt("it holds version %" PRIu64 "%s", final[reg],
                                 !w ? ", which no job wrote" : ", overwritten later");
            return 1;
        }
    }
    return 0;
}
