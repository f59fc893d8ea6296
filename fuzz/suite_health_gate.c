/* SPDX-License-Identifier: Apache-2.0 */
/* The health gate (suite/src/target/health_gate.c) on whatever a target
 * answers to GET /v1/health: input byte 0 picks the status, the first line
 * is the content type, the second the Server header, the rest the body.
 *
 * Oracle: a runtime is recognised only for 200 with a JSON object holding
 * "status" as application/json (checked independently), "not ready" only
 * for 503; anything else gets a message that is bounded, NUL-terminated and
 * free of control characters, whatever the bytes. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz_check.h"
#include "health_gate.h"

static const long statuses[] = {200, 503, 400, 401, 404, 502, 204, 301, 500, 999};

static char *line(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
    char *s = strndup((const char *)*p, n);
    *p += n + (nl ? 1 : 0);
    return s;
}

static bool looks_like_runtime(long status, const char *ctype, const char *body, size_t len)
{
    if (status != 200 || strncasecmp(ctype, "application/json", 16) != 0 ||
        !strchr("; \t", ctype[16]))
        return false;
    json_t *v = json_loadb(body, len, 0, NULL);
    bool ok = json_is_object(v) && json_object_get(v, "status");
    json_decref(v);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 64 * 1024) return 0;
    const uint8_t *p = data + 1, *end = data + size;
    struct http_response r = {0};
    r.status = statuses[data[0] % (sizeof statuses / sizeof statuses[0])];
    char *ctype = line(&p, end);
    char *server = line(&p, end);
    r.content_type = ctype[0] ? ctype : NULL;
    size_t hl = strlen(server) + 32;
    r.raw_headers = malloc(hl);
    FUZZ_CHECK(r.raw_headers != NULL, "malloc");
    snprintf(r.raw_headers, hl, "HTTP/1.1 200 OK\r\nServer: %s\r\n\r\n", server);
    r.body_len = (size_t)(end - p);
    r.body = malloc(r.body_len + 1);
    FUZZ_CHECK(r.body != NULL, "malloc");
    memcpy(r.body, p, r.body_len);
    r.body[r.body_len] = '\0';

    char why[1200];
    memset(why, 'x', sizeof why);
    why[0] = '\0';
    enum health_answer a = health_gate_classify("127.0.0.1:1", &r, why, sizeof why);
    bool runtime = looks_like_runtime(r.status, ctype, r.body, r.body_len);
    FUZZ_CHECK((a == HEALTH_READY) == runtime, "answer %d for status %ld, a runtime: %d", (int)a,
               r.status, (int)runtime);
    FUZZ_CHECK(a != HEALTH_NOT_READY || r.status == 503, "not ready on %ld", r.status);
    if (a != HEALTH_READY) {
        FUZZ_CHECK(memchr(why, '\0', sizeof why) != NULL, "message not terminated");
        FUZZ_CHECK(why[0] != '\0', "no message");
        for (const char *c = why; *c; c++)
            FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f, "control byte 0x%02x in '%s'",
                       (unsigned char)*c, why);
    }
    free(server);
    r.content_type = NULL;
    free(ctype);
    http_response_free(&r);
    return 0;
}
