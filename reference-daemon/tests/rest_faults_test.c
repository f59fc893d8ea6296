/* SPDX-License-Identifier: Apache-2.0 */
/* Each REST fault switch of the fault-injection build breaks what FAULTS.md
 * says it breaks: the same request answers correctly with the switch off and
 * wrongly with it on. The server runs in-process over a temporary root. */
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "daemon_state.h"
#include "fault.h"
#include "fs_test_util.h"
#include "rest_server.h"
#include "rest_test_client.h"
#include "rest_test_server.h"

static struct rest_test_server ts;

static int group_setup(void **state)
{
    (void)state;
    if (rest_test_server_start(&ts, "SBXFT_") != 0) return -1;
    fx_write(ts.fx.outside, "secret", "OUTSIDE!");
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    fault_configure(NULL);
    rest_test_server_stop(&ts);
    return 0;
}

static int reset(void **state)
{
    (void)state;
    fault_configure(NULL);
    return 0;
}

/* One request with the fault off and then on. */
struct pair {
    struct http_resp off, on;
};

static void both(const char *fault, const char *method, const char *target, const char *body,
                 const char *const *hdrs, struct pair *p)
{
    size_t len = body ? strlen(body) : 0;
    fault_configure(NULL);
    assert_int_equal(http_do(ts.port, method, target, body, len, hdrs, &p->off), 0);
    fault_configure(fault);
    assert_int_equal(http_do(ts.port, method, target, body, len, hdrs, &p->on), 0);
    fault_configure(NULL);
}

static void pair_free(struct pair *p)
{
    http_resp_free(&p->off);
    http_resp_free(&p->on);
}

static long do_status(const char *method, const char *target, const char *body)
{
    struct http_resp r;
    assert_int_equal(http_do(ts.port, method, target, body, body ? strlen(body) : 0, NULL, &r), 0);
    http_resp_free(&r);
    return r.status;
}

static mode_t mode_of(const char *rel)
{
    char p[1024];
    struct stat sb;
    snprintf(p, sizeof(p), "%s/%s", ts.fx.root, rel);
    assert_int_equal(lstat(p, &sb), 0);
    return sb.st_mode & 0777;
}

static void with_fault(const char *fault)
{
    fault_configure(fault);
}

static void test_put_mode_faults(void **state)
{
    (void)state;
    with_fault("put-umask");
    assert_int_equal(do_status("PUT", "/v1/files/m/a?mode=0777", "x"), 204);
    assert_int_equal(mode_of("m/a"), 0755);
    with_fault("put-ignore-mode");
    assert_int_equal(do_status("PUT", "/v1/files/m/b?mode=0600", "x"), 204);
    assert_int_equal(mode_of("m/b"), 0644);
    with_fault("put-accept-bad-mode");
    assert_int_equal(do_status("PUT", "/v1/files/m/c?mode=999", "x"), 204);
    with_fault(NULL);
    assert_int_equal(do_status("PUT", "/v1/files/m/d?mode=999", "x"), 400);
}

