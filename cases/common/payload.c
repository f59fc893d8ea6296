/* SPDX-License-Identifier: Apache-2.0 */
/* Self-verifying payloads (see payload.h). */
#include "payload.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char MAGIC[8] = {'S', 'B', 'X', 'P', 'A', 'Y', 'L', '1'};

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* splitmix64 of the 8-byte block index: random access to any offset. */
static uint64_t block(uint64_t seed, uint64_t index)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (index + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void header(uint64_t seed, uint64_t total, uint8_t out[PAYLOAD_HEADER_LEN])
{
    memcpy(out, MAGIC, 8);
    put64(out + 8, seed);
    put64(out + 16, total);
    put64(out + 24, fnv(FNV_OFFSET, out, 24));
}

/* Body bytes at absolute offsets [off, off + n), all inside the body:
 * whole 8-byte blocks are stored at once (gigabytes go through here). */
static void body_bytes(uint64_t seed, uint64_t off, uint8_t *out, size_t n)
{
    size_t i = 0;
    while (i < n && (off + i) % 8 != 0) {
        uint64_t abs = off + i;
        out[i++] = (uint8_t)(block(seed, abs / 8) >> (8 * (abs % 8)));
    }
    for (; i + 8 <= n; i += 8)
        put64(out + i, block(seed, (off + i) / 8));
    for (; i < n; i++) {
        uint64_t abs = off + i;
        out[i] = (uint8_t)(block(seed, abs / 8) >> (8 * (abs % 8)));
    }
}

/* The trailer needs the hash of the whole body; computed in chunks. */
static uint64_t body_hash(uint64_t seed, uint64_t total)
{
    uint8_t chunk[65536];
    uint64_t h = FNV_OFFSET;
    uint64_t end = total - PAYLOAD_TRAILER_LEN;
    for (uint64_t off = PAYLOAD_HEADER_LEN; off < end;) {
        size_t n = end - off < sizeof chunk ? (size_t)(end - off) : sizeof chunk;
        body_bytes(seed, off, chunk, n);
        h = fnv(h, chunk, n);
        off += n;
    }
    return h;
}

void payload_fill(uint64_t seed, uint64_t total, uint64_t off, void *buf, size_t n)
{
    uint8_t *out = buf;
    uint64_t body_end = total - PAYLOAD_TRAILER_LEN;
    while (n > 0) {
        if (off < PAYLOAD_HEADER_LEN) {
            uint8_t h[PAYLOAD_HEADER_LEN];
            header(seed, total, h);
            size_t k = PAYLOAD_HEADER_LEN - (size_t)off < n ? PAYLOAD_HEADER_LEN - (size_t)off : n;
            memcpy(out, h + off, k);
            out += k, off += k, n -= k;
        } else if (off < body_end) {
            size_t k = body_end - off < n ? (size_t)(body_end - off) : n;
            body_bytes(seed, off, out, k);
            out += k, off += k, n -= k;
        } else {
            /* The trailer: computed once per call that reaches it. */
            uint8_t t[PAYLOAD_TRAILER_LEN];
            put64(t, body_hash(seed, total));
            size_t pos = (size_t)(off - body_end);
            size_t k = PAYLOAD_TRAILER_LEN - pos < n ? PAYLOAD_TRAILER_LEN - pos : n;
            memcpy(out, t + pos, k);
            out += k, off += k, n -= k;
        }
    }
}

uint8_t *payload_make(uint64_t seed, size_t total)
{
    if (total < PAYLOAD_MIN_LEN) return NULL;
    uint8_t *p = malloc(total);
    if (!p) return NULL;
    header(seed, total, p);
    body_bytes(seed, PAYLOAD_HEADER_LEN, p + PAYLOAD_HEADER_LEN,
               total - PAYLOAD_HEADER_LEN - PAYLOAD_TRAILER_LEN);
    put64(p + total - PAYLOAD_TRAILER_LEN,
          fnv(FNV_OFFSET, p + PAYLOAD_HEADER_LEN, total - PAYLOAD_MIN_LEN));
    return p;
}

size_t payload_read_cb(char *buf, size_t size, size_t nitems, void *ud)
{
    struct payload_source *src = ud;
    size_t want = size * nitems;
    uint64_t left = src->total - src->off;
    size_t n = left < want ? (size_t)left : want;
    if (n == 0) return 0;
    /* Body chunks are generated directly; the short trailer goes through
     * payload_fill, which hashes the body once. */
    uint64_t body_end = src->total - PAYLOAD_TRAILER_LEN;
    if (src->off >= PAYLOAD_HEADER_LEN && src->off + n <= body_end)
        body_bytes(src->seed, src->off, (uint8_t *)buf, n);
    else
        payload_fill(src->seed, src->total, src->off, buf, n);
    src->off += n;
    return n;
}

void payload_check_init(struct payload_check *c)
{
    memset(c, 0, sizeof *c);
    c->body_hash = FNV_OFFSET;
}

static void check_fail(struct payload_check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void check_fail(struct payload_check *c, const char *fmt, ...)
{
    if (c->bad) return;
    c->bad = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

static void check_header(struct payload_check *c)
{
    uint8_t want[PAYLOAD_HEADER_LEN];
    if (memcmp(c->head, MAGIC, 8) != 0) {
        check_fail(c, "no payload header (magic missing)");
        return;
    }
    c->seed = get64(c->head + 8);
    c->total = get64(c->head + 16);
    header(c->seed, c->total, want);
    if (memcmp(want, c->head, PAYLOAD_HEADER_LEN) != 0 || c->total < PAYLOAD_MIN_LEN)
        check_fail(c, "payload header corrupted");
}

void payload_check_feed(struct payload_check *c, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n > 0 && !c->bad) {
        if (c->off < PAYLOAD_HEADER_LEN) {
            size_t k =
                PAYLOAD_HEADER_LEN - (size_t)c->off < n ? PAYLOAD_HEADER_LEN - (size_t)c->off : n;
            memcpy(c->head + c->off, p, k);
            c->off += k, p += k, n -= k;
            if (c->off == PAYLOAD_HEADER_LEN) check_header(c);
            continue;
        }
        uint64_t body_end = c->total - PAYLOAD_TRAILER_LEN;
        if (c->off < body_end) {
            uint8_t want[4096];
            size_t k = body_end - c->off < n ? (size_t)(body_end - c->off) : n;
            if (k > sizeof want) k = sizeof want;
            body_bytes(c->seed, c->off, want, k);
            if (memcmp(want, p, k) != 0) {
                /* memcmp saw a difference: at the last byte if not before */
                size_t i = 0;
                while (i + 1 < k && want[i] == p[i])
                    i++;
                check_fail(c,
                           "byte %" PRIu64 ": 0x%02x, expected 0x%02x (content of another "
                           "version or corrupted)",
                           c->off + i, (unsigned)p[i], (unsigned)want[i]);
                return;
            }
            c->body_hash = fnv(c->body_hash, p, k);
            c->off += k, p += k, n -= k;
            continue;
        }
        if (c->off < c->total) {
            size_t pos = (size_t)(c->off - body_end);
            uint8_t t[PAYLOAD_TRAILER_LEN];
            put64(t, c->body_hash);
            size_t k = PAYLOAD_TRAILER_LEN - pos < n ? PAYLOAD_TRAILER_LEN - pos : n;
            for (size_t i = 0; i < k; i++)
                if (t[pos + i] != p[i]) {
                    check_fail(c, "trailer checksum mismatch at byte %" PRIu64, c->off + i);
                    return;
                }
            c->off += k, p += k, n -= k;
            continue;
        }
        check_fail(c, "%llu bytes beyond the payload's length %llu", (unsigned long long)n,
                   (unsigned long long)c->total);
        return;
    }
}

bool payload_check_finish(struct payload_check *c)
{
    if (c->bad) return false;
    if (c->off < PAYLOAD_HEADER_LEN) {
        snprintf(c->why, sizeof c->why, "only %llu bytes, shorter than a payload header",
                 (unsigned long long)c->off);
        return false;
    }
    if (c->off != c->total) {
        snprintf(c->why, sizeof c->why, "truncated: %llu of %llu bytes", (unsigned long long)c->off,
                 (unsigned long long)c->total);
        return false;
    }
    return true;
}

size_t payload_write_cb(char *buf, size_t size, size_t nitems, void *ud)
{
    payload_check_feed(ud, buf, size * nitems);
    return size * nitems;
}

bool payload_verify(const void *buf, size_t len, uint64_t *seed_out, char *why, size_t whylen)
{
    struct payload_check c;
    payload_check_init(&c);
    payload_check_feed(&c, buf, len);
    bool ok = payload_check_finish(&c);
    if (seed_out) *seed_out = c.seed;
    if (!ok && why) snprintf(why, whylen, "%s", c.why);
    return ok;
}
