/* SPDX-License-Identifier: Apache-2.0 */
/* ddmin over operations, then simplification of each remaining one. */
#include "explore_shrink.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct budget {
    xshrink_pred pred;
    void *ud;
    unsigned max_runs;
    double deadline;
    struct xshrink_stats *st;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool spent(struct budget *b)
{
    if (b->st->runs >= b->max_runs || now_s() >= b->deadline) {
        b->st->out_of_time = true;
        return true;
    }
    return false;
}

static int test(struct budget *b, const struct xop *ops, size_t n)
{
    b->st->runs++;
    return b->pred(ops, n, b->ud);
}

/* ddmin: try each of `parts` chunks alone, then each complement; on success
 * restart with the smaller sequence, else refine the granularity. */
static void ddmin(struct budget *b, struct xop *ops, size_t *n)
{
    struct xop *cand = malloc((*n ? *n : 1) * sizeof *cand);
    if (!cand) return;
    size_t parts = 2;
    while (*n >= 2 && !spent(b)) {
        if (parts > *n) parts = *n;
        bool reduced = false;
        /* complements first: they remove one chunk at a time */
        for (size_t k = 0; k < parts && !reduced && !spent(b); k++) {
            size_t lo = k * *n / parts, hi = (k + 1) * *n / parts, m = 0;
            for (size_t i = 0; i < *n; i++)
                if (i < lo || i >= hi) cand[m++] = ops[i];
            if (m < *n && m > 0 && test(b, cand, m)) {
                memcpy(ops, cand, m * sizeof *cand);
                *n = m;
                parts = parts > 2 ? parts - 1 : 2;
                reduced = true;
            }
        }
        for (size_t k = 0; k < parts && !reduced && parts > 2 && !spent(b); k++) {
            size_t lo = k * *n / parts, hi = (k + 1) * *n / parts;
            if (hi - lo >= *n) continue;
            if (test(b, ops + lo, hi - lo)) {
                memmove(ops, ops + lo, (hi - lo) * sizeof *ops);
                *n = hi - lo;
                parts = 2;
                reduced = true;
            }
        }
        if (!reduced) {
            if (parts >= *n) break;
            parts = parts * 2 < *n ? parts * 2 : *n;
        }
    }
    free(cand);
}

/* Candidate simplifications of one operation, simplest first; false when
 * there is no k-th one. */
static bool simplify(const struct xop *in, unsigned k, struct xop *out)
{
    *out = *in;
    switch (k) {
    case 0: /* a plain name: keep the depth, drop the odd characters */
        if (!in->path[0] || strchr(in->path, '/')) return false;
        snprintf(out->path, sizeof out->path, "a");
        break;
    case 1:
        if (in->size <= 1) return false;
        out->size = 1;
        break;
    case 2:
        if (in->size <= 16) return false;
        out->size = in->size / 2;
        break;
    case 3:
        if (!in->multipart || in->mp_nofile) return false;
        out->multipart = false;
        break;
    case 4:
        if (in->enc == XENC_ALL) return false;
        out->enc = XENC_ALL;
        break;
    case 5:
        if (!in->pty) return false;
        out->pty = false;
        break;
    case 6:
        if (!in->has_mode || !strcmp(in->mode, "0644")) return false;
        out->has_mode = false;
        out->mode[0] = '\0';
        break;
    case 7:
        if (!in->ranged) return false;
        out->ranged = false;
        break;
    default:
        return false;
    }
    return true;
}

void xshrink(struct xop *ops, size_t *n, xshrink_pred pred, void *ud, unsigned max_runs,
             double max_seconds, struct xshrink_stats *st)
{
    memset(st, 0, sizeof *st);
    double t0 = now_s();
    struct budget b = {pred, ud, max_runs, t0 + max_seconds, st};
    ddmin(&b, ops, n);
    /* Renaming one operation's path alone would change which name later ones
     * touch, so a rename is tried on every operation with that path at once. */
    for (size_t i = 0; i < *n && !spent(&b); i++) {
        for (unsigned k = 0; k < 8 && !spent(&b); k++) {
            struct xop simple;
            if (!simplify(&ops[i], k, &simple)) continue;
            struct xop *cand = malloc(*n * sizeof *cand);
            if (!cand) break;
            memcpy(cand, ops, *n * sizeof *cand);
            if (k == 0) {
                for (size_t j = 0; j < *n; j++) {
                    if (strcmp(cand[j].path, ops[i].path) == 0)
                        snprintf(cand[j].path, sizeof cand[j].path, "%s", simple.path);
                    if (strcmp(cand[j].target, ops[i].path) == 0)
                        snprintf(cand[j].target, sizeof cand[j].target, "%s", simple.path);
                }
            } else {
                cand[i] = simple;
            }
            if (test(&b, cand, *n)) memcpy(ops, cand, *n * sizeof *cand);
            free(cand);
        }
    }
    st->seconds = now_s() - t0;
}