static void test_put_body_faults(void **state)
{
    (void)state;
    with_fault("put-no-parents");
    assert_int_equal(do_status("PUT", "/v1/files/np/deep/f", "x"), 404);
    size_t n = 2u << 20;
    char *big = malloc(n + 1);
    assert_non_null(big);
    memset(big, 'q', n);
    big[n] = '\0';
    with_fault("put-corrupt");
    assert_int_equal(do_status("PUT", "/v1/files/pb/corrupt", big), 204);
    with_fault("put-truncate");
    assert_int_equal(do_status("PUT", "/v1/files/pb/trunc", big), 204);
    with_fault(NULL);
    struct http_resp r;
    assert_int_equal(http_do(ts.port, "GET", "/v1/files/pb/corrupt", NULL, 0, NULL, &r), 0);
    assert_int_equal(r.len, n);
    assert_true(memcmp(r.body, big, n) != 0);
    http_resp_free(&r);
    assert_int_equal(http_do(ts.port, "GET", "/v1/files/pb/trunc", NULL, 0, NULL, &r), 0);
    assert_int_equal(r.len, 64 * 1024);
    http_resp_free(&r);
    free(big);

    assert_int_equal(do_status("PUT", "/v1/files/pb/inplace", "old"), 204);
    struct stat a, b;
    char p[700];
    snprintf(p, sizeof(p), "%s/pb/inplace", ts.fx.root);
    assert_int_equal(stat(p, &a), 0);
    with_fault("put-in-place");
    assert_int_equal(do_status("PUT", "/v1/files/pb/inplace", "new"), 204);
    assert_int_equal(stat(p, &b), 0);
    assert_true(a.st_ino == b.st_ino); /* written in place, not replaced */
    with_fault(NULL);
    assert_int_equal(do_status("PUT", "/v1/files/pb/inplace", "newer"), 204);
    assert_int_equal(stat(p, &a), 0);
    assert_true(a.st_ino != b.st_ino);

    with_fault("put-leave-temp");
    assert_int_equal(do_status("PUT", "/v1/files/lt/f", "x"), 204);
    assert_true(fx_exists(ts.fx.root, "lt/.sbx-tmp-stray"));
    with_fault("put-status-200");
    assert_int_equal(do_status("PUT", "/v1/files/lt/g", "x"), 200);
    fx_mkdir(ts.fx.root, "lt/dir");
    with_fault("put-dir-500");
    assert_int_equal(do_status("PUT", "/v1/files/lt/dir", "x"), 500);
    with_fault(NULL);
    assert_int_equal(do_status("PUT", "/v1/files/lt/dir", "x"), 400);
}

static void test_multipart_faults(void **state)
{
    (void)state;
    const char *hdr[] = {"Content-Type: multipart/form-data; boundary=ZZ", NULL};
    const char good[] = "--ZZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nDATA"
                        "\r\n--ZZ--\r\n";
    const char nofile[] = "--ZZ\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nx"
                          "\r\n--ZZ--\r\n";
    const char trunc[] = "--ZZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nPART";
    struct pair p;
    both("multipart-raw", "PUT", "/v1/files/mpf/raw", good, hdr, &p);
    assert_int_equal(p.on.status, 204);
    pair_free(&p);
    struct http_resp r;
    assert_int_equal(http_do(ts.port, "GET", "/v1/files/mpf/raw", NULL, 0, NULL, &r), 0);
    assert_non_null(strstr(r.body, "Content-Disposition"));
    http_resp_free(&r);
    both("multipart-missing-ok", "PUT", "/v1/files/mpf/none", nofile, hdr, &p);
    assert_int_equal(p.off.status, 400);
    assert_int_equal(p.on.status, 204);
    pair_free(&p);
    both("multipart-truncated-stores", "PUT", "/v1/files/mpf/trunc", trunc, hdr, &p);
    assert_int_equal(p.off.status, 400);
    assert_int_equal(p.on.status, 204);
    pair_free(&p);
}

static void test_get_faults(void **state)
{
    (void)state;
    assert_int_equal(do_status("PUT", "/v1/files/g/f", "0123456789"), 204);
    struct pair p;
    both("get-wrong-type", "GET", "/v1/files/g/f", NULL, NULL, &p);
    assert_string_equal(p.off.content_type, "application/octet-stream");
    assert_string_equal(p.on.content_type, "text/plain");
    pair_free(&p);
    both("get-no-length", "GET", "/v1/files/g/f", NULL, NULL, &p);
    assert_int_equal(p.off.content_length, 10);
    assert_int_equal(p.on.content_length, -1);
    assert_string_equal(p.on.body, "0123456789");
    pair_free(&p);
    const char *range[] = {"Range: bytes=1-2", NULL};
    both("get-range-ignored", "GET", "/v1/files/g/f", NULL, range, &p);
    assert_int_equal(p.off.status, 206);
    assert_int_equal(p.on.status, 200);
    pair_free(&p);
    both("get-reopen-by-path", "GET", "/v1/files/g/f", NULL, NULL, &p);
    assert_string_equal(p.on.body, "0123456789"); /* still serves; breaks only on delete */
    pair_free(&p);
    both("head-absent-200", "HEAD", "/v1/files/g/absent", NULL, NULL, &p);
    assert_int_equal(p.off.status, 404);
    assert_int_equal(p.on.status, 200);
    pair_free(&p);
}

