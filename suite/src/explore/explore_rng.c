/* SPDX-License-Identifier: Apache-2.0 */
/* xoshiro256** by Blackman and Vigna (public domain), splitmix64 seeding. */
#include "explore_rng.h"

uint64_t xrng_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void xrng_seed(struct xrng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed += 0x9E3779B97F4A7C15ull;
        r->s[i] = xrng_mix(seed);
    }
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t xrng_next(struct xrng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t xrng_below(struct xrng *r, uint32_t n)
{
    /* Multiply-shift: no modulo bias worth caring about for small n. */
    return (uint32_t)(((xrng_next(r) >> 32) * (uint64_t)n) >> 32);
}

int xrng_chance(struct xrng *r, unsigned percent)
{
    return xrng_below(r, 100) < percent;
}
