/* SPDX-License-Identifier: Apache-2.0 */
/* The suite's bare HTTP/1.1 response reader (cases/concurrency/raw_http.c,
 * used where libcurl cannot shape the request): the bytes a runtime sends
 * arrive on a socket, the writer closes, and raw_peer_spoke and
 * raw_read_status read them as the slow-request cases do.
 *
 * Oracle: a peer that has closed has spoken; the status read is -1, 0 or
 * a three-digit status, the one of a well-formed status line; the reader
 * returns within its bound.
 *
 * Input: what the runtime sent (at most 64 KiB, within a socket buffer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "concurrency/raw_http.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 64 * 1024) return 0;
    int sv[2];
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");
    int buf = 256 * 1024;
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    size_t off = 0;
    while (off < size) {
        ssize_t n = send(sv[0], data + off, size - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n <= 0) break;
        off += (size_t)n;
    }
    close(sv[0]);

    struct raw_conn *conn = raw_adopt(sv[1], 50);
    FUZZ_CHECK(conn != NULL, "raw_adopt");
    FUZZ_CHECK(raw_peer_spoke(conn, 50), "a closed peer did not count as an answer");
    long status = raw_read_status(conn, 50);
    FUZZ_CHECK(status == -1 || status == 0 || (status >= 100 && status <= 999), "status %ld",
               status);
    if (status > 0 && size >= 12 && memcmp(data, "HTTP/1.1 ", 9) == 0 && data[9] >= '2' &&
        data[9] <= '9' && data[10] >= '0' && data[10] <= '9' && data[11] >= '0' &&
        data[11] <= '9' && (size == 12 || data[12] == ' ' || data[12] == '\r'))
        FUZZ_CHECK(status == (data[9] - '0') * 100 + (data[10] - '0') * 10 + (data[11] - '0'),
                   "status line %.12s read as %ld", (const char *)data, status);
    raw_close(conn);
    return 0;
}