static json_t *listing(const char *fault, const char *target)
{
    fault_configure(fault);
    struct http_resp r;
    assert_int_equal(http_do(ts.port, "GET", target, NULL, 0, NULL, &r), 0);
    fault_configure(NULL);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    http_resp_free(&r);
    assert_non_null(j);
    return j;
}

static const char *entry_field(json_t *j, size_t i, const char *key)
{
    return json_string_value(
        json_object_get(json_array_get(json_object_get(j, "entries"), i), key));
}

static void test_list_faults(void **state)
{
    (void)state;
    assert_int_equal(do_status("PUT", "/v1/files/l/a", "a"), 204);
    assert_int_equal(do_status("PUT", "/v1/files/l/b", "b"), 204);
    fx_symlink("a", ts.fx.root, "l/c_link");
    char abs[600];
    snprintf(abs, sizeof(abs), "%s/secret", ts.fx.outside);
    fx_symlink(abs, ts.fx.root, "l/d_out");
    json_t *j = listing(NULL, "/v1/files/l");
    assert_int_equal(json_array_size(json_object_get(j, "entries")), 3);
    assert_string_equal(entry_field(j, 0, "name"), "a");
    assert_string_equal(entry_field(j, 2, "type"), "file");
    assert_string_equal(entry_field(j, 0, "mode"), "0644");
    assert_non_null(strchr(entry_field(j, 0, "modified_at"), 'T'));
    json_decref(j);
    j = listing("list-unsorted", "/v1/files/l");
    assert_string_equal(entry_field(j, 0, "name"), "c_link");
    json_decref(j);
    j = listing("list-symlink-type", "/v1/files/l");
    assert_string_equal(entry_field(j, 2, "type"), "symlink");
    json_decref(j);
    j = listing("list-no-mode-pattern", "/v1/files/l");
    assert_string_equal(entry_field(j, 0, "mode"), "420");
    json_decref(j);
    j = listing("list-bad-time", "/v1/files/l");
    assert_null(strchr(entry_field(j, 0, "modified_at"), 'T'));
    json_decref(j);
    j = listing("list-reveal-outside", "/v1/files/l");
    assert_int_equal(json_array_size(json_object_get(j, "entries")), 4);
    json_decref(j);
    fx_mkdir(ts.fx.root, "l/empty");
    j = listing("list-null-entries", "/v1/files/l/empty");
    assert_true(json_is_null(json_object_get(j, "entries")));
    json_decref(j);
}

static void test_delete_faults(void **state)
{
    (void)state;
    assert_int_equal(do_status("PUT", "/v1/files/d/tree/x", "x"), 204);
    with_fault("delete-nonempty-ok");
    assert_int_equal(do_status("DELETE", "/v1/files/d/tree", NULL), 204);
    assert_int_equal(do_status("PUT", "/v1/files/d/f", "x"), 204);
    with_fault("delete-bad-recursive-ok");
    assert_int_equal(do_status("DELETE", "/v1/files/d/f?recursive=banana", NULL), 204);
    with_fault("delete-absent-204");
    assert_int_equal(do_status("DELETE", "/v1/files/d/absent", NULL), 204);
    with_fault(NULL);
    assert_int_equal(do_status("DELETE", "/v1/files/d/absent", NULL), 404);
    fx_write(ts.fx.outside, "victim", "v");
    char abs[600];
    snprintf(abs, sizeof(abs), "%s/victim", ts.fx.outside);
    fx_symlink(abs, ts.fx.root, "d/link");
    with_fault("delete-follow-symlink");
    assert_int_equal(do_status("DELETE", "/v1/files/d/link", NULL), 204);
    assert_false(fx_exists(ts.fx.outside, "victim"));
}

