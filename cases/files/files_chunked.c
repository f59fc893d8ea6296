/* SPDX-License-Identifier: Apache-2.0 */
/* F1: a PUT body sent in the chunked transfer coding (an upload of unknown
 * length) is stored byte-exact. The request is written on a bare socket so
 * that the chunk sizes are the case's, not libcurl's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/payload.h"
#include "common/rest_expect.h"
#include "concurrency/raw_http.h"

#define CHUNKED_TIMEOUT_MS 30000
#define BIG_LEN ((size_t)5 * 1024 * 1024 + 3) /* several MiB, not a multiple of anything */

/* Odd chunk sizes, cycled: a single byte, sizes just off powers of two, and
 * a chunk larger than any buffer a server reads with. */
static const size_t odd_sizes[] = {1, 7, 4093, 65537, 3, 1000003, 8191, 131071, 2};

/* Sends data as chunks of the sizes of `sizes` (cycled, n of them), each
 * size line in hex (upper case every other chunk, as RFC 9112 allows),
 * then the last chunk and the empty trailer section. */
static bool send_chunked(struct raw_conn *c, const uint8_t *data, size_t len, const size_t *sizes,
                         size_t n)
{
    size_t off = 0;
    for (size_t i = 0; off < len; i++) {
        size_t k = sizes[i % n];
        if (k > len - off) k = len - off;
        char line[32];
        snprintf(line, sizeof line, i % 2 ? "%zX\r\n" : "%zx\r\n", k);
        if (!raw_send_all(c, line, strlen(line)) || !raw_send_all(c, data + off, k) ||
            !raw_send_all(c, "\r\n", 2))
            return false;
        off += k;
    }
    return raw_send_all(c, "0\r\n\r\n", 5);
}

/* PUTs data to rel in chunks of the given sizes; then a GET must return
 * exactly data. */
static void chunked_round_trip(struct case_ctx *ctx, const char *rel, const uint8_t *data,
                               size_t len, const size_t *sizes, size_t n)
{
    char *path = rx_path(ctx, rel);
    char *target = path ? rest_files_target(path) : NULL;
    if (!target) {
        case_error(ctx, "out of memory");
        free(path);
        return;
    }
    const char *addr = case_rest_addr(ctx);
    case_request(ctx, "PUT %s (Transfer-Encoding: chunked, %zu bytes)", target, len);
    struct raw_conn *c = raw_connect(addr, CHUNKED_TIMEOUT_MS);
    if (!c) {
        case_error(ctx, "cannot open a connection to %s for the chunked PUT", addr);
        goto out;
    }
    /* A runtime that refuses the coding may answer and close before the
     * body is through: its answer is read either way. */
    bool sent = raw_send_head(c, addr, "PUT", target, -1,
                              "Content-Type: application/octet-stream\r\n"
                              "Transfer-Encoding: chunked\r\n") &&
                send_chunked(c, data, len, sizes, n);
    long status = raw_read_status(c, CHUNKED_TIMEOUT_MS);
    raw_close(c);
    if (status != 204) {
        char got[64];
        if (status > 0)
            snprintf(got, sizeof got, "%ld", status);
        else
            snprintf(got, sizeof got, "%s",
                     status == 0 ? "the connection closed without an answer"
                                 : "no answer within 30 s");
        case_fail(ctx, "204 for a PUT whose body is chunked (F1)",
                  "PUT %s, %zu bytes chunked: %s%s", rel, len, got,
                  sent ? "" : " (the runtime stopped reading the body)");
        goto out;
    }
    expect_file_content(ctx, path, data, len);
out:
    free(target);
    free(path);
}

static void put_chunked(struct case_ctx *ctx)
{
    const size_t n_odd = sizeof odd_sizes / sizeof *odd_sizes;
    /* Nothing but the last chunk: an empty file. */
    chunked_round_trip(ctx, "empty.bin", (const uint8_t *)"", 0, odd_sizes, n_odd);
    /* A few bytes in chunks of 1, 3 and 1 (a NUL among them). */
    static const size_t few_sizes[] = {1, 3, 1};
    chunked_round_trip(ctx, "few.bin", (const uint8_t *)"ab\0cd", 5, few_sizes, 3);
    if (case_failed(ctx)) return;
    uint8_t *big = payload_make(case_rand(ctx), BIG_LEN);
    if (!big) {
        case_error(ctx, "out of memory");
        return;
    }
    chunked_round_trip(ctx, "big.bin", big, BIG_LEN, odd_sizes, n_odd);
    /* Over an existing, longer file: nothing of the old content remains. */
    if (!case_failed(ctx))
        chunked_round_trip(ctx, "big.bin", big + 1000, 4099, odd_sizes + 1, n_odd - 1);
    free(big);
}
SBX_CASE(put_chunked, .id = "F1-004",
         .title = "PUT stores a body sent in the chunked transfer coding byte-exact",
         .clauses = "F1", .level = LEVEL_MUST, .tags = "files", .timeout_s = 60,
         .catches = "chunked uploads (curl -T -, streaming clients) refused (411, 400, 501) or "
                    "stored truncated, empty or with the chunk framing in them",
         .how = "PUTs on a bare connection with Transfer-Encoding: chunked: 0 bytes (only the "
                "last chunk), 5 bytes in chunks of 1, 3 and 1, 5 MiB + 3 bytes in chunks of "
                "1 B to 1,000,003 B (hex sizes in both letter cases), then 4,099 bytes over "
                "that file; each must answer 204 and GET must return exactly the bytes sent");
