/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_REQUEST_FRAMING_H
#define SBX_REST_REQUEST_FRAMING_H
/* Strict message framing (RFC 9112, section 6): requests whose body length
 * two parties could read differently are refused and their connection
 * closed, so that nothing behind a proxy can smuggle a second request.
 * libmicrohttpd's strict mode covers the Host header; this covers the rest. */
#include <microhttpd.h>
#include <stdbool.h>

/* Checked once, when the header block is complete. Returns true when the
 * request was refused (a response queued into *ret): Content-Length together
 * with Transfer-Encoding (400), Content-Lengths that differ or do not parse
 * or exceed 2^63-1 (400), a transfer coding other than "chunked" (501). */
bool request_framing_refused(struct MHD_Connection *c, enum MHD_Result *ret);

#endif
