/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_HEADER_DEADLINE_H
#define SBX_REST_HEADER_DEADLINE_H
/* A deadline for a request's header block. libmicrohttpd's connection
 * timeout restarts on every byte, so a client sending one header byte every
 * few seconds (slowloris) would hold its connection forever. A
 * watchdog thread shuts down the socket of every connection that has waited
 * longer than the deadline for a complete header block: since it was
 * accepted, or since its previous request ended (an idle keep-alive
 * connection is closed then too). */
#include <microhttpd.h>
#include <stdint.h>

struct header_deadline;

/* Starts the watchdog; deadline_ms 0 switches it off (returns NULL). */
struct header_deadline *header_deadline_start(uint64_t deadline_ms);
void header_deadline_stop(struct header_deadline *hd);

/* MHD_OPTION_NOTIFY_CONNECTION callback; cls is the header_deadline. */
void header_deadline_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                                   enum MHD_ConnectionNotificationCode toe);

/* The connection's header block is complete (first call of a request), or
 * its request ended and it waits for the next one. */
void header_deadline_headers_done(struct header_deadline *hd, struct MHD_Connection *c);
void header_deadline_request_done(struct header_deadline *hd, struct MHD_Connection *c);

#endif
