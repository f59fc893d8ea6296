/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REQUEST_HEADERS_H
#define SBX_REQUEST_HEADERS_H
/* Headers the user asks to send on every request (--header, --rest-header,
 * --grpc-header, --header-file): what a router, a gateway or an
 * authenticating proxy in front of a runtime needs to route or admit each
 * request. Values of credential headers, and of any header marked secret
 * (--secret-header), are never written anywhere: reports, logs and the
 * bundle show the name with REQUEST_HEADER_REDACTED.
 *
 * The list is parsed from the command line once, then made the process's
 * list (request_headers_use) before any request; the REST client, the raw
 * HTTP helper of the cases and every gRPC connection read it from there.
 * A header the request sets itself always wins: user headers are added
 * only under names the request does not use. */
#include <stdbool.h>
#include <stddef.h>

#include "sbx_grpc_client.h"

#define REQUEST_HEADER_REDACTED "<redacted>"
#define REQUEST_HEADERS_MAX 64

enum request_surface {
    REQUEST_REST = 1u << 0,
    REQUEST_GRPC = 1u << 1,
    REQUEST_BOTH = REQUEST_REST | REQUEST_GRPC,
};

struct request_header {
    char *name;  /* as given: REST sends it so */
    char *lower; /* lower case: gRPC metadata */
    char *value; /* without surrounding blanks */
    unsigned surfaces;
};

struct request_headers {
    struct request_header v[REQUEST_HEADERS_MAX];
    size_t n;
    char *secret[REQUEST_HEADERS_MAX]; /* --secret-header names, lower case */
    size_t n_secret;
};

/* Adds one "Name: value" (len bytes; a NUL inside is refused). 0, or -1
 * with err naming the problem and never quoting the value. */
int request_headers_add(struct request_headers *h, const char *text, size_t len, unsigned surfaces,
                        char *err, size_t err_len);

/* Adds every line of a file: "Name: value" per line; blank lines and lines
 * starting with '#' are skipped. 0, or -1 with err (file and line). */
int request_headers_add_file(struct request_headers *h, const char *path, char *err,
                             size_t err_len);

/* Marks a name secret (its value is redacted like Authorization's). */
int request_headers_mark_secret(struct request_headers *h, const char *name, char *err,
                                size_t err_len);

/* True for Authorization, Cookie, Proxy-Authorization and marked names. */
bool request_headers_is_secret(const struct request_headers *h, const char *name);

void request_headers_free(struct request_headers *h);

/* Takes the value of one of the command-line options this file owns
 * ("--header", ...; their rows are in the option tables): 1 when name is
 * one of them, 0 when it is not, -1 with err on a bad value. */
int request_headers_option(struct request_headers *h, const char *name, const char *val, char *err,
                           size_t err_len);

/* A copy of argv (argc entries, NULL-terminated) with the values of secret
 * headers given on it redacted, for what reports record of the command
 * line. Free with request_headers_free_argv. */
char **request_headers_redact_argv(const struct request_headers *h, int argc, char **argv);
void request_headers_free_argv(char **argv);

/* ---- the process's list ----------------------------------------------- */

/* Makes h the list every request of this process carries (h must outlive
 * the requests; workers inherit it). NULL = none. */
void request_headers_use(const struct request_headers *h);
const struct request_headers *request_headers_active(void);

/* "Name: value" lines for REST whose names are not among own (a
 * NULL-terminated "Name: value" list, may be NULL), in a NULL-terminated
 * malloc'd array whose strings belong to the process's list. */
const char **request_headers_rest_lines(const char *const *own);

/* The same as one "Name: value\r\n..." block for a hand-written HTTP/1.1
 * request, leaving out the names already in own_block (the request's own
 * header lines, may be NULL). malloc'd; "" when none. */
char *request_headers_raw_block(const char *own_block);

/* Puts the gRPC headers on connection options (the array belongs to the
 * process's list). */
void request_headers_grpc_opts(struct sbx_grpc_conn_opts *o);

/* Replaces, in place, every occurrence of a secret header's value in text
 * with REQUEST_HEADER_REDACTED (or as much of it as fits): for what a
 * peer answered, which may echo the request. */
void request_headers_scrub(char *text);

/* Names sent on a surface, ", "-separated ("" when none), malloc'd: what
 * reports and logs say of the headers, never their values. */
char *request_headers_names(unsigned surface);

#endif
