/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_HEAD_BODY_H
#define SBX_FAULTS_REST_HEAD_BODY_H
/* Fault injection only (head-sends-body): a HEAD of a file is followed on
 * the wire by the file's first bytes, sent past the HTTP library once the
 * header block is out, and the connection is then shut down. */
#include <microhttpd.h>
#include <sys/types.h>

#include "rest/request.h"

/* Keeps up to 64 KiB of the open file fd in rq's fault state (HEAD only). */
void fault_head_body_keep(struct rest_request *rq, int fd);

/* After the response went out: writes the kept bytes to the connection's
 * socket and shuts it down. Frees them in any case. */
void fault_head_body_send(struct rest_request *rq, struct MHD_Connection *c, bool completed);

#endif
