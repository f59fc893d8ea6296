/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_HEALTH_GATE_H
#define SBX_HEALTH_GATE_H
/* Is the REST address a runtime? Asked once before any case runs (and
 * before the bench measures): a router, a gateway or a proxy in front of a
 * runtime answers GET /v1/health itself when it cannot or will not pass the
 * request on (400 without routing headers, 401 without a token, 502 when
 * its backend is down, an HTML page), and a run against that answer would
 * blame the runtime for what the proxy said.
 *
 * The gate asks only what tells a runtime apart: 200 with a JSON object
 * that has a "status" member, as application/json. Whether that object is
 * exactly the contract's ({"status":"ok"}, uptime_seconds) is M1's to
 * judge, so a runtime that gets it wrong fails M1 instead of being refused.
 * A 503 with the contract's Error JSON, code UNAVAILABLE, is the runtime
 * itself saying it is not ready (starting, or shutting down): it is asked
 * again until ready_wait_ms passes, then refused as not ready. */
#include <stddef.h>

#include "rest_client.h"

enum health_answer {
    HEALTH_READY,        /* a runtime, ready */
    HEALTH_NOT_READY,    /* a runtime answering 503 UNAVAILABLE */
    HEALTH_NOT_A_RUNTIME /* something else answered */
};

/* Classifies one answer to GET /v1/health. For anything but HEALTH_READY,
 * why says what answered (status, content type, Server, the start of the
 * body, sanitised, bounded, secrets scrubbed) and what to try. */
enum health_answer health_gate_classify(const char *addr, const struct http_response *r, char *why,
                                        size_t why_len);

/* GET /v1/health on addr (each try bounded by timeout_ms), asked again
 * while the runtime answers not ready, up to ready_wait_ms. 0 when ready,
 * else -1 with why (no answer at all included). *status and *body (malloc'd,
 * the caller frees it) are the last answer's, also when it is refused, so
 * a caller can tell a TLS proxy's refusal apart (tls_reach.h); *status is 0
 * when nothing answered. */
int health_gate_check(const char *addr, unsigned timeout_ms, unsigned ready_wait_ms, long *status,
                      char **body, char *why, size_t why_len);

#endif
