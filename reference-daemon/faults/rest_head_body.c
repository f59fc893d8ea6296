/* SPDX-License-Identifier: Apache-2.0 */
/* The head-sends-body fault (see rest_head_body.h). */
#include "rest_head_body.h"

#include "rest_request_state.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define HEAD_BODY_MAX (64u * 1024u)

struct head_body {
    size_t len;
    char bytes[HEAD_BODY_MAX];
};

void fault_head_body_keep(struct rest_request *rq, int fd)
{
    struct fault_request *fr = fault_request_of(rq);
    if (!fr) return;
    free(fr->head_body);
    struct head_body *hb = malloc(sizeof *hb);
    fr->head_body = hb;
    if (!hb) return;
    ssize_t n = pread(fd, hb->bytes, HEAD_BODY_MAX, 0);
    hb->len = n > 0 ? (size_t)n : 0;
}

void fault_head_body_send(struct rest_request *rq, struct MHD_Connection *c, bool completed)
{
    struct fault_request *fr = rq->extension;
    struct head_body *hb = fr ? fr->head_body : NULL;
    const union MHD_ConnectionInfo *ci =
        hb && completed && hb->len ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)
                                   : NULL;
    if (ci) {
        (void)send(ci->connect_fd, hb->bytes, hb->len, MSG_NOSIGNAL | MSG_DONTWAIT);
        shutdown(ci->connect_fd, SHUT_RDWR);
    }
    free(hb);
    if (fr) fr->head_body = NULL;
}
