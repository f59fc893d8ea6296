/* SPDX-License-Identifier: Apache-2.0 */
/* Telling a runtime's health answer from a proxy's (see health_gate.h). */
#include "health_gate.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "request_headers.h"
#include "text_util.h"

enum {
    BODY_SHOWN = 160,   /* bytes of a body quoted in the message */
    RETRY_MS = 250,     /* between two questions to a runtime not ready */
    MAX_HEALTH = 65536, /* a health answer is a few bytes; a page may be more */
};

static bool is_json(const struct http_response *r)
{
    const char *ct = r->content_type;
    if (!ct) return false;
    size_t n = strcspn(ct, "; \t");
    return n == 16 && strncasecmp(ct, "application/json", 16) == 0;
}

/* The body as a JSON object, or NULL. */
static json_t *json_object_body(const struct http_response *r)
{
    if (!is_json(r) || !r->body || r->body_truncated) return NULL;
    json_t *v = json_loadb(r->body, r->body_len, 0, NULL);
    if (v && !json_is_object(v)) {
        json_decref(v);
        v = NULL;
    }
    return v;
}

/* What to try, by what answered. */
static const char *hint_for(long status, bool html)
{
    switch (status) {
    case 400:
        return "a router that picks the sandbox from request headers answers 400 without "
               "them: add them with --header 'Name: value' (e.g. --header 'X-Sandbox-ID: ...')";
    case 401:
        return "the endpoint wants credentials: put 'Authorization: Bearer ...' in a file and "
               "pass --header-file FILE";
    case 407:
        return "a proxy wants credentials: pass 'Proxy-Authorization: ...' with --header-file "
               "FILE";
    case 403:
        return "access refused: credentials (--header-file) or an allow-list the proxy keeps";
    case 404:
        return "the address serves no /v1/health: wrong port or path, or a router that needs "
               "headers to pick the sandbox (--header)";
    case 421:
        return "misdirected request: the proxy expects another host name or TLS (see the TLS "
               "options)";
    case 502:
    case 503:
    case 504:
        return "a proxy could not reach its backend: is the runtime up, and do its routing "
               "headers (--header) point at it?";
    default:
        return html ? "a web page answered, not a runtime: check the address, the routing "
                      "headers (--header) and TLS"
                    : "check the address, the routing headers (--header) and TLS";
    }
}

enum health_answer health_gate_classify(const char *addr, const struct http_response *r, char *why,
                                        size_t why_len)
{
    json_t *obj = json_object_body(r);
    bool has_status = obj && json_object_get(obj, "status");
    const char *code = obj ? json_string_value(json_object_get(obj, "code")) : NULL;
    const char *msg = obj ? json_string_value(json_object_get(obj, "message")) : NULL;
    enum health_answer a = HEALTH_NOT_A_RUNTIME;
    if (r->status == 200 && has_status)
        a = HEALTH_READY;
    else if (r->status == 503 && code && strcmp(code, "UNAVAILABLE") == 0)
        a = HEALTH_NOT_READY;
    if (a == HEALTH_NOT_READY) {
        char *m = text_sanitize(msg ? msg : "", msg ? strlen(msg) : 0, BODY_SHOWN, false);
        request_headers_scrub(m);
        snprintf(why, why_len,
                 "REST endpoint %s: GET /v1/health answered 503 UNAVAILABLE (\"%s\"): the "
                 "runtime is not ready (starting, or shutting down); run again once it answers "
                 "200",
                 addr, m ? m : "");
        free(m);
    } else if (a == HEALTH_NOT_A_RUNTIME) {
        char *server = http_header(r, "Server");
        char *srv = server ? text_sanitize(server, strlen(server), 80, false) : NULL;
        char *body = r->body_len ? text_sanitize(r->body, r->body_len, BODY_SHOWN, false)
                                 : strdup("(empty)");
        request_headers_scrub(body);
        const char *ct = r->content_type ? r->content_type : "none";
        bool html = r->content_type && strncasecmp(r->content_type, "text/html", 9) == 0;
        char *ctype = text_sanitize(ct, strlen(ct), 80, false);
        snprintf(why, why_len,
                 "REST endpoint %s is not a sandboxd runtime, or not reached: GET /v1/health "
                 "answered HTTP %ld (content type %s%s%s; body %s), where a runtime answers 200 "
                 "with its JSON health object; something in front of it answered instead. Try: "
                 "%s; --profile transport to certify the proxy itself",
                 addr, r->status, ctype ? ctype : "?", srv ? ", Server: " : "", srv ? srv : "",
                 body ? body : "?", hint_for(r->status, html));
        free(server);
        free(srv);
        free(body);
        free(ctype);
    }
    json_decref(obj);
    return a;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

int health_gate_check(const char *addr, unsigned timeout_ms, unsigned ready_wait_ms, long *status,
                      char **body, char *why, size_t why_len)
{
    *status = 0;
    *body = NULL;
    double until = now_ms() + ready_wait_ms;
    for (;;) {
        struct http_request req = {.method = "GET",
                                   .target = "/v1/health",
                                   .timeout_ms = (long)timeout_ms,
                                   .max_body = MAX_HEALTH};
        struct http_response resp;
        if (rest_do_at(addr, &req, &resp) != 0) {
            snprintf(why, why_len, "REST endpoint %s: GET /v1/health: %s", addr, resp.error);
            http_response_free(&resp);
            return -1;
        }
        enum health_answer a = health_gate_classify(addr, &resp, why, why_len);
        free(*body);
        *status = resp.status;
        *body = resp.body ? strndup(resp.body, resp.body_len) : NULL;
        http_response_free(&resp);
        if (a == HEALTH_READY) return 0;
        if (a == HEALTH_NOT_A_RUNTIME || now_ms() >= until) return -1;
        nanosleep(&(struct timespec){0, RETRY_MS * 1000000L}, NULL);
    }
}
