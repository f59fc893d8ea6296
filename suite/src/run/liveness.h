/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_LIVENESS_H
#define SBX_LIVENESS_H
/* Is the runtime still answering? GET /v1/health and one Execute of
 * `true`, in a forked child bounded in time, so a hung runtime cannot hang
 * the caller. The circuit breaker asks this before it gives up on a
 * runtime: consecutive timeouts alone may be cases failing. */
#include <stdbool.h>
#include <stddef.h>

#include "run_target.h"

/* True when health answered 200 and Execute any gRPC status, within about
 * 35 s in all; otherwise why says what was observed. */
bool liveness_probe(const struct run_target *t, char *why, size_t why_len);

#endif
