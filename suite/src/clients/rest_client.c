/* SPDX-License-Identifier: Apache-2.0 */
/* REST client on libcurl. The request-target goes on the wire exactly as the
 * case wrote it (CURLOPT_REQUEST_TARGET), so traversal vectors, odd escapes
 * and raw segments reach the server unmodified; bodies are kept up to a
 * bound, so a runtime that streams forever cannot exhaust the suite. */
#include "rest_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_api.h"
#include "output_limit.h"
#include "request_headers.h"
#include "text_util.h"
#include "tls_options.h"

enum {
    DEFAULT_TIMEOUT_MS = 30000,
    CONNECT_TIMEOUT_MS = 5000,
    DEFAULT_MAX_BODY = 16 * 1024 * 1024,
    MAX_HEADER_BYTES = 64 * 1024,
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct transfer {
    const struct http_request *req;
    struct http_response *resp;
    size_t max_body;
    size_t body_cap;
    size_t header_len;
    uint64_t received; /* body bytes, kept or not */
    bool over_limit;   /* more than output_limit(): the transfer was stopped */
    /* upload from req->body */
    size_t sent;
};

static size_t on_header(char *buf, size_t size, size_t nitems, void *ud)
{
    struct transfer *t = ud;
    size_t n = size * nitems;
    /* A new status line starts a new header block (100 Continue, etc.). */
    if (n >= 5 && strncmp(buf, "HTTP/", 5) == 0) t->header_len = 0;
    if (t->header_len + n > MAX_HEADER_BYTES)
        return n; /* keep the bounded prefix, ignore the rest */
    char *grown = realloc(t->resp->raw_headers, t->header_len + n + 1);
    if (!grown) return 0;
    memcpy(grown + t->header_len, buf, n);
    t->header_len += n;
    grown[t->header_len] = '\0';
    t->resp->raw_headers = grown;
    return n;
}

/* Every body is bounded in bytes read, not only in bytes kept: a runtime
 * sending an endless body would otherwise be read until the timeout. */
static bool body_over_limit(struct transfer *t, size_t n)
{
    t->received += n;
    if (t->received <= output_limit()) return false;
    t->over_limit = true;
    return true;
}

static size_t on_body_to_case(char *buf, size_t size, size_t nitems, void *ud)
{
    struct transfer *t = ud;
    if (body_over_limit(t, size * nitems)) return 0;
    return t->req->write_cb(buf, size, nitems, t->req->write_ud);
}

static size_t on_body(char *buf, size_t size, size_t nitems, void *ud)
{
    struct transfer *t = ud;
    size_t n = size * nitems;
    struct http_response *r = t->resp;
    if (body_over_limit(t, n)) return 0;
    size_t keep = n;
    if (r->body_len + keep > t->max_body) {
        keep = t->max_body - r->body_len;
        r->body_truncated = true;
    }
    if (keep > 0) {
        if (r->body_len + keep + 1 > t->body_cap) {
            size_t cap = t->body_cap ? t->body_cap : 4096;
            while (cap < r->body_len + keep + 1)
                cap *= 2;
            if (cap > t->max_body + 1) cap = t->max_body + 1;
            char *grown = realloc(r->body, cap);
            if (!grown) return 0;
            r->body = grown;
            t->body_cap = cap;
        }
        memcpy(r->body + r->body_len, buf, keep);
        r->body_len += keep;
        r->body[r->body_len] = '\0';
    }
    return n; /* excess bytes are read and dropped, not an error */
}

static size_t on_read_body(char *buf, size_t size, size_t nitems, void *ud)
{
    struct transfer *t = ud;
    size_t room = size * nitems;
    size_t left = t->req->body_len - t->sent;
    size_t n = left < room ? left : room;
    if (n) memcpy(buf, (const char *)t->req->body + t->sent, n);
    t->sent += n;
    return n;
}

/* The --authority's host and the address's ":port": the URL names the
 * authority; CONNECT_TO keeps the connection on the address. */
static bool authority_parts(const char *addr, char *name, size_t name_len, const char **port)
{
    const char *hostport = tls_addr_hostport(addr);
    *port = strrchr(hostport, ':');
    if (!tls_options_get()->authority || !*port || strncmp(addr, "unix:", 5) == 0) return false;
    tls_server_name(addr, name, name_len);
    return true;
}

int rest_base_url(const char *addr, char *url, size_t url_len)
{
    if (!addr || !*addr) return -1;
    int n;
    if (strncmp(addr, "unix:", 5) == 0) {
        n = snprintf(url, url_len, "http://localhost");
    } else {
        const char *scheme = tls_addr_is_https(addr) ? "https" : "http";
        char name[256];
        const char *port;
        if (authority_parts(addr, name, sizeof name, &port)) {
            bool v6 = strchr(name, ':') != NULL;
            n = snprintf(url, url_len, "%s://%s%s%s%s", scheme, v6 ? "[" : "", name, v6 ? "]" : "",
                         port);
        } else {
            n = snprintf(url, url_len, "%s://%s", scheme, tls_addr_hostport(addr));
        }
    }
    return n > 0 && (size_t)n < url_len ? 0 : -1;
}

int rest_curl_reach(CURL *h, const char *addr, struct curl_slist **connect_to)
{
    *connect_to = NULL;
    if (strncmp(addr, "unix:", 5) == 0) {
        curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, addr + 5);
        return 0;
    }
    char name[256];
    const char *port;
    if (authority_parts(addr, name, sizeof name, &port)) {
        /* "HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT"; a v6 host keeps brackets. */
        char rule[700];
        bool v6 = strchr(name, ':') != NULL;
        snprintf(rule, sizeof rule, "%s%s%s%s:%s", v6 ? "[" : "", name, v6 ? "]" : "", port,
                 tls_addr_hostport(addr));
        *connect_to = curl_slist_append(NULL, rule);
        if (!*connect_to) return -1;
        curl_easy_setopt(h, CURLOPT_CONNECT_TO, *connect_to);
    }
    if (tls_addr_is_https(addr)) {
        const struct tls_options *o = tls_options_get();
        if (o->cacert) curl_easy_setopt(h, CURLOPT_CAINFO, o->cacert);
        if (o->cert) {
            curl_easy_setopt(h, CURLOPT_SSLCERT, o->cert);
            curl_easy_setopt(h, CURLOPT_SSLKEY, o->key);
        }
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
    }
    return 0;
}

