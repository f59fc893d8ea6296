/* SPDX-License-Identifier: Apache-2.0 */
/* The REST half's server in-process over a temporary root (fs_fixture), on
 * an ephemeral loopback port: the set-up the REST integration tests share. */
#ifndef SBX_REST_TEST_SERVER_H
#define SBX_REST_TEST_SERVER_H

#include "daemon_state.h"
#include "fs_test_util.h"
#include "rest_server.h"

struct rest_test_server {
    struct fs_fixture fx;
    struct daemon_config cfg;
    struct daemon_state st;
    struct rest_server *srv;
    int port;
};

/* Starts the server with the given metadata prefix; 0, or -1 with a message
 * on stderr. */
int rest_test_server_start(struct rest_test_server *t, const char *metadata_prefix);

/* Stops the server and removes the temporary root. */
void rest_test_server_stop(struct rest_test_server *t);

#endif
