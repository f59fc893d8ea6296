/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_MULTIPART_H
#define SBX_REST_MULTIPART_H
/* A streaming, sans-I/O reader of multipart/form-data bodies (RFC 7578) that
 * passes on the bytes of the part named "file" as they arrive and discards
 * every other part. Memory use is bounded (a part's headers are limited). */
#include <stddef.h>

enum multipart_status {
    MP_OK = 0,
    MP_NO_FILE = -1,   /* well-formed, but no part named "file" */
    MP_MALFORMED = -2, /* bad framing or headers */
    MP_TRUNCATED = -3, /* the body ended before the closing delimiter */
    MP_CALLBACK = -4,  /* the data callback failed */
};

struct multipart;

/* Receives the next bytes of the "file" part; returns 0, or non-zero to stop. */
typedef int (*multipart_data_fn)(void *user, const char *data, size_t len);

/* Creates a reader for a Content-Type header value. Returns NULL when it is
 * not multipart/form-data or its boundary is missing or invalid. */
struct multipart *multipart_new(const char *content_type);

/* Creates a reader for a boundary already taken from its header. Returns
 * NULL when it is empty, longer than 70 bytes or holds CR or LF. */
struct multipart *multipart_new_boundary(const char *boundary);

/* Feeds the next body bytes. Returns MP_OK, MP_MALFORMED or MP_CALLBACK; after
 * an error the reader stays failed. */
int multipart_feed(struct multipart *mp, const char *data, size_t len, multipart_data_fn fn,
                   void *user);

/* At the end of the body: MP_OK when the closing delimiter was seen and a
 * "file" part was stored, else MP_NO_FILE, MP_TRUNCATED or the earlier error. */
int multipart_finish(const struct multipart *mp);

void multipart_free(struct multipart *mp);

/* True when content_type is multipart/form-data (any parameters). */
int multipart_is_form_data(const char *content_type);

#endif
