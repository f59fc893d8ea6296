/* The head-sends-body fault (see fault_head_body.h). */
#include "rest/fault_head_body.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define HEAD_BODY_MAX (64u * 1024u)

void fault_head_body_keep(struct rest_request *rq, int fd)
{
    free(rq->fault_head_body);
    rq->fault_head_body = malloc(HEAD_BODY_MAX);
    ssize_t n = rq->fault_head_body ? pread(fd, rq->fault_head_body, HEAD_BODY_MAX, 0) : -1;
    rq->fault_head_len = n > 0 ? (size_t)n : 0;
}

void fault_head_body_send(struct rest_request *rq, struct MHD_Connection *c, bool completed)
{
    const union MHD_ConnectionInfo *ci =
        completed && rq->fault_head_len
            ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)
            : NULL;
    if (ci) {
        (void)send(ci->connect_fd, rq->fault_head_body, rq->fault_head_len,
                   MSG_NOSIGNAL | MSG_DONTWAIT);
        shutdown(ci->connect_fd, SHUT_RDWR);
    }
    free(rq->fault_head_body);
    rq->fault_head_body = NULL;
    rq->fault_head_len = 0;
}