static bool is_upload_method(const char *m)
{
    return strcmp(m, "PUT") == 0 || strcmp(m, "POST") == 0 || strcmp(m, "PATCH") == 0;
}

int rest_do_at(const char *addr, const struct http_request *req, struct http_response *resp)
{
    memset(resp, 0, sizeof *resp);
    resp->content_length = -1;
    pthread_once(&curl_once, curl_init_once);

    char url[700];
    if (!addr || rest_base_url(addr, url, sizeof url - 1) != 0) {
        snprintf(resp->error, sizeof resp->error, "bad address '%s'", addr ? addr : "");
        return -1;
    }
    const char *method = req->method ? req->method : "GET";
    const char *target = req->target ? req->target : "/";

    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(resp->error, sizeof resp->error, "curl_easy_init failed");
        return -1;
    }
    struct transfer t = {.req = req, .resp = resp};
    t.max_body = req->max_body ? req->max_body : DEFAULT_MAX_BODY;
    char errbuf[CURL_ERROR_SIZE] = "";

    strcat(url, "/");
    curl_easy_setopt(c, CURLOPT_URL, url);
    struct curl_slist *connect_list = NULL;
    rest_curl_reach(c, addr, &connect_list);
    curl_easy_setopt(c, CURLOPT_REQUEST_TARGET, target);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
                     req->timeout_ms > 0 ? req->timeout_ms : (long)DEFAULT_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
    if (req->write_cb) {
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body_to_case);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
    } else {
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
    }

    bool upload = req->read_cb || req->body || is_upload_method(method);
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (upload) {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        if (req->read_cb) {
            curl_easy_setopt(c, CURLOPT_READFUNCTION, req->read_cb);
            curl_easy_setopt(c, CURLOPT_READDATA, req->read_ud);
            if (req->upload_size >= 0)
                curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->upload_size);
        } else {
            curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read_body);
            curl_easy_setopt(c, CURLOPT_READDATA, &t);
            curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE,
                             (curl_off_t)(req->body ? req->body_len : 0));
        }
        if (strcmp(method, "PUT") != 0) curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    } else if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    }

    /* No "Expect: 100-continue" round trip unless the case asks for one. */
    struct curl_slist *hdrs = NULL;
    bool has_expect = false;
    for (const char *const *h = req->headers; h && *h; h++) {
        if (strncasecmp(*h, "Expect:", 7) == 0) has_expect = true;
        hdrs = curl_slist_append(hdrs, *h);
    }
    /* The user's headers (a router's or a gateway's), under names the
     * request does not set itself. */
    const char **user = request_headers_rest_lines(req->headers);
    for (const char **h = user; h && *h; h++)
        hdrs = curl_slist_append(hdrs, *h);
    free(user);
    if (!has_expect) hdrs = curl_slist_append(hdrs, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);

    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    double secs = 0;
    curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &secs);
    resp->seconds = secs;
    char *ctype = NULL;
    if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ctype) == CURLE_OK && ctype)
        resp->content_type = strdup(ctype);
    curl_off_t clen = -1;
    if (curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen) == CURLE_OK)
        resp->content_length = clen;

    int ret = 0;
    if (rc == CURLE_OK && (status < 100 || status > 999)) {
        /* libcurl may end a transfer "OK" over bytes it could not read a
         * status line from: that is no HTTP response either. */
        snprintf(resp->error, sizeof resp->error,
                 "the answer has no valid HTTP status line (libcurl read status %ld)", status);
        resp->status = 0;
        ret = -1;
    } else if (rc != CURLE_OK) {
        /* A response that was cut short still counts as "no response": the
         * case sees the transport error, and the status only as a hint. */
        if (t.over_limit)
            snprintf(resp->error, sizeof resp->error,
                     "response body exceeds %s: the transfer was stopped", output_limit_text());
        else
            snprintf(resp->error, sizeof resp->error, "%s%s%s%s", curl_easy_strerror(rc),
                     errbuf[0] ? " (" : "", errbuf, errbuf[0] ? ")" : "");
        if (status > 0) {
            size_t l = strlen(resp->error);
            snprintf(resp->error + l, sizeof resp->error - l, " after HTTP %ld", status);
        }
        resp->status = 0;
        resp->no_connection = rc == CURLE_COULDNT_CONNECT ||
                              (rc == CURLE_OPERATION_TIMEDOUT && status == 0 && !resp->raw_headers);
        ret = -1;
    } else {
        resp->status = status;
    }
    if (!resp->body) {
        resp->body = calloc(1, 1);
    }
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    curl_slist_free_all(connect_list);
    return ret;
}

