/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_RNG_H
#define SBX_EXPLORE_RNG_H
/* explore's own PRNG (xoshiro256**, seeded through splitmix64): the same
 * seed gives the same sequence on every machine and libc. */
#include <stdint.h>

struct xrng {
    uint64_t s[4];
};

void xrng_seed(struct xrng *r, uint64_t seed);
uint64_t xrng_next(struct xrng *r);
/* Uniform in [0, n); n > 0. */
uint32_t xrng_below(struct xrng *r, uint32_t n);
/* True with probability percent/100. */
int xrng_chance(struct xrng *r, unsigned percent);
/* splitmix64 step: derives independent seeds (sequence i of a run). */
uint64_t xrng_mix(uint64_t x);

#endif
