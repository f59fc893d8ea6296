/* SPDX-License-Identifier: Apache-2.0 */
/* Operation sequences: weighted kinds, names from a grammar of hard cases,
 * most operations on names that earlier ones made. */
#include "explore_gen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_rng.h"

#define POOL_MAX 64
#define LIVE_MAX 4
#define LONG_NAME_LEN 200

/* Components of names: percent escapes, '+', spaces, UTF-8, dots, '?', '#',
 * sub-delimiters, letter case (sorting), a long name. Never "." or "..":
 * traversal is the cases' job, explore stays in its workspace. */
static const char *const components[] = {
    "a",           "b.txt",  "Zeta",   "alpha",       "with space",
    "p+q",         "50%off", "%41",    "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
    ".hidden",     "x.",     "..dots", "a=b;c",       "q?x",
    "h#1",         "t~_-",   "sub",    "d1",          "d2",
    "back\\slash",
};
#define N_COMPONENTS (sizeof components / sizeof components[0])

struct pool_entry {
    char path[XOP_PATH_MAX];
    bool dir;
};

struct gen {
    struct xrng r;
    struct pool_entry pool[POOL_MAX];
    size_t n_pool;
    int live[LIVE_MAX]; /* slots the generator believes running */
    bool live_pty[LIVE_MAX];
    size_t n_live;
    int started;
};

static void pool_add(struct gen *g, const char *path, bool dir)
{
    for (size_t i = 0; i < g->n_pool; i++)
        if (strcmp(g->pool[i].path, path) == 0) {
            g->pool[i].dir = dir;
            return;
        }
    size_t at = g->n_pool < POOL_MAX ? g->n_pool++ : 1 + xrng_below(&g->r, POOL_MAX - 1);
    snprintf(g->pool[at].path, sizeof g->pool[at].path, "%s", path);
    g->pool[at].dir = dir;
}

/* A pool entry of the wanted kind (dir true/false), or any when none. */
static const char *pool_pick(struct gen *g, int want_dir)
{
    size_t idx[POOL_MAX], n = 0;
    for (size_t i = 0; i < g->n_pool; i++)
        if (want_dir < 0 || g->pool[i].dir == (want_dir == 1)) idx[n++] = i;
    if (n == 0) return g->pool[xrng_below(&g->r, (uint32_t)g->n_pool)].path;
    return g->pool[idx[xrng_below(&g->r, (uint32_t)n)]].path;
}

static void component(struct gen *g, char *out, size_t len, bool allow_long)
{
    if (allow_long && xrng_chance(&g->r, 3)) {
        size_t n = LONG_NAME_LEN < len - 1 ? LONG_NAME_LEN : len - 1;
        memset(out, 'L', n);
        out[n] = '\0';
        return;
    }
    snprintf(out, len, "%s", components[xrng_below(&g->r, N_COMPONENTS)]);
}

/* A name not (necessarily) made yet: under a pool directory or new ones. */
static void fresh_path(struct gen *g, char *out, size_t len)
{
    char c[LONG_NAME_LEN + 1];
    const char *base = xrng_chance(&g->r, 50) ? pool_pick(g, 1) : "";
    int depth = 1 + (int)xrng_below(&g->r, 2);
    snprintf(out, len, "%s", base);
    for (int i = 0; i < depth; i++) {
        component(g, c, sizeof c, depth == 1 && !*base);
        if (strlen(out) + strlen(c) + 2 >= len) break;
        if (*out) strcat(out, "/");
        strcat(out, c);
    }
    if (!*out) snprintf(out, len, "a");
}

static void add_parents(struct gen *g, const char *path)
{
    char p[XOP_PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        pool_add(g, p, true);
        *s = '/';
    }
}

static void path_style(struct gen *g, struct xop *op)
{
    uint32_t e = xrng_below(&g->r, 100);
    op->enc = e < 60 ? XENC_ALL : e < 85 ? XENC_RAW_SUB : XENC_SLASH;
    op->trailing_slash = xrng_chance(&g->r, 3);
    op->nul = xrng_chance(&g->r, 3);
}

static void text_input(struct gen *g, char *out, size_t max, size_t n, bool newline)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 .,";
    if (n + 2 > max) n = max - 2;
    for (size_t i = 0; i < n; i++)
        out[i] = alphabet[xrng_below(&g->r, sizeof alphabet - 1)];
    if (newline) out[n++] = '\n';
    out[n] = '\0';
}

static void live_remove(struct gen *g, int slot)
{
    for (size_t i = 0; i < g->n_live; i++)
        if (g->live[i] == slot) {
            g->live[i] = g->live[g->n_live - 1];
            g->live_pty[i] = g->live_pty[g->n_live - 1];
            g->n_live--;
            return;
        }
}

