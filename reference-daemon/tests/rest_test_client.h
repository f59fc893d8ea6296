/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_TEST_CLIENT_H
#define SBX_REST_TEST_CLIENT_H
/* A small libcurl client for the REST integration tests. */
#include <stddef.h>

struct http_resp {
    long status;
    char *body; /* NUL-terminated, len bytes */
    size_t len;
    size_t cap; /* bytes allocated for body */
    char content_type[128];
    char allow[128];
    char content_range[128];
    long long content_length; /* -1 when absent, -2 when not a number */
};

/* Sends method target (raw, sent as is) to 127.0.0.1:port with an optional
 * body and extra header lines (NULL-terminated list, may be NULL). Returns 0
 * when a response arrived. */
int http_do(int port, const char *method, const char *target, const void *body, size_t len,
            const char *const *headers, struct http_resp *r);

void http_resp_free(struct http_resp *r);

/* A TCP connection to 127.0.0.1:port, or -1. */
int raw_connect(int port);

/* Sends raw bytes on a fresh connection and reads until the server closes
 * or timeout_ms passes; returns bytes read into out (NUL-terminated). */
long raw_exchange(int port, const char *req, size_t len, char *out, size_t cap, int timeout_ms);

#endif
