/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PEER_CAP_H
#define SBX_PEER_CAP_H
/* Connections counted per client address, so that one address cannot take
 * every connection a listener allows and lock other clients out until its
 * connections time out. Used by the gRPC listener's admission hook
 * (sbx_grpc_server_opts.admit_peer), on the loop thread only. IPv4-mapped
 * IPv6 addresses count as their IPv4 address. */
#include <stdbool.h>
#include <sys/socket.h>

struct peer_cap;

/* limit: connections one address may hold (at least 1). NULL when out of
 * memory. */
struct peer_cap *peer_cap_new(unsigned limit);
void peer_cap_free(struct peer_cap *pc);

/* admit_peer / release_peer of sbx_grpc_server_opts; user is the peer_cap. */
bool peer_cap_admit(const struct sockaddr *peer, void **tag, void *user);
void peer_cap_release(void *tag, void *user);

#endif
