/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_WIRE_H
#define SBX_GRPC_WIRE_H
/* Sans-I/O pieces of the gRPC wire format shared by client and server:
 * length-prefixed message framing, grpc-timeout, grpc-message
 * percent-encoding and header checks. No sockets, no allocation beyond what
 * each function documents. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBX_GRPC_PREFIX_LEN 5
#define SBX_GRPC_DEFAULT_MAX_RECV_MESSAGE (4u * 1024u * 1024u)

/* ---- message framing ---------------------------------------------------- */

/* Writes the 5-byte prefix: compressed flag, then big-endian length. */
void sbx_grpc_frame_prefix(uint8_t out[SBX_GRPC_PREFIX_LEN], bool compressed, uint32_t len);

enum sbx_grpc_deframe {
    SBX_GRPC_DEFRAME_NEED_MORE = 0, /* all input consumed, no complete message yet */
    SBX_GRPC_DEFRAME_MESSAGE,       /* one message complete: see *msg / *msg_len */
    SBX_GRPC_DEFRAME_TOO_LARGE,  /* declared length > max: stream must fail (RESOURCE_EXHAUSTED) */
    SBX_GRPC_DEFRAME_COMPRESSED, /* compressed flag set, no encoding negotiated (UNIMPLEMENTED) */
    SBX_GRPC_DEFRAME_BAD_FLAG,   /* flag byte other than 0 or 1 (INTERNAL) */
};

/* Reassembles messages from a byte stream (the DATA payloads of one stream).
 * Holds at most one partial message, never more than `max_message` bytes of
 * body; a message buffer is allocated when its prefix is complete. After an
 * error result the deframer stays failed and consumes nothing more. */
struct sbx_grpc_deframer {
    size_t max_message;
    uint8_t prefix[SBX_GRPC_PREFIX_LEN];
    size_t prefix_have;
    uint8_t *body; /* current message body (malloc'd) */
    size_t body_len;
    size_t body_have;
    int failed; /* the sticky error result, 0 if none */
};

void sbx_grpc_deframer_init(struct sbx_grpc_deframer *d, size_t max_message);
void sbx_grpc_deframer_free(struct sbx_grpc_deframer *d);

/* Consumes input until one message is complete or input runs out.
 * *consumed = bytes used from data. On MESSAGE, *msg is a malloc'd buffer
 * the caller owns (NULL when *msg_len is 0) and the rest of the input has
 * not been consumed: call again with data + *consumed. Returns an enum
 * sbx_grpc_deframe value. */
int sbx_grpc_deframer_feed(struct sbx_grpc_deframer *d, const uint8_t *data, size_t len,
                           size_t *consumed, uint8_t **msg, size_t *msg_len);

/* True at a message boundary (no partial prefix or body): an END_STREAM
 * arriving when this is false means a truncated message. */
bool sbx_grpc_deframer_idle(const struct sbx_grpc_deframer *d);

/* ---- grpc-timeout ------------------------------------------------------- */

/* Longest formatted value: 8 digits + unit + NUL. */
#define SBX_GRPC_TIMEOUT_BUFSZ 10

/* Parses "1-8 ASCII digits" + unit (H M S m u n) into nanoseconds
 * (saturating at UINT64_MAX). Returns 0, or -1 if the text is not valid. */
int sbx_grpc_timeout_parse(const char *s, size_t len, uint64_t *ns);

/* Formats ns with the finest unit whose value fits in 8 digits, rounding up
 * so the peer never sees a shorter deadline. Returns the string length. */
int sbx_grpc_timeout_format(uint64_t ns, char out[SBX_GRPC_TIMEOUT_BUFSZ]);

/* ---- grpc-message ------------------------------------------------------- */

/* Percent-encodes everything outside printable ASCII 0x20-0x7E, and '%'
 * itself (gRPC over HTTP/2 spec). Returns a malloc'd NUL-terminated string. */
char *sbx_grpc_percent_encode(const char *msg, size_t len);

/* Decodes %XX sequences; a malformed sequence is kept verbatim (the spec
 * asks receivers not to fail on it). Returns a malloc'd NUL-terminated
 * string, *out_len its length (may contain NUL bytes); out_len may be NULL. */
char *sbx_grpc_percent_decode(const char *s, size_t len, size_t *out_len);

/* ---- headers ------------------------------------------------------------ */

/* True for "application/grpc" and "application/grpc+<anything>" or
 * "application/grpc;<params>" (case-insensitive type, as gRPC accepts). */
bool sbx_grpc_content_type_ok(const char *value, size_t len);

/* True if name is a valid HTTP/2 header name for gRPC metadata: non-empty,
 * lower case token characters, not a pseudo header. */
bool sbx_grpc_header_name_ok(const char *name, size_t len);

/* Parses grpc-status: 1-3 ASCII digits, 0..999 kept as-is. -1 if invalid. */
int sbx_grpc_status_parse(const char *s, size_t len);

#endif