static void test_path_faults(void **state)
{
    (void)state;
    with_fault("decode-twice");
    assert_int_equal(do_status("PUT", "/v1/files/pf/%2541", "x"), 204);
    assert_true(fx_exists(ts.fx.root, "pf/A"));
    with_fault("slash-not-separator");
    assert_int_equal(do_status("PUT", "/v1/files/pf/s%2Ft", "x"), 204);
    assert_true(fx_exists(ts.fx.root, "pf/s%2Ft"));
    with_fault("backslash-separator");
    assert_int_equal(do_status("PUT", "/v1/files/pf/b%5Cc", "x"), 204);
    assert_true(fx_exists(ts.fx.root, "pf/b/c"));
    with_fault("nul-truncate");
    assert_int_equal(do_status("GET", "/v1/files/pf/A%00junk", NULL), 200);
    with_fault(NULL);
    assert_int_equal(do_status("GET", "/v1/files/pf/A%00junk", NULL), 400);
    /* variant-file-slash-ignored: "A/" is the file A for every method. */
    assert_int_equal(do_status("GET", "/v1/files/pf/A/", NULL), 404);
    assert_int_equal(do_status("PUT", "/v1/files/pf/A/", "y"), 409);
    with_fault("variant-file-slash-ignored");
    assert_int_equal(do_status("GET", "/v1/files/pf/A/", NULL), 200);
    assert_int_equal(do_status("HEAD", "/v1/files/pf/A/", NULL), 200);
    assert_int_equal(do_status("GET", "/v1/files/pf/A/x", NULL), 404);
    assert_int_equal(do_status("PUT", "/v1/files/pf/A/", "y"), 204);
    assert_true(fx_exists(ts.fx.root, "pf/A"));
    assert_int_equal(do_status("DELETE", "/v1/files/pf/A/", NULL), 204);
    assert_false(fx_exists(ts.fx.root, "pf/A"));
    with_fault(NULL);
}

static void test_error_faults(void **state)
{
    (void)state;
    struct pair p;
    both("error-plain", "GET", "/v1/files/nothing-here", NULL, NULL, &p);
    assert_string_equal(p.off.content_type, "application/json");
    assert_string_equal(p.on.content_type, "text/plain");
    pair_free(&p);
    both("error-wrong-code", "GET", "/v1/files/nothing-here", NULL, NULL, &p);
    assert_non_null(strstr(p.off.body, "NOT_FOUND"));
    assert_non_null(strstr(p.on.body, "INTERNAL"));
    pair_free(&p);
    both("unknown-route-200", "GET", "/v2/whatever", NULL, NULL, &p);
    assert_int_equal(p.off.status, 404);
    assert_int_equal(p.on.status, 200);
    pair_free(&p);
}

static void test_escape_faults(void **state)
{
    (void)state;
    struct pair p;
    both("resolve-naive", "GET", "/v1/files/%2e%2e/outside/secret", NULL, NULL, &p);
    assert_int_equal(p.off.status, 403);
    assert_string_equal(p.on.body, "OUTSIDE!");
    pair_free(&p);
    char abs[600];
    snprintf(abs, sizeof(abs), "%s/secret", ts.fx.outside);
    fx_symlink(abs, ts.fx.root, "out_link");
    both("symlink-follow-out", "GET", "/v1/files/out_link", NULL, NULL, &p);
    assert_int_equal(p.off.status, 403);
    assert_string_equal(p.on.body, "OUTSIDE!");
    pair_free(&p);
    char target[700];
    snprintf(target, sizeof(target), "/v1/files/%s", abs);
    both("absolute-host", "GET", target, NULL, NULL, &p);
    assert_int_equal(p.off.status, 404);
    assert_string_equal(p.on.body, "OUTSIDE!");
    pair_free(&p);
    snprintf(abs, sizeof(abs), "%s/created", ts.fx.outside);
    fx_symlink(abs, ts.fx.root, "dangling_out");
    assert_int_equal(do_status("PUT", "/v1/files/dangling_out", "x"), 403);
    assert_false(fx_exists(ts.fx.outside, "created"));
    with_fault("put-follow-dangling");
    assert_int_equal(do_status("PUT", "/v1/files/dangling_out", "x"), 204);
    assert_true(fx_exists(ts.fx.outside, "created"));
    with_fault("toctou");
    assert_int_equal(do_status("GET", "/v1/files/%2e%2e/outside/secret", NULL), 403);
    /* The narrow check-then-use fault still checks: only a swap between
     * its check and its open escapes (S7 proves that race). */
    with_fault("toctou-realpath");
    assert_int_equal(do_status("GET", "/v1/files/%2e%2e/outside/secret", NULL), 403);
    assert_int_equal(do_status("GET", "/v1/files/out_link", NULL), 403);
    assert_int_equal(do_status("PUT", "/v1/files/dangling_out", "y"), 403);
    assert_int_equal(do_status("PUT", "/v1/files/toctou_new/x", "z"), 204);
    assert_int_equal(do_status("GET", "/v1/files/toctou_new/x", NULL), 200);
}

