/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_GRPC_CLIENT_INBOX_H
#define SBX_GRPC_CLIENT_INBOX_H
/* A call's received response bytes, kept as they arrived in one buffer and
 * handed out as messages in place: one copy per byte and no allocation per
 * message, which is what a client reading a long stream of small messages
 * spends its time on otherwise. Sans-I/O; used by client_call.c and
 * client_response.c. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct grpc_inbox {
    uint8_t *buf;
    size_t cap;
    size_t start; /* next unread message */
    size_t scan;  /* end of the complete, validated messages */
    size_t end;   /* end of the received bytes */
    size_t ready; /* complete messages in [start, scan) */
    size_t max_message;
    int failed;      /* sticky enum sbx_grpc_deframe error, 0 if none */
    bool out_in_buf; /* the message handed out last lives in buf */
    uint8_t *held;   /* an earlier buffer still holding that message */
};

void sbx_grpc_inbox_init(struct grpc_inbox *b, size_t max_message);
void sbx_grpc_inbox_free(struct grpc_inbox *b);

/* Appends received bytes and checks the prefix of each message as soon as
 * it is complete; *completed = messages completed (readable even when an
 * error follows them). Returns 0, the negated enum sbx_grpc_deframe error
 * (TOO_LARGE, COMPRESSED, BAD_FLAG; then nothing more is accepted), or -1
 * when out of memory. */
int sbx_grpc_inbox_feed(struct grpc_inbox *b, const uint8_t *data, size_t len, size_t *completed);

/* The next complete message, valid until sbx_grpc_inbox_release (or the next
 * sbx_grpc_inbox_next, which releases it first). False if none is complete. */
bool sbx_grpc_inbox_next(struct grpc_inbox *b, const uint8_t **msg, size_t *len);

/* The message handed out last is no longer used. */
void sbx_grpc_inbox_release(struct grpc_inbox *b);

/* Drops every unread byte (the message handed out stays valid). */
void sbx_grpc_inbox_clear(struct grpc_inbox *b);

/* True at a message boundary: no partial message received. */
bool sbx_grpc_inbox_idle(const struct grpc_inbox *b);

#endif
