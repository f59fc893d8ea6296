/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_CONC_UTIL_H
#define SBX_CASES_CONC_UTIL_H
/* Thread-safe REST helpers for the concurrency cases: they use only the
 * endpoint address (never the case context), so worker threads can call
 * them; results go back to the case thread, which records outcomes. */
#include "common/payload.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "/v1/files/<case_dir>/<rel>" (malloc'd). */
char *conc_target(const char *case_dir, const char *rel, const char *query);

/* PUT of the payload (seed, size) from memory. Returns the status (0 when
 * no response). */
long conc_put_payload(const char *addr, const char *target, uint64_t seed, size_t size);

/* PUT streamed from the generator that aborts the upload after
 * abort_after bytes (the request then fails on the client side). */
long conc_put_aborted(const char *addr, const char *target, uint64_t seed, size_t size,
                      size_t abort_after);

/* GET checked as a payload. Returns the status; with 200, *complete tells
 * whether the body is one intact payload (seed in *seed, reason in why). */
long conc_get_payload(const char *addr, const char *target, bool *complete, uint64_t *seed,
                      char *why, size_t whylen);

/* DELETE; returns the status. */
long conc_delete(const char *addr, const char *target);

/* True when seed is one of the n seeds. */
bool conc_seed_in(uint64_t seed, const uint64_t *seeds, size_t n);

#endif
