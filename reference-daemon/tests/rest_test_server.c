/* SPDX-License-Identifier: Apache-2.0 */
/* See rest_test_server.h. */
#include "rest_test_server.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <curl/curl.h>

int rest_test_server_start(struct rest_test_server *t, const char *metadata_prefix)
{
    memset(t, 0, sizeof *t);
    umask(022);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (fs_fixture_init(&t->fx) != 0) return -1;
    t->cfg.listen_host = "127.0.0.1";
    t->cfg.rest_port = 0;
    t->cfg.root_dir = t->fx.root;
    t->cfg.metadata_prefix = metadata_prefix;
    t->cfg.http_idle_timeout_ms = 10000;
    t->st.cfg = &t->cfg;
    t->st.root_fd = t->fx.root_fd;
    clock_gettime(CLOCK_MONOTONIC, &t->st.started);
    char err[256];
    t->srv = rest_server_start(&t->st, err, sizeof(err));
    if (!t->srv) {
        fprintf(stderr, "rest_server_start: %s\n", err);
        return -1;
    }
    t->port = t->st.bound_rest_port;
    return t->port > 0 ? 0 : -1;
}

void rest_test_server_stop(struct rest_test_server *t)
{
    if (t->srv) rest_server_stop(t->srv);
    t->srv = NULL;
    fs_fixture_free(&t->fx);
    curl_global_cleanup();
}
