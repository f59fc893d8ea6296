/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_CLIENT_H
#define SBX_REST_CLIENT_H
/* HTTP/1.1 client for the REST surface (libcurl). Paths are sent exactly as
 * given, never normalised, so traversal vectors reach the server intact. */
#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct case_ctx;

struct http_request {
    const char *method; /* "GET", "HEAD", "PUT", "DELETE", ... */
    const char *target; /* raw request-target, e.g. "/v1/files/a%20b?mode=0644" */
    const void *body;   /* request body (may be NULL) */
    size_t body_len;
    const char *const *headers; /* NULL-terminated "Name: value" list, or NULL */
    long timeout_ms;            /* whole request; 0 = 30 s */
    size_t max_body;            /* keep at most this many body bytes; 0 = 16 MiB */
    /* Optional streaming upload (instead of body): curl-style read callback
     * and the total size (-1 = chunked). */
    size_t (*read_cb)(char *buf, size_t size, size_t nitems, void *ud);
    void *read_ud;
    long long upload_size;
    /* Optional streaming download (instead of keeping the body). Return less
     * than size*nitems to abort. */
    size_t (*write_cb)(char *buf, size_t size, size_t nitems, void *ud);
    void *write_ud;
};

struct http_response {
    long status; /* 0 when no response arrived */
    char *body;  /* NUL-terminated copy (binary-safe via body_len) */
    size_t body_len;
    bool body_truncated;      /* more bytes arrived than max_body */
    char *content_type;       /* NULL if absent */
    long long content_length; /* -1 if absent */
    char *raw_headers;        /* the whole header block of the final response */
    double seconds;           /* total time */
    char error[256];          /* transport error text when status == 0 */
    bool no_connection;       /* no connection, or not one byte of a response in time */
};

/* Performs one request against the case's REST endpoint. Returns 0 when a
 * response arrived (any status), -1 on a transport error (resp->error). */
int rest_do(struct case_ctx *ctx, const struct http_request *req, struct http_response *resp);

/* Same against an explicit address (host:port, [v6]:port or unix:/path). */
int rest_do_at(const char *addr, const struct http_request *req, struct http_response *resp);

void http_response_free(struct http_response *resp);

/* The base URL of the REST surface at addr, without a trailing slash:
 * "http://host:port", "https://host:port" (--authority's name in place of
 * the host when given), "http://localhost" for a unix socket. 0 or -1. */
int rest_base_url(const char *addr, char *url, size_t url_len);

/* Sets on h what reaching addr takes beyond the URL: the unix socket,
 * --authority's CONNECT_TO (*connect_to: free it with curl_slist_free_all
 * once h is cleaned up) and the run's TLS settings for https://. 0 or -1. */
int rest_curl_reach(CURL *h, const char *addr, struct curl_slist **connect_to);

/* Value of a response header (case-insensitive name), malloc'd; NULL if absent. */
char *http_header(const struct http_response *resp, const char *name);

/* Percent-encodes a relative path for /v1/files/: every byte except
 * unreserved characters and '/' is encoded. Returns malloc'd "/v1/files/<enc>". */
char *rest_files_target(const char *relpath);

/* Short printable rendering of a body for failure messages (escapes binary,
 * truncates to max chars). Returns malloc'd string. */
char *http_body_preview(const struct http_response *resp, size_t max);

/* Conveniences on the case's endpoint; each records the request with
 * case_request(). `relpath` is relative to the root and is encoded with
 * rest_files_target(). */
int rest_put_bytes(struct case_ctx *ctx, const char *relpath, const void *data, size_t len,
                   const char *mode, struct http_response *resp);
int rest_get_path(struct case_ctx *ctx, const char *relpath, struct http_response *resp);

#endif
