/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_PAYLOAD_H
#define SBX_CASES_PAYLOAD_H
/* Self-verifying payloads: a file body that carries its own seed and length
 * in a header and a checksum in a trailer, with pseudo-random binary bytes
 * (NULs, 0xff, invalid UTF-8) between that are a pure function of
 * (seed, offset). Any read can be checked byte-exact without knowing which
 * version was written: a torn read (prefix of one version, rest of another),
 * a truncated or padded one, or a mixed one is reported with the first bad
 * offset. Generation and checking stream, so a 256 MiB body never has to be
 * held in memory.
 *
 * Layout (little-endian):
 *   0  "SBXPAYL1"      8 bytes magic
 *   8  seed            8
 *   16 total length    8 (whole payload, header and trailer included)
 *   24 header check    8 (FNV-1a 64 of bytes 0..23)
 *   32 body            total - 40 bytes, byte i = f(seed, 32 + i)
 *   .. trailer         8 (FNV-1a 64 of the body) */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAYLOAD_HEADER_LEN 32u
#define PAYLOAD_TRAILER_LEN 8u
#define PAYLOAD_MIN_LEN (PAYLOAD_HEADER_LEN + PAYLOAD_TRAILER_LEN)

/* Writes bytes [off, off + n) of the payload (seed, total) into buf.
 * total must be at least PAYLOAD_MIN_LEN. */
void payload_fill(uint64_t seed, uint64_t total, uint64_t off, void *buf, size_t n);

/* A whole payload in memory (malloc'd), NULL if total < PAYLOAD_MIN_LEN or
 * out of memory. */
uint8_t *payload_make(uint64_t seed, size_t total);

/* Streaming generator for uploads: a curl-style read callback. */
struct payload_source {
    uint64_t seed;
    uint64_t total;
    uint64_t off;
};
size_t payload_read_cb(char *buf, size_t size, size_t nitems, void *ud);

/* Streaming checker for downloads. Feed every received byte in order, then
 * call payload_check_finish(). */
struct payload_check {
    uint64_t seed, total; /* from the header, once 32 bytes arrived */
    uint64_t off;         /* bytes fed so far */
    uint8_t head[PAYLOAD_HEADER_LEN];
    uint64_t body_hash;
    bool bad;
    char why[200];
};
void payload_check_init(struct payload_check *c);
void payload_check_feed(struct payload_check *c, const void *data, size_t n);
/* True when the bytes fed form one complete, intact payload; otherwise
 * false with the reason in c->why (e.g. "byte 1048576: 0x3a, expected 0x91
 * (content of another version or corrupted)"). */
bool payload_check_finish(struct payload_check *c);
/* A curl-style write callback feeding a struct payload_check. */
size_t payload_write_cb(char *buf, size_t size, size_t nitems, void *ud);

/* One-shot check of a buffer; seed_out (may be NULL) receives the seed. */
bool payload_verify(const void *buf, size_t len, uint64_t *seed_out, char *why, size_t whylen);

#endif