int rest_do(struct case_ctx *ctx, const struct http_request *req, struct http_response *resp)
{
    int rc = rest_do_at(case_rest_addr(ctx), req, resp);
    if (rc != 0 && resp->no_connection) case_report_unreachable(ctx, resp->error);
    return rc;
}

void http_response_free(struct http_response *resp)
{
    if (!resp) return;
    free(resp->body);
    free(resp->content_type);
    free(resp->raw_headers);
    resp->body = resp->content_type = resp->raw_headers = NULL;
}

char *http_header(const struct http_response *resp, const char *name)
{
    if (!resp || !resp->raw_headers || !name) return NULL;
    size_t nl = strlen(name);
    const char *p = resp->raw_headers;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > nl && p[nl] == ':' && strncasecmp(p, name, nl) == 0) {
            const char *v = p + nl + 1;
            const char *end = p + len;
            while (v < end && (*v == ' ' || *v == '\t'))
                v++;
            while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
                end--;
            return strndup(v, (size_t)(end - v));
        }
        if (!eol) break;
        p = eol + 1;
    }
    return NULL;
}

char *rest_files_target(const char *relpath)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = relpath ? strlen(relpath) : 0;
    char *out = malloc(sizeof "/v1/files/" + n * 3);
    if (!out) return NULL;
    strcpy(out, "/v1/files/");
    char *o = out + strlen(out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)relpath[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o = '\0';
    return out;
}

char *http_body_preview(const struct http_response *resp, size_t max)
{
    if (!resp || !resp->body || resp->body_len == 0) return strdup("(empty body)");
    char *s = text_sanitize(resp->body, resp->body_len, max, false);
    if (s && resp->body_truncated) {
        char *t = text_fmt("%s (body truncated by the client)", s);
        if (t) {
            free(s);
            s = t;
        }
    }
    return s;
}

int rest_put_bytes(struct case_ctx *ctx, const char *relpath, const void *data, size_t len,
                   const char *mode, struct http_response *resp)
{
    char *base = rest_files_target(relpath);
    if (!base) {
        memset(resp, 0, sizeof *resp);
        snprintf(resp->error, sizeof resp->error, "out of memory");
        return -1;
    }
    char *target = mode ? text_fmt("%s?mode=%s", base, mode) : strdup(base);
    free(base);
    if (!target) {
        memset(resp, 0, sizeof *resp);
        snprintf(resp->error, sizeof resp->error, "out of memory");
        return -1;
    }
    case_request(ctx, "PUT %s (%zu bytes)", target, len);
    static const char *const hdrs[] = {"Content-Type: application/octet-stream", NULL};
    struct http_request req = {.method = "PUT",
                               .target = target,
                               .body = data ? data : "",
                               .body_len = data ? len : 0,
                               .headers = hdrs};
    int rc = rest_do(ctx, &req, resp);
    free(target);
    return rc;
}

int rest_get_path(struct case_ctx *ctx, const char *relpath, struct http_response *resp)
{
    char *target = rest_files_target(relpath);
    if (!target) {
        memset(resp, 0, sizeof *resp);
        snprintf(resp->error, sizeof resp->error, "out of memory");
        return -1;
    }
    case_request(ctx, "GET %s", target);
    struct http_request req = {.method = "GET", .target = target};
    int rc = rest_do(ctx, &req, resp);
    free(target);
    return rc;
}