static void test_head_body_fault(void **state)
{
    (void)state;
    fx_write(ts.fx.root, "head_body.txt", "HEADBODY");
    const char req[] = "HEAD /v1/files/head_body.txt HTTP/1.1\r\nHost: x\r\n\r\n";
    char out[1024];
    /* Keep-alive: the clean server answers and waits for the next request. */
    assert_true(raw_exchange(ts.port, req, sizeof(req) - 1, out, sizeof(out), 300) > 0);
    assert_non_null(strstr(out, "200"));
    assert_null(strstr(out, "HEADBODY"));
    with_fault("head-sends-body");
    assert_true(raw_exchange(ts.port, req, sizeof(req) - 1, out, sizeof(out), 2000) > 0);
    assert_non_null(strstr(out, "\r\n\r\nHEADBODY"));
}

static void test_fifo_fault(void **state)
{
    (void)state;
    char p[700];
    snprintf(p, sizeof(p), "%s/fifo", ts.fx.root);
    assert_int_equal(mkfifo(p, 0644), 0);
    assert_int_equal(do_status("GET", "/v1/files/fifo", NULL), 400);
    with_fault("fifo-block");
    const char req[] = "GET /v1/files/fifo HTTP/1.1\r\nHost: x\r\n\r\n";
    char out[256];
    /* No answer while the open waits for a writer. */
    assert_int_equal(raw_exchange(ts.port, req, sizeof(req) - 1, out, sizeof(out), 500), 0);
    int w = open(p, O_WRONLY | O_NONBLOCK); /* releases the blocked open */
    for (int i = 0; i < 100 && w < 0; i++) {
        usleep(10000);
        w = open(p, O_WRONLY | O_NONBLOCK);
    }
    assert_true(w >= 0);
    usleep(200000); /* the released request finishes before the switch changes */
    close(w);
}

static json_t *metadata(const char *fault)
{
    fault_configure(fault);
    struct http_resp r;
    assert_int_equal(http_do(ts.port, "GET", "/v1/metadata", NULL, 0, NULL, &r), 0);
    fault_configure(NULL);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    http_resp_free(&r);
    assert_non_null(j);
    return j;
}

static int served(json_t *j, const char *name)
{
    return json_object_get(json_object_get(j, "env"), name) != NULL;
}

static void test_metadata_faults(void **state)
{
    (void)state;
    json_t *j = metadata("metadata-null-env");
    assert_true(json_is_null(json_object_get(j, "env")));
    json_decref(j);
    setenv("SBXFT_OK", "1", 1);
    setenv("SBXFT_TOKEN", "1", 1);
    setenv("SBXFT_api_key", "1", 1);
    setenv("SBXFT_AUTH", "1", 1);
    setenv("SANDBOX_FT", "1", 1);
    j = metadata(NULL);
    assert_true(served(j, "SBXFT_OK"));
    assert_int_equal(json_object_size(json_object_get(j, "env")), 1);
    json_decref(j);
    j = metadata("metadata-no-markers");
    assert_true(served(j, "SBXFT_TOKEN"));
    json_decref(j);
    j = metadata("metadata-case-sensitive");
    assert_true(served(j, "SBXFT_api_key"));
    assert_false(served(j, "SBXFT_TOKEN"));
    json_decref(j);
    j = metadata("metadata-short-markers");
    assert_true(served(j, "SBXFT_AUTH"));
    json_decref(j);
    j = metadata("metadata-no-prefix");
    assert_true(served(j, "SANDBOX_FT"));
    json_decref(j);
    j = metadata("ignore-prefix-flag");
    assert_true(served(j, "SANDBOX_FT"));
    assert_false(served(j, "SBXFT_OK"));
    json_decref(j);
    unsetenv("SBXFT_OK");
    unsetenv("SBXFT_TOKEN");
    unsetenv("SBXFT_api_key");
    unsetenv("SBXFT_AUTH");
    unsetenv("SANDBOX_FT");
}

