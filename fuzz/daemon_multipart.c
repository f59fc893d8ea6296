/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming multipart/form-data reader (PUT /v1/files, F4): the same
 * body must store the same bytes and end with the same status whatever the
 * points at which the network splits it.
 *
 * Input: the Content-Type header value, a newline, then the body. The body
 * is fed whole, one byte at a time, and in chunks whose sizes come from the
 * input's own bytes; the three runs must agree. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "rest/multipart.h"

struct sink {
    uint8_t *buf;
    size_t len, cap;
};

static int collect(void *user, const char *data, size_t len)
{
    struct sink *s = user;
    FUZZ_CHECK(len > 0, "empty data callback");
    if (s->len + len > s->cap) {
        size_t cap = (s->len + len) * 2;
        uint8_t *bigger = realloc(s->buf, cap);
        if (!bigger) return 1;
        s->buf = bigger;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, len);
    s->len += len;
    return 0;
}

struct outcome {
    int feed, finish;
    struct sink sink;
};

/* chunk 0: whole; 1: byte by byte; else sizes 1..256 drawn from the body. */
static void run(const char *ct, const uint8_t *body, size_t len, int how, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    struct multipart *mp = multipart_new(ct);
    FUZZ_CHECK(mp != NULL, "the reader accepted its content type once");
    size_t off = 0, k = 0;
    while (off < len && o->feed == MP_OK) {
        size_t n = how == 0 ? len - off : how == 1 ? 1 : (size_t)body[k++ % len] + 1;
        if (n > len - off) n = len - off;
        o->feed = multipart_feed(mp, (const char *)body + off, n, collect, &o->sink);
        off += n;
    }
    o->finish = multipart_finish(mp);
    multipart_free(mp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (!nl || nl - data > 1024) return 0;
    size_t ct_len = (size_t)(nl - data);
    char *ct = malloc(ct_len + 1);
    if (!ct) return 0;
    memcpy(ct, data, ct_len);
    ct[ct_len] = '\0';
    struct multipart *probe = multipart_new(ct);
    if (!probe) {
        free(ct);
        return 0;
    }
    multipart_free(probe);
    const uint8_t *body = nl + 1;
    size_t len = size - ct_len - 1;

    struct outcome ref;
    run(ct, body, len, 0, &ref);
    FUZZ_CHECK(ref.finish != MP_OK || ref.feed == MP_OK, "finish OK after a failed feed");
    for (int how = 1; how <= 2; how++) {
        struct outcome o;
        run(ct, body, len, how, &o);
        FUZZ_CHECK(o.finish == ref.finish, "split %d: finish %d, whole body %d", how, o.finish,
                   ref.finish);
        FUZZ_CHECK((o.feed == MP_OK) == (ref.feed == MP_OK), "split %d: feed %d, whole body %d",
                   how, o.feed, ref.feed);
        if (ref.finish == MP_OK)
            FUZZ_CHECK(
                o.sink.len == ref.sink.len &&
                    (ref.sink.len == 0 || memcmp(o.sink.buf, ref.sink.buf, ref.sink.len) == 0),
                "split %d stored %zu bytes, the whole body %zu (or other bytes)", how, o.sink.len,
                ref.sink.len);
        free(o.sink.buf);
    }
    FUZZ_CHECK(ref.sink.len <= len, "stored more than the body");
    free(ref.sink.buf);
    free(ct);
    return 0;
}
