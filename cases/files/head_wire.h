/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_HEAD_WIRE_H
#define SBX_CASES_HEAD_WIRE_H
/* F9 on the wire: libcurl discards whatever follows a HEAD answer's header
 * block, so "without a body" is checked on a bare keep-alive connection. */
struct case_ctx;

/* HEADs target (a raw request-target) on a connection of its own: no byte
 * may follow the header block, and when the runtime keeps the connection
 * open, a second request on it must be answered with a clean status line.
 * Records checks and failures on ctx. */
void head_wire_check(struct case_ctx *ctx, const char *target);

#endif
