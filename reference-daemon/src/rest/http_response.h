/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_REST_HTTP_RESPONSE_H
#define SBX_REST_HTTP_RESPONSE_H
/* Building and queueing REST responses: JSON bodies, empty bodies and the
 * contract's Error shape {"code","message"} with the code that matches the
 * HTTP status (F13). */
#include <jansson.h>
#include <microhttpd.h>

/* The Error code for an HTTP status (INVALID_ARGUMENT for 400, ...). */
const char *rest_error_code(unsigned status);

/* The Content-Type of JSON bodies. */
const char *rest_json_type(void);

/* The Content-Type of a file's content (F7). */
#define REST_FILE_MEDIA_TYPE "application/octet-stream"

/* Queues an Error response. The message is printf-formatted. */
enum MHD_Result rest_reply_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Queues an Error response and closes the connection after it: for
 * requests whose framing cannot be trusted (what follows them on the
 * connection is not known to be a request). */
enum MHD_Result rest_reply_error_close(struct MHD_Connection *c, unsigned status, const char *msg);

/* Queues a 405 with an Allow header and an Error body. */
enum MHD_Result rest_reply_405(struct MHD_Connection *c, const char *allow);

/* Queues body (reference taken over) as application/json. */
enum MHD_Result rest_reply_json(struct MHD_Connection *c, unsigned status, json_t *body);

/* Queues a response without a body. */
enum MHD_Result rest_reply_empty(struct MHD_Connection *c, unsigned status);

/* Queues resp with status and drops the local reference. */
enum MHD_Result rest_queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *resp);

#endif