/* A slot for a process operation: mostly a live one; sometimes one that
 * ended (or never started), sometimes an id no Start handed out. */
static int pick_slot(struct gen *g, bool *pty)
{
    *pty = false;
    uint32_t c = xrng_below(&g->r, 100);
    if (c < 85 && g->n_live > 0) {
        size_t i = xrng_below(&g->r, (uint32_t)g->n_live);
        *pty = g->live_pty[i];
        return g->live[i];
    }
    if (c < 95 && g->started > 0) return (int)xrng_below(&g->r, (uint32_t)g->started);
    return -1;
}

static uint32_t pick_size(struct gen *g)
{
    uint32_t c = xrng_below(&g->r, 100);
    if (c < 10) return 0;
    if (c < 60) return 1 + xrng_below(&g->r, 40);
    if (c < 90) return 100 + xrng_below(&g->r, 500);
    if (c < 98) return 4096;
    return 70000; /* past 64 KiB */
}

static const char *const modes[] = {"0644", "0600", "0755", "0777",  "0640", "0400",
                                    "",     "0999", "644",  "0o644", "07777"};

enum { W_TOTAL = 100 };
static const struct {
    enum xop_kind kind;
    unsigned weight;
} weights[] = {
    {XOP_PUT, 20},   {XOP_GET, 12},    {XOP_HEAD, 5},     {XOP_DELETE, 8}, {XOP_LIST, 8},
    {XOP_MKDIR, 5},  {XOP_SYMLINK, 3}, {XOP_MKFIFO, 1},   {XOP_CAT, 6},    {XOP_STAT, 5},
    {XOP_ENV, 2},    {XOP_BADCMD, 1},  {XOP_START, 5},    {XOP_WRITE, 9},  {XOP_SIGNAL, 3},
    {XOP_RESIZE, 3}, {XOP_HEALTH, 1},  {XOP_METADATA, 1}, {XOP_GET, 2},
};

static enum xop_kind pick_kind(struct gen *g)
{
    unsigned total = 0;
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++)
        total += weights[i].weight;
    unsigned x = xrng_below(&g->r, total);
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++) {
        if (x < weights[i].weight) return weights[i].kind;
        x -= weights[i].weight;
    }
    return XOP_HEALTH;
}