static void test_health_faults(void **state)
{
    (void)state;
    ts.st.started.tv_sec -= 100;
    struct pair p;
    both("health-no-uptime", "GET", "/v1/health", NULL, NULL, &p);
    assert_non_null(strstr(p.off.body, "uptime_seconds"));
    assert_null(strstr(p.on.body, "uptime_seconds"));
    pair_free(&p);
    both("health-uptime-frozen", "GET", "/v1/health", NULL, NULL, &p);
    assert_null(strstr(p.off.body, "\"uptime_seconds\":0"));
    assert_non_null(strstr(p.on.body, "\"uptime_seconds\":0"));
    pair_free(&p);
    atomic_store(&ts.st.shutting_down, true);
    both("health-never-503", "GET", "/v1/health", NULL, NULL, &p);
    atomic_store(&ts.st.shutting_down, false);
    assert_int_equal(p.off.status, 503);
    assert_int_equal(p.on.status, 200);
    pair_free(&p);
}

static void test_serialize_fault(void **state)
{
    (void)state;
    with_fault("serialize-requests");
    /* An upload that never finishes its body holds the one lock. */
    int fd = raw_connect(ts.port);
    assert_true(fd >= 0);
    const char head[] = "PUT /v1/files/ser/f HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab";
    assert_int_equal(send(fd, head, sizeof(head) - 1, MSG_NOSIGNAL), (ssize_t)(sizeof(head) - 1));
    usleep(200000);
    const char req[] = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
    char out[512];
    assert_int_equal(raw_exchange(ts.port, req, sizeof(req) - 1, out, sizeof(out), 500), 0);
    close(fd); /* the upload ends; the lock is released */
    assert_int_equal(do_status("GET", "/v1/health", NULL), 200);
    with_fault(NULL);
}

static void test_delete_root_fault(void **state)
{
    (void)state;
    assert_int_equal(do_status("PUT", "/v1/files/r/x", "x"), 204);
    with_fault("delete-root");
    assert_int_equal(do_status("DELETE", "/v1/files/?recursive=true", NULL), 204);
    with_fault(NULL);
    struct stat sb;
    assert_int_equal(stat(ts.fx.root, &sb), -1);
    mkdir(ts.fx.root, 0755); /* for the fixture's cleanup */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_put_mode_faults, reset),
        cmocka_unit_test_teardown(test_put_body_faults, reset),
        cmocka_unit_test_teardown(test_multipart_faults, reset),
        cmocka_unit_test_teardown(test_get_faults, reset),
        cmocka_unit_test_teardown(test_list_faults, reset),
        cmocka_unit_test_teardown(test_delete_faults, reset),
        cmocka_unit_test_teardown(test_path_faults, reset),
        cmocka_unit_test_teardown(test_error_faults, reset),
        cmocka_unit_test_teardown(test_escape_faults, reset),
        cmocka_unit_test_teardown(test_head_body_fault, reset),
        cmocka_unit_test_teardown(test_fifo_fault, reset),
        cmocka_unit_test_teardown(test_metadata_faults, reset),
        cmocka_unit_test_teardown(test_health_faults, reset),
        cmocka_unit_test_teardown(test_serialize_fault, reset),
        cmocka_unit_test_teardown(test_delete_root_fault, reset),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