static void gen_one(struct gen *g, struct xop *op)
{
    memset(op, 0, sizeof *op);
    op->slot = -1;
    op->kind = pick_kind(g);
    if (op->kind == XOP_START && g->n_live >= LIVE_MAX) op->kind = XOP_WRITE;
    bool existing = xrng_chance(&g->r, 75);
    switch (op->kind) {
    case XOP_PUT:
        if (existing)
            snprintf(op->path, sizeof op->path, "%s", pool_pick(g, 0));
        else
            fresh_path(g, op->path, sizeof op->path);
        path_style(g, op);
        op->size = pick_size(g);
        op->content_seed = xrng_next(&g->r);
        op->multipart = xrng_chance(&g->r, 25);
        op->mp_nofile = op->multipart && xrng_chance(&g->r, 5);
        op->has_mode = xrng_chance(&g->r, 40);
        if (op->has_mode)
            snprintf(op->mode, sizeof op->mode, "%s",
                     modes[xrng_below(&g->r, sizeof modes / sizeof modes[0])]);
        if (!op->nul && !op->trailing_slash && strlen(op->path) < 250) {
            add_parents(g, op->path);
            pool_add(g, op->path, false);
        }
        break;
    case XOP_GET:
    case XOP_HEAD:
        if (existing)
            snprintf(op->path, sizeof op->path, "%s", pool_pick(g, xrng_chance(&g->r, 80) ? 0 : 1));
        else
            fresh_path(g, op->path, sizeof op->path);
        path_style(g, op);
        if (op->kind == XOP_GET && xrng_chance(&g->r, 30)) {
            op->ranged = true;
            uint32_t c = xrng_below(&g->r, 3);
            op->ra = c == 2 ? -1 : (int64_t)xrng_below(&g->r, 60);
            op->rb = c == 1   ? -1
                     : c == 2 ? 1 + (int64_t)xrng_below(&g->r, 60)
                              : op->ra + (int64_t)xrng_below(&g->r, 60);
        }
        break;
    case XOP_DELETE: {
        if (existing)
            snprintf(op->path, sizeof op->path, "%s", pool_pick(g, xrng_chance(&g->r, 55) ? 0 : 1));
        else
            fresh_path(g, op->path, sizeof op->path);
        path_style(g, op);
        uint32_t c = xrng_below(&g->r, 100);
        op->recursive = c < 50 ? XREC_NONE : c < 75 ? XREC_TRUE : c < 90 ? XREC_FALSE : XREC_BANANA;
        break;
    }
    case XOP_LIST:
        snprintf(op->path, sizeof op->path, "%s", xrng_chance(&g->r, 30) ? "" : pool_pick(g, 1));
        op->enc = xrng_chance(&g->r, 20) ? XENC_SLASH : XENC_ALL;
        break;
    case XOP_MKDIR:
    case XOP_MKFIFO:
    case XOP_SYMLINK:
        if (existing && op->kind == XOP_MKDIR)
            snprintf(op->path, sizeof op->path, "%s", pool_pick(g, 1));
        else
            fresh_path(g, op->path, sizeof op->path);
        if (op->kind == XOP_SYMLINK) {
            /* Never the workspace itself: a link to it would let any path
             * reach every name (and the model follow none). */
            const char *t = pool_pick(g, -1);
            snprintf(op->target, sizeof op->target, "%s", t[0] ? t : "a");
        }
        if (strlen(op->path) < 250) {
            add_parents(g, op->path);
            pool_add(g, op->path, op->kind == XOP_MKDIR);
        }
        break;
    case XOP_CAT:
    case XOP_STAT:
        if (existing)
            snprintf(op->path, sizeof op->path, "%s", pool_pick(g, 0));
        else
            fresh_path(g, op->path, sizeof op->path);
        op->in_parent = op->kind == XOP_CAT && xrng_chance(&g->r, 40);
        break;
    case XOP_ENV:
        text_input(g, op->input, sizeof op->input, 1 + xrng_below(&g->r, 20), false);
        break;
    case XOP_BADCMD:
        op->empty_argv = xrng_chance(&g->r, 50);
        break;
    case XOP_START:
        op->slot = g->started++;
        op->pty = xrng_chance(&g->r, 30);
        op->has_cwd = xrng_chance(&g->r, 30);
        if (op->has_cwd) {
            uint32_t c = xrng_below(&g->r, 100);
            if (c < 80)
                snprintf(op->path, sizeof op->path, "%s", pool_pick(g, 1));
            else if (c < 90)
                snprintf(op->path, sizeof op->path, "%s", pool_pick(g, 0));
            else
                fresh_path(g, op->path, sizeof op->path);
        }
        g->live[g->n_live] = op->slot;
        g->live_pty[g->n_live++] = op->pty;
        break;
    case XOP_WRITE: {
        bool pty;
        op->slot = pick_slot(g, &pty);
        op->eof = xrng_chance(&g->r, 25);
        if (!op->eof) {
            size_t n = xrng_chance(&g->r, 5) ? 0 : 1 + xrng_below(&g->r, 40);
            text_input(g, op->input, sizeof op->input, n, pty && n > 0);
        } else if (op->slot >= 0) {
            live_remove(g, op->slot);
        }
        break;
    }
    case XOP_SIGNAL: {
        bool pty;
        op->slot = pick_slot(g, &pty);
        static const int sigs[] = {15, 2, 9, 15, 2, 9, 15, 9, 0, 7};
        op->sig = sigs[xrng_below(&g->r, sizeof sigs / sizeof sigs[0])];
        if (op->sig != 0 && op->sig != 7 && op->slot >= 0) live_remove(g, op->slot);
        break;
    }
    case XOP_RESIZE: {
        bool pty;
        op->slot = pick_slot(g, &pty);
        op->cols = 10 + xrng_below(&g->r, 190);
        op->rows = 5 + xrng_below(&g->r, 55);
        break;
    }
    case XOP_HEALTH:
    case XOP_METADATA:
    case XOP__COUNT:
        break;
    }
}

/* The workspace itself is only listed, read or written (F5), never removed
 * or used as a command's argument. */
static void keep_workspace(struct gen *g, struct xop *op)
{
    bool may_be_empty = op->kind == XOP_LIST || op->kind == XOP_GET || op->kind == XOP_HEAD ||
                        op->kind == XOP_PUT || op->kind == XOP_START || op->kind == XOP_ENV ||
                        op->kind == XOP_BADCMD || op->kind == XOP_WRITE || op->kind == XOP_SIGNAL ||
                        op->kind == XOP_RESIZE || op->kind == XOP_HEALTH ||
                        op->kind == XOP_METADATA;
    if (!op->path[0] && !may_be_empty) fresh_path(g, op->path, sizeof op->path);
}

struct xop *xgen_sequence(uint64_t seed, size_t n)
{
    struct xop *ops = calloc(n ? n : 1, sizeof *ops);
    struct gen *g = calloc(1, sizeof *g);
    if (!ops || !g) {
        free(ops);
        free(g);
        return NULL;
    }
    xrng_seed(&g->r, seed);
    pool_add(g, "", true); /* the workspace itself */
    for (size_t i = 0; i < n; i++) {
        gen_one(g, &ops[i]);
        keep_workspace(g, &ops[i]);
    }
    free(g);
    return ops;
}
