/* SPDX-License-Identifier: Apache-2.0 */
/* Integration tests of the REST half: the server runs in this process over a
 * temporary root, and libcurl drives it over loopback. One group of tests
 * per clause family of the contract (F, S, M, C). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#include "rest_server.h"
#include "rest_test_client.h"
#include "rest_test_server.h"
#include "fs_test_util.h"
#include "test_parse.h"

static struct rest_test_server ts;

static int group_setup(void **state)
{
    (void)state;
    if (rest_test_server_start(&ts, "SBXIT_") != 0) return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    rest_test_server_stop(&ts);
    return 0;
}

/* --- helpers ------------------------------------------------------------ */

static long req(const char *method, const char *target, const void *body, size_t len,
                struct http_resp *r)
{
    assert_int_equal(http_do(ts.port, method, target, body, len, NULL, r), 0);
    return r->status;
}

static long status_of(const char *method, const char *target, const char *body)
{
    struct http_resp r;
    long s = req(method, target, body, body ? strlen(body) : 0, &r);
    http_resp_free(&r);
    return s;
}

/* Asserts an Error body whose code matches the status. */
static void assert_error(const struct http_resp *r, long status)
{
    static const struct {
        long status;
        const char *code;
    } codes[] = {{400, "INVALID_ARGUMENT"}, {403, "PERMISSION_DENIED"}, {404, "NOT_FOUND"},
                 {409, "CONFLICT"},         {500, "INTERNAL"},          {503, "UNAVAILABLE"}};
    assert_int_equal(r->status, status);
    assert_non_null(strstr(r->content_type, "application/json"));
    json_error_t je;
    json_t *j = json_loadb(r->body, r->len, 0, &je);
    assert_non_null(j);
    const char *code = json_string_value(json_object_get(j, "code"));
    assert_non_null(code);
    assert_true(json_is_string(json_object_get(j, "message")));
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        if (codes[i].status == status) assert_string_equal(code, codes[i].code);
    json_decref(j);
}

static void expect_error(const char *method, const char *target, const char *body, long status)
{
    struct http_resp r;
    req(method, target, body, body ? strlen(body) : 0, &r);
    if (r.status != status) fprintf(stderr, "%s %s -> %ld %s\n", method, target, r.status, r.body);
    assert_error(&r, status);
    http_resp_free(&r);
}

static void put_ok(const char *target, const char *body)
{
    struct http_resp r;
    req("PUT", target, body, strlen(body), &r);
    if (r.status != 204) fprintf(stderr, "PUT %s -> %ld %s\n", target, r.status, r.body);
    assert_int_equal(r.status, 204);
    assert_int_equal(r.len, 0);
    http_resp_free(&r);
}

static void get_expect(const char *target, const char *content)
{
    struct http_resp r;
    req("GET", target, NULL, 0, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, strlen(content));
    assert_memory_equal(r.body, content, r.len);
    http_resp_free(&r);
}

static mode_t mode_of(const char *rel)
{
    char p[1024];
    struct stat sb;
    snprintf(p, sizeof(p), "%s/%s", ts.fx.root, rel);
    assert_int_equal(lstat(p, &sb), 0);
    return sb.st_mode & 07777;
}

/* Any entry of a directory (below the root) whose name starts like a
 * temporary file. */
static int temp_files_in(const char *rel)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s", ts.fx.root, rel);
    FILE *f = NULL;
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^\\.sbx-tmp-'", p);
    f = popen(cmd, "r");
    long n = 0;
    if (f) {
        char line[32];
        if (!fgets(line, sizeof line, f) || !test_parse_long(line, 0, INT_MAX, &n, NULL)) n = 0;
        pclose(f);
    }
    return (int)n;
}

static json_t *get_json(const char *target, long *status)
{
    struct http_resp r;
    req("GET", target, NULL, 0, &r);
    *status = r.status;
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    if (r.status == 200) assert_non_null(strstr(r.content_type, "application/json"));
    http_resp_free(&r);
    return j;
}

/* --- M: health and metadata ------------------------------------------------ */

static void test_health(void **state)
{
    (void)state;
    long s;
    json_t *j = get_json("/v1/health", &s);
    assert_int_equal(s, 200);
    assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
    assert_true(json_is_integer(json_object_get(j, "uptime_seconds")));
    assert_true(json_integer_value(json_object_get(j, "uptime_seconds")) >= 0);
    json_decref(j);
    atomic_store(&ts.st.shutting_down, true);
    expect_error("GET", "/v1/health", NULL, 503);
    atomic_store(&ts.st.shutting_down, false);
    assert_int_equal(status_of("GET", "/v1/health", NULL), 200);
}

static void test_metadata(void **state)
{
    (void)state;
    long s;
    json_t *j = get_json("/v1/metadata", &s);
    assert_int_equal(s, 200);
    assert_true(json_is_object(json_object_get(j, "env")));
    assert_int_equal(json_object_size(json_object_get(j, "env")), 0);
    json_decref(j);
    setenv("SBXIT_REGION", "eu-west", 1);
    setenv("SBXIT_API_KEY", "k", 1);
    setenv("SBXIT_github_token", "t", 1);
    setenv("SBXIT_Auth_Header", "a", 1);
    setenv("SBXIT_DB_PASSWD", "p", 1);
    setenv("OTHER_REGION", "x", 1);
    j = get_json("/v1/metadata", &s);
    json_t *env = json_object_get(j, "env");
    assert_int_equal(json_object_size(env), 1);
    assert_string_equal(json_string_value(json_object_get(env, "SBXIT_REGION")), "eu-west");
    json_decref(j);
    unsetenv("SBXIT_REGION");
    unsetenv("SBXIT_API_KEY");
    unsetenv("SBXIT_github_token");
    unsetenv("SBXIT_Auth_Header");
    unsetenv("SBXIT_DB_PASSWD");
    unsetenv("OTHER_REGION");
    expect_error("POST", "/v1/metadata", "x", 405);
}

/* --- F: files ------------------------------------------------------------- */

static void test_put_get_roundtrip(void **state)
{
    (void)state;
    static const char bin[] = "a\0b\xff\xfe\r\n\x80zz";
    struct http_resp r;
    req("PUT", "/v1/files/rt/bin.dat", bin, sizeof(bin) - 1, &r);
    assert_int_equal(r.status, 204);
    assert_int_equal(r.len, 0);
    http_resp_free(&r);
    req("GET", "/v1/files/rt/bin.dat", NULL, 0, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.content_type, "application/octet-stream");
    assert_int_equal(r.content_length, sizeof(bin) - 1);
    assert_int_equal(r.len, sizeof(bin) - 1);
    assert_memory_equal(r.body, bin, r.len);
    http_resp_free(&r);
    /* Zero bytes, and overwrite. */
    req("PUT", "/v1/files/rt/empty", "", 0, &r);
    assert_int_equal(r.status, 204);
    http_resp_free(&r);
    get_expect("/v1/files/rt/empty", "");
    put_ok("/v1/files/rt/bin.dat", "second");
    get_expect("/v1/files/rt/bin.dat", "second");
    assert_int_equal(temp_files_in("rt"), 0);
}

/* Descriptors of this process open on removed files beneath the root. */
static int replaced_files_open(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char link[300], to[1200];
        snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(link, to, sizeof(to) - 1);
        if (k <= 0) continue;
        to[k] = '\0';
        if (strncmp(to, ts.fx.root, strlen(ts.fx.root)) == 0 && strstr(to, " (deleted)")) n++;
    }
    closedir(d);
    return n;
}

/* The file a PUT replaced is held until its reply is out, then closed
 * (its blocks freed): none stays open once the replies are in. */
static void test_overwrites_release_replaced_files(void **state)
{
    (void)state;
    char body[32];
    for (int i = 0; i < 20; i++) {
        snprintf(body, sizeof(body), "version %d", i);
        put_ok("/v1/files/over/f", body);
        get_expect("/v1/files/over/f", body);
    }
    int open_ = -1;
    for (int i = 0; i < 200 && open_ != 0; i++) { /* closed just after each reply */
        open_ = replaced_files_open();
        if (open_ != 0) usleep(10 * 1000);
    }
    assert_int_equal(open_, 0);
    assert_int_equal(temp_files_in("over"), 0);
}

static void test_put_large_streamed(void **state)
{
    (void)state;
    size_t n = 8u << 20;
    char *big = malloc(n);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)((i * 131) ^ (i >> 13));
    struct http_resp r;
    req("PUT", "/v1/files/big/blob", big, n, &r);
    assert_int_equal(r.status, 204);
    http_resp_free(&r);
    req("GET", "/v1/files/big/blob", NULL, 0, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, n);
    assert_memory_equal(r.body, big, n);
    http_resp_free(&r);
    free(big);
}

static void test_put_modes(void **state)
{
    (void)state;
    put_ok("/v1/files/modes/a?mode=0777", "x");
    assert_int_equal(mode_of("modes/a"), 0777);
    put_ok("/v1/files/modes/b?mode=0600", "x");
    assert_int_equal(mode_of("modes/b"), 0600);
    put_ok("/v1/files/modes/c", "x");
    assert_int_equal(mode_of("modes/c"), 0644);
    put_ok("/v1/files/modes/d?mode=", "x");
    assert_int_equal(mode_of("modes/d"), 0644);
    put_ok("/v1/files/modes/e?mode=0%37%35%35", "x");
    assert_int_equal(mode_of("modes/e"), 0755);
    const char *bad[] = {"644", "0800", "abc", "%zz", "00644", "1777", "0x1f", "-644"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char t[128];
        snprintf(t, sizeof(t), "/v1/files/modes/bad%zu?mode=%s", i, bad[i]);
        expect_error("PUT", t, "data", 400);
        snprintf(t, sizeof(t), "modes/bad%zu", i);
        assert_false(fx_exists(ts.fx.root, t));
    }
    /* An invalid mode leaves an existing file as it was. */
    expect_error("PUT", "/v1/files/modes/a?mode=999", "new", 400);
    get_expect("/v1/files/modes/a", "x");
    assert_int_equal(temp_files_in("modes"), 0);
}

static void test_put_parents_and_dirs(void **state)
{
    (void)state;
    put_ok("/v1/files/p1/p2/p3/leaf.txt", "leaf");
    get_expect("/v1/files/p1/p2/p3/leaf.txt", "leaf");
    expect_error("PUT", "/v1/files/p1/p2", "x", 400);
    expect_error("PUT", "/v1/files/", "x", 400);
    expect_error("PUT", "/v1/files/p1/p2/p3/leaf.txt/under", "x", 409);
    fx_symlink("nothere", ts.fx.root, "p1/dangling_dir");
    long s = status_of("PUT", "/v1/files/p1/dangling_dir/f", "x");
    assert_true(s == 400 || s == 409);
    assert_false(fx_exists(ts.fx.root, "p1/nothere"));
}

static void put_multipart(const char *target, const char *content, size_t len, const char *field,
                          struct http_resp *r)
{
    CURL *c = curl_easy_init();
    assert_non_null(c);
    curl_mime *mime = curl_mime_init(c);
    curl_mimepart *part = curl_mime_addpart(mime);
    curl_mime_name(part, "note");
    curl_mime_data(part, "ignored", CURL_ZERO_TERMINATED);
    part = curl_mime_addpart(mime);
    curl_mime_name(part, field);
    curl_mime_filename(part, "upload.bin");
    curl_mime_data(part, content, len);
    char url[512];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", ts.port, target);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
    FILE *sink = fopen("/dev/null", "w");
    curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    fclose(sink);
    curl_mime_free(mime);
    curl_easy_cleanup(c);
}

static void test_put_multipart(void **state)
{
    (void)state;
    static const char bin[] = "mp\0data\r\n--not-a-boundary\r\n\xff";
    struct http_resp r;
    put_multipart("/v1/files/mp/one.bin?mode=0600", bin, sizeof(bin) - 1, "file", &r);
    assert_int_equal(r.status, 204);
    struct http_resp g;
    req("GET", "/v1/files/mp/one.bin", NULL, 0, &g);
    assert_int_equal(g.len, sizeof(bin) - 1);
    assert_memory_equal(g.body, bin, g.len);
    http_resp_free(&g);
    assert_int_equal(mode_of("mp/one.bin"), 0600);

    put_multipart("/v1/files/mp/none.bin", "x", 1, "notfile", &r);
    assert_int_equal(r.status, 400);
    assert_false(fx_exists(ts.fx.root, "mp/none.bin"));

    const char *hdr[] = {"Content-Type: multipart/form-data; boundary=BB", NULL};
    const char trunc[] = "--BB\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\npartial";
    assert_int_equal(
        http_do(ts.port, "PUT", "/v1/files/mp/one.bin", trunc, sizeof(trunc) - 1, hdr, &r), 0);
    assert_error(&r, 400);
    http_resp_free(&r);
    req("GET", "/v1/files/mp/one.bin", NULL, 0, &g);
    assert_int_equal(g.len, sizeof(bin) - 1); /* old content kept */
    http_resp_free(&g);
    const char bad[] = "--BB\r\nno header colon\r\n\r\nx\r\n--BB--\r\n";
    assert_int_equal(http_do(ts.port, "PUT", "/v1/files/mp/bad.bin", bad, sizeof(bad) - 1, hdr, &r),
                     0);
    assert_error(&r, 400);
    http_resp_free(&r);
    assert_false(fx_exists(ts.fx.root, "mp/bad.bin"));
    const char *nob[] = {"Content-Type: multipart/form-data", NULL};
    assert_int_equal(http_do(ts.port, "PUT", "/v1/files/mp/nob.bin", "x", 1, nob, &r), 0);
    assert_error(&r, 400);
    http_resp_free(&r);
    assert_int_equal(temp_files_in("mp"), 0);
}

static void test_get_ranges_and_head(void **state)
{
    (void)state;
    put_ok("/v1/files/rng/digits", "0123456789");
    const struct {
        const char *range, *body, *cr;
    } cases[] = {{"Range: bytes=2-5", "2345", "bytes 2-5/10"},
                 {"Range: bytes=7-", "789", "bytes 7-9/10"},
                 {"Range: bytes=-3", "789", "bytes 7-9/10"},
                 {"Range: bytes=8-100", "89", "bytes 8-9/10"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *h[] = {cases[i].range, NULL};
        struct http_resp r;
        assert_int_equal(http_do(ts.port, "GET", "/v1/files/rng/digits", NULL, 0, h, &r), 0);
        assert_int_equal(r.status, 206);
        assert_string_equal(r.body, cases[i].body);
        assert_string_equal(r.content_range, cases[i].cr);
        http_resp_free(&r);
    }
    const char *h[] = {"Range: bytes=10-", NULL};
    struct http_resp r;
    assert_int_equal(http_do(ts.port, "GET", "/v1/files/rng/digits", NULL, 0, h, &r), 0);
    assert_int_equal(r.status, 416);
    assert_string_equal(r.content_range, "bytes */10");
    http_resp_free(&r);

    req("HEAD", "/v1/files/rng/digits", NULL, 0, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, 0);
    assert_int_equal(r.content_length, 10);
    assert_string_equal(r.content_type, "application/octet-stream");
    http_resp_free(&r);
    assert_int_equal(status_of("HEAD", "/v1/files/rng", NULL), 200);
    req("HEAD", "/v1/files/rng/absent", NULL, 0, &r);
    assert_int_equal(r.status, 404);
    assert_int_equal(r.len, 0);
    http_resp_free(&r);
    expect_error("GET", "/v1/files/rng/absent", NULL, 404);
}

static void test_listing(void **state)
{
    (void)state;
    put_ok("/v1/files/ls/b.txt?mode=0600", "bb");
    put_ok("/v1/files/ls/a.txt", "a");
    put_ok("/v1/files/ls/sub/c", "ccc");
    fx_symlink("a.txt", ts.fx.root, "ls/link_file");
    fx_symlink("sub", ts.fx.root, "ls/link_dir");
    char abs[600];
    snprintf(abs, sizeof(abs), "%s/secret", ts.fx.outside);
    fx_write(ts.fx.outside, "secret", "OUTSIDE!");
    fx_symlink(abs, ts.fx.root, "ls/out_abs");
    fx_symlink("../../outside/secret", ts.fx.root, "ls/out_rel");
    fx_symlink("missing", ts.fx.root, "ls/dangling");
    long s;
    json_t *j = get_json("/v1/files/ls", &s);
    assert_int_equal(s, 200);
    assert_string_equal(json_string_value(json_object_get(j, "path")), "/ls");
    json_t *entries = json_object_get(j, "entries");
    assert_true(json_is_array(entries));
    const char *want[] = {"a.txt", "b.txt", "link_dir", "link_file", "sub"};
    const char *types[] = {"file", "file", "directory", "file", "directory"};
    assert_int_equal(json_array_size(entries), 5);
    regex_t re;
    assert_int_equal(regcomp(&re,
                             "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
                             "(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$",
                             REG_EXTENDED | REG_NOSUB),
                     0);
    for (size_t i = 0; i < 5; i++) {
        json_t *e = json_array_get(entries, i);
        assert_string_equal(json_string_value(json_object_get(e, "name")), want[i]);
        assert_string_equal(json_string_value(json_object_get(e, "type")), types[i]);
        assert_true(json_is_integer(json_object_get(e, "size")));
        const char *m = json_string_value(json_object_get(e, "mode"));
        assert_non_null(m);
        assert_int_equal(strlen(m), 4);
        assert_int_equal(m[0], '0');
        const char *t = json_string_value(json_object_get(e, "modified_at"));
        assert_non_null(t);
        assert_int_equal(regexec(&re, t, 0, NULL, 0), 0);
    }
    regfree(&re);
    assert_string_equal(json_string_value(json_object_get(json_array_get(entries, 1), "mode")),
                        "0600");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(entries, 1), "size")), 2);
    json_decref(j);
    put_ok("/v1/files/ls/emptydir/x", "x");
    assert_int_equal(status_of("DELETE", "/v1/files/ls/emptydir/x", NULL), 204);
    j = get_json("/v1/files/ls/emptydir", &s);
    assert_true(json_is_array(json_object_get(j, "entries")));
    assert_int_equal(json_array_size(json_object_get(j, "entries")), 0);
    json_decref(j);
    j = get_json("/v1/files/", &s);
    assert_int_equal(s, 200);
    assert_string_equal(json_string_value(json_object_get(j, "path")), "/");
    json_decref(j);
}

static void test_delete(void **state)
{
    (void)state;
    put_ok("/v1/files/del/f", "x");
    put_ok("/v1/files/del/tree/a/b/c", "x");
    put_ok("/v1/files/del/tree/d", "x");
    assert_int_equal(status_of("DELETE", "/v1/files/del/f", NULL), 204);
    assert_false(fx_exists(ts.fx.root, "del/f"));
    expect_error("DELETE", "/v1/files/del/f", NULL, 404);
    expect_error("DELETE", "/v1/files/del/tree", NULL, 409);
    expect_error("DELETE", "/v1/files/del/tree?recursive=", NULL, 409);
    expect_error("DELETE", "/v1/files/del/tree?recursive=false", NULL, 409);
    expect_error("DELETE", "/v1/files/del/tree?recursive=banana", NULL, 400);
    assert_true(fx_exists(ts.fx.root, "del/tree/a/b/c"));
    assert_int_equal(status_of("DELETE", "/v1/files/del/tree?recursive=true", NULL), 204);
    assert_false(fx_exists(ts.fx.root, "del/tree"));
    put_ok("/v1/files/del/emptyd/x", "x");
    assert_int_equal(status_of("DELETE", "/v1/files/del/emptyd/x", NULL), 204);
    assert_int_equal(status_of("DELETE", "/v1/files/del/emptyd", NULL), 204);
    assert_false(fx_exists(ts.fx.root, "del/emptyd"));
}

static void test_delete_root(void **state)
{
    (void)state;
    expect_error("DELETE", "/v1/files/", NULL, 409);
    expect_error("DELETE", "/v1/files", NULL, 409);
    expect_error("DELETE", "/v1/files/x/%2e%2e", NULL, 409);
    put_ok("/v1/files/rootdel/a/b", "x");
    assert_int_equal(status_of("DELETE", "/v1/files/?recursive=true", NULL), 204);
    struct stat sb;
    assert_int_equal(stat(ts.fx.root, &sb), 0);
    assert_int_equal(fx_count(ts.fx.root, ""), 0);
    assert_true(fx_exists(ts.fx.outside, "secret"));
}

static void test_percent_decoding(void **state)
{
    (void)state;
    put_ok("/v1/files/enc%2Fsub%2Ffile", "slash");
    get_expect("/v1/files/enc/sub/file", "slash");
    put_ok("/v1/files/enc/sp%20ace%3F%23%25%C3%A9", "odd");
    assert_true(fx_exists(ts.fx.root, "enc/sp ace?#%\xc3\xa9"));
    get_expect("/v1/files/enc/sp%20ace%3F%23%25%C3%A9", "odd");
    put_ok("/v1/files/enc/%252e%252e", "dd");
    assert_true(fx_exists(ts.fx.root, "enc/%2e%2e"));
    long s;
    json_t *j = get_json("/v1/files/enc", &s);
    json_t *entries = json_object_get(j, "entries");
    int found = 0;
    for (size_t i = 0; i < json_array_size(entries); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(entries, i), "name"));
        found += strcmp(n, "sp ace?#%\xc3\xa9") == 0 || strcmp(n, "%2e%2e") == 0;
    }
    assert_int_equal(found, 2);
    json_decref(j);
    /* A name that is not UTF-8 is still listed, as valid JSON text. */
    put_ok("/v1/files/enc8/bad%ffname", "x");
    j = get_json("/v1/files/enc8", &s);
    assert_int_equal(s, 200);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(j, "entries"), 0), "name")),
                        "bad\xef\xbf\xbdname");
    json_decref(j);
}

static void test_unresolvable(void **state)
{
    (void)state;
    put_ok("/v1/files/unres/a.txt", "a");
    fx_symlink("l2", ts.fx.root, "unres/l1");
    fx_symlink("l1", ts.fx.root, "unres/l2");
    fx_symlink("gone", ts.fx.root, "unres/dang");
    expect_error("GET", "/v1/files/unres/a.txt/x", NULL, 404);
    expect_error("GET", "/v1/files/unres/l1", NULL, 404);
    expect_error("GET", "/v1/files/unres/dang/x", NULL, 404);
    expect_error("DELETE", "/v1/files/unres/a.txt/x", NULL, 404);
    expect_error("DELETE", "/v1/files/unres/l1/x", NULL, 404);
    long s = status_of("PUT", "/v1/files/unres/a.txt/x", "x");
    assert_true(s == 400 || s == 409);
    s = status_of("PUT", "/v1/files/unres/l1/x", "x");
    assert_true(s == 400 || s == 409);
    s = status_of("PUT", "/v1/files/unres/dang/x", "x");
    assert_true(s == 400 || s == 409);
    /* A file named with a trailing slash is not there, for every method. */
    expect_error("GET", "/v1/files/unres/a.txt/", NULL, 404);
    expect_error("DELETE", "/v1/files/unres/a.txt/", NULL, 404);
    expect_error("PUT", "/v1/files/unres/a.txt/", "over", 409);
    expect_error("PUT", "/v1/files/unres/new/", "x", 400);
    put_ok("/v1/files/unres/adir/f", "f");
    expect_error("PUT", "/v1/files/unres/adir/", "x", 400);
    assert_false(fx_exists(ts.fx.root, "unres/new"));
    get_expect("/v1/files/unres/a.txt", "a");
}

static void test_routes(void **state)
{
    (void)state;
    expect_error("GET", "/v1/nothing", NULL, 404);
    expect_error("GET", "/", NULL, 404);
    expect_error("GET", "/v1/filesx", NULL, 404);
    struct http_resp r;
    req("POST", "/v1/files/x", "body", 4, &r);
    assert_int_equal(r.status, 405);
    assert_non_null(strstr(r.allow, "GET"));
    assert_non_null(strstr(r.allow, "PUT"));
    assert_non_null(strstr(r.content_type, "application/json"));
    http_resp_free(&r);
    req("DELETE", "/v1/health", NULL, 0, &r);
    assert_int_equal(r.status, 405);
    assert_non_null(strstr(r.allow, "GET"));
    http_resp_free(&r);
}

/* --- S: confinement --------------------------------------------------------- */

static void plant_outside(void)
{
    fx_write(ts.fx.outside, "secret", "OUTSIDE!");
    fx_mkdir(ts.fx.outside, "odir");
    fx_write(ts.fx.outside, "odir/inner", "OUTSIDE!");
}

static void assert_outside_intact(void)
{
    char buf[64];
    assert_int_equal(fx_read(ts.fx.outside, "secret", buf, sizeof(buf)), 8);
    assert_string_equal(buf, "OUTSIDE!");
    assert_int_equal(fx_read(ts.fx.outside, "odir/inner", buf, sizeof(buf)), 8);
    assert_int_equal(fx_count(ts.fx.outside, ""), 2);
    assert_int_equal(fx_count(ts.fx.outside, "odir"), 1);
}

static void test_traversal(void **state)
{
    (void)state;
    plant_outside();
    const char *targets[] = {"/v1/files/%2e%2e/outside/secret",
                             "/v1/files/%2E%2e/outside/secret",
                             "/v1/files/x/%2e%2e/%2e%2e/outside/secret",
                             "/v1/files/..%2foutside%2fsecret",
                             "/v1/files/../outside/secret",
                             "/v1/files/a/../../outside/secret",
                             "/v1/files/%2e%2e"};
    const char *methods[] = {"GET", "PUT", "DELETE"};
    for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
        for (size_t m = 0; m < 3; m++)
            expect_error(methods[m], targets[i], m == 1 ? "pwned" : NULL, 403);
        struct http_resp r;
        req("HEAD", targets[i], NULL, 0, &r);
        assert_int_equal(r.status, 403);
        http_resp_free(&r);
    }
    assert_outside_intact();
    /* Absolute-looking paths stay beneath the root. */
    char target[1024];
    snprintf(target, sizeof(target), "/v1/files/%s/secret", ts.fx.outside);
    expect_error("GET", target, NULL, 404);
    snprintf(target, sizeof(target), "/v1/files/%%2F%s/secret", ts.fx.outside + 1);
    expect_error("GET", target, NULL, 404);
    expect_error("GET", "/v1/files//etc/passwd", NULL, 404);
    put_ok("/v1/files//abs/x", "in");
    assert_true(fx_exists(ts.fx.root, "abs/x"));
    assert_outside_intact();
}

static void test_symlinks_out(void **state)
{
    (void)state;
    plant_outside();
    char abs[600];
    fx_mkdir(ts.fx.root, "sl");
    snprintf(abs, sizeof(abs), "%s/secret", ts.fx.outside);
    fx_symlink(abs, ts.fx.root, "sl/abs_file");
    fx_symlink("../../outside/secret", ts.fx.root, "sl/rel_file");
    snprintf(abs, sizeof(abs), "%s/odir", ts.fx.outside);
    fx_symlink(abs, ts.fx.root, "sl/abs_dir");
    fx_symlink("../../outside/odir", ts.fx.root, "sl/rel_dir");
    fx_symlink("rel_file", ts.fx.root, "sl/chain");
    fx_symlink("../../outside/nothere", ts.fx.root, "sl/dangling_out");
    const char *reads[] = {"/v1/files/sl/abs_file",     "/v1/files/sl/rel_file",
                           "/v1/files/sl/chain",        "/v1/files/sl/abs_dir",
                           "/v1/files/sl/rel_dir",      "/v1/files/sl/abs_dir/inner",
                           "/v1/files/sl/rel_dir/inner"};
    for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
        expect_error("GET", reads[i], NULL, 403);
        expect_error("PUT", reads[i], "pwned", 403);
    }
    expect_error("PUT", "/v1/files/sl/abs_dir/new", "pwned", 403);
    expect_error("PUT", "/v1/files/sl/rel_dir/sub/new", "pwned", 403);
    expect_error("PUT", "/v1/files/sl/dangling_out", "pwned", 403);
    expect_error("DELETE", "/v1/files/sl/abs_dir/inner", NULL, 403);
    long s = status_of("DELETE", "/v1/files/sl/abs_file", NULL);
    assert_true(s == 403 || s == 204);
    s = status_of("DELETE", "/v1/files/sl/rel_dir?recursive=true", NULL);
    assert_true(s == 403 || s == 204);
    assert_outside_intact();
    /* A recursive delete of a tree holding links out removes only links. */
    put_ok("/v1/files/sl2/keep", "x");
    fx_symlink(abs, ts.fx.root, "sl2/to_odir");
    assert_int_equal(status_of("DELETE", "/v1/files/sl2?recursive=true", NULL), 204);
    assert_false(fx_exists(ts.fx.root, "sl2"));
    assert_outside_intact();
    /* Links that stay inside work. */
    put_ok("/v1/files/sl3/real", "real");
    fx_symlink("real", ts.fx.root, "sl3/alias");
    get_expect("/v1/files/sl3/alias", "real");
    put_ok("/v1/files/sl3/alias", "through");
    get_expect("/v1/files/sl3/real", "through");
}

static void test_odd_paths(void **state)
{
    (void)state;
    plant_outside();
    expect_error("GET", "/v1/files/a%00b", NULL, 400);
    expect_error("PUT", "/v1/files/x%00/%2e%2e/y", "x", 400);
    expect_error("GET", "/v1/files/%zz", NULL, 400);
    expect_error("PUT", "/v1/files/bad%4", "x", 400);
    char name[400];
    memset(name, 'n', 300);
    name[300] = '\0';
    char target[8192];
    snprintf(target, sizeof(target), "/v1/files/%s", name);
    long s = status_of("PUT", target, "x");
    assert_true(s >= 400 && s < 500);
    size_t o = (size_t)snprintf(target, sizeof(target), "/v1/files/");
    while (o + 3 < 6000) {
        memcpy(target + o, "ab/", 3);
        o += 3;
    }
    target[o] = '\0';
    s = status_of("PUT", target, "x");
    assert_true(s >= 400 && s < 500);
    /* A backslash and overlong UTF-8 are bytes of a name. */
    put_ok("/v1/files/odd/back%5Cslash", "b");
    assert_true(fx_exists(ts.fx.root, "odd/back\\slash"));
    s = status_of("PUT", "/v1/files/odd/%c0%ae%c0%ae/x", "c");
    assert_true(s == 204 || (s >= 400 && s < 500));
    s = status_of("GET", "/v1/files/odd/..%5c..%5coutside%5csecret", NULL);
    assert_true(s == 404 || s == 400);
    assert_int_equal(status_of("GET", "/v1/health", NULL), 200);
    assert_outside_intact();
}

static void test_special_files(void **state)
{
    (void)state;
    char p[600];
    fx_mkdir(ts.fx.root, "sp");
    snprintf(p, sizeof(p), "%s/sp/fifo", ts.fx.root);
    assert_int_equal(mkfifo(p, 0644), 0);
    expect_error("GET", "/v1/files/sp/fifo", NULL, 400);
    struct http_resp r;
    req("HEAD", "/v1/files/sp/fifo", NULL, 0, &r);
    assert_true(r.status >= 400 && r.status < 500);
    http_resp_free(&r);
    expect_error("PUT", "/v1/files/sp/fifo", "x", 400);
    struct stat sb;
    assert_int_equal(lstat(p, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    /* Listing a directory holding a FIFO does not open it. */
    assert_int_equal(status_of("GET", "/v1/files/sp", NULL), 200);
}

/* --- C: concurrency ----------------------------------------------------- */

#define VERSION_SIZE (256 * 1024)

struct writer_arg {
    const char *target;
    int id;
    int rounds;
    int ok;
};

static void *writer(void *arg)
{
    struct writer_arg *w = arg;
    char *buf = malloc(VERSION_SIZE);
    if (!buf) return NULL;
    memset(buf, 'A' + w->id, VERSION_SIZE);
    for (int i = 0; i < w->rounds; i++) {
        struct http_resp r;
        if (http_do(ts.port, "PUT", w->target, buf, VERSION_SIZE, NULL, &r) == 0 && r.status == 204)
            w->ok++;
        http_resp_free(&r);
    }
    free(buf);
    return NULL;
}

static int uniform(const char *b, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (b[i] != b[0]) return 0;
    return 1;
}

static void test_write_read_concurrency(void **state)
{
    (void)state;
    put_ok("/v1/files/cc/target", "");
    struct writer_arg wa[3] = {{"/v1/files/cc/target", 0, 15, 0},
                               {"/v1/files/cc/target", 1, 15, 0},
                               {"/v1/files/cc/target", 2, 15, 0}};
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&th[i], NULL, writer, &wa[i]), 0);
    int reads = 0;
    for (int i = 0; i < 60; i++) {
        struct http_resp r;
        if (http_do(ts.port, "GET", "/v1/files/cc/target", NULL, 0, NULL, &r) == 0 &&
            r.status == 200 && r.len > 0) {
            assert_int_equal(r.len, VERSION_SIZE);
            assert_true(uniform(r.body, r.len));
            reads++;
        }
        http_resp_free(&r);
    }
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    assert_true(wa[0].ok + wa[1].ok + wa[2].ok > 0);
    struct http_resp r;
    req("GET", "/v1/files/cc/target", NULL, 0, &r);
    assert_int_equal(r.len, VERSION_SIZE);
    assert_true(uniform(r.body, r.len));
    http_resp_free(&r);
    assert_int_equal(temp_files_in("cc"), 0);
    printf("concurrent reads checked: %d\n", reads);
}

static void test_write_delete_concurrency(void **state)
{
    (void)state;
    struct writer_arg wa = {"/v1/files/wd/dir/file", 3, 20, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, writer, &wa), 0);
    for (int i = 0; i < 40; i++)
        status_of("DELETE", "/v1/files/wd?recursive=true", NULL);
    pthread_join(th, NULL);
    struct http_resp r;
    req("GET", "/v1/files/wd/dir/file", NULL, 0, &r);
    if (r.status == 200) {
        assert_int_equal(r.len, VERSION_SIZE);
        assert_true(uniform(r.body, r.len));
        assert_int_equal(temp_files_in("wd/dir"), 0);
    } else {
        assert_int_equal(r.status, 404);
    }
    http_resp_free(&r);
}

/* C4: the download has started; the file is deleted; the download completes. */
struct slow_reader {
    atomic_int got_first;
    atomic_int deleted;
    size_t len;
    unsigned long long sum;
};

static size_t slow_body(char *p, size_t sz, size_t n, void *ud)
{
    struct slow_reader *s = ud;
    size_t len = sz * n;
    for (size_t i = 0; i < len; i++)
        s->sum += (unsigned char)p[i];
    s->len += len;
    atomic_store(&s->got_first, 1);
    for (int i = 0; i < 500 && !atomic_load(&s->deleted); i++)
        usleep(10000);
    return len;
}

static void *download(void *arg)
{
    struct slow_reader *s = arg;
    CURL *c = curl_easy_init();
    char url[256];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/files/c4/big", ts.port);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, slow_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_BUFFERSIZE, 16384L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_perform(c);
    curl_easy_cleanup(c);
    return NULL;
}

static void test_delete_during_download(void **state)
{
    (void)state;
    size_t n = 32u << 20;
    char *big = malloc(n);
    assert_non_null(big);
    unsigned long long sum = 0;
    for (size_t i = 0; i < n; i++) {
        big[i] = (char)(i * 7 + (i >> 11));
        sum += (unsigned char)big[i];
    }
    struct http_resp r;
    req("PUT", "/v1/files/c4/big", big, n, &r);
    assert_int_equal(r.status, 204);
    http_resp_free(&r);
    free(big);
    struct slow_reader s = {0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, download, &s), 0);
    for (int i = 0; i < 1000 && !atomic_load(&s.got_first); i++)
        usleep(10000);
    assert_true(atomic_load(&s.got_first));
    assert_int_equal(status_of("DELETE", "/v1/files/c4/big", NULL), 204);
    atomic_store(&s.deleted, 1);
    pthread_join(th, NULL);
    assert_int_equal(s.len, n);
    assert_true(s.sum == sum);
}

/* C5: an upload that trickles in does not hold up other requests. */
struct trickle {
    atomic_int sent;
    atomic_int release;
    atomic_int done;
    long status;
};

static size_t trickle_read(char *buf, size_t sz, size_t n, void *ud)
{
    struct trickle *t = ud;
    (void)sz;
    (void)n;
    if (atomic_load(&t->sent) >= 20) return 0;
    if (atomic_load(&t->sent) == 10)
        for (int i = 0; i < 1000 && !atomic_load(&t->release); i++)
            usleep(5000);
    else
        usleep(20000);
    buf[0] = 'x';
    atomic_fetch_add(&t->sent, 1);
    return 1;
}

static void *trickle_upload(void *arg)
{
    struct trickle *t = arg;
    CURL *c = curl_easy_init();
    char url[256];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/files/c5/slow", ts.port);
    struct curl_slist *hl = curl_slist_append(NULL, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, trickle_read);
    curl_easy_setopt(c, CURLOPT_READDATA, t);
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)20);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &t->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    atomic_store(&t->done, 1);
    return NULL;
}

static void test_slow_upload_does_not_block(void **state)
{
    (void)state;
    put_ok("/v1/files/c5/other", "other");
    struct trickle t = {0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, trickle_upload, &t), 0);
    for (int i = 0; i < 1000 && atomic_load(&t.sent) < 10; i++)
        usleep(5000);
    assert_int_equal(atomic_load(&t.sent), 10);
    /* The upload is stalled mid-body until released: these must answer. */
    assert_int_equal(status_of("GET", "/v1/health", NULL), 200);
    get_expect("/v1/files/c5/other", "other");
    put_ok("/v1/files/c5/third", "3");
    assert_false(atomic_load(&t.done));
    atomic_store(&t.release, 1);
    pthread_join(th, NULL);
    assert_int_equal(t.status, 204);
    get_expect("/v1/files/c5/slow", "xxxxxxxxxxxxxxxxxxxx");
}

/* An upload whose client goes away leaves no temporary file. */
static void test_abandoned_upload(void **state)
{
    (void)state;
    put_ok("/v1/files/ab/keep", "old");
    const char head[] = "PUT /v1/files/ab/keep HTTP/1.1\r\nHost: x\r\n"
                        "Content-Length: 100000\r\n\r\npartial body";
    char out[256];
    raw_exchange(ts.port, head, sizeof(head) - 1, out, sizeof(out), 300);
    for (int i = 0; i < 200 && temp_files_in("ab") > 0; i++)
        usleep(10000);
    assert_int_equal(temp_files_in("ab"), 0);
    get_expect("/v1/files/ab/keep", "old");
}

/* Clients that hang up right after their last body bytes, the FIN queued
 * behind data the server is still reading: the server notices at once, not
 * at the idle timeout (10 s here), and removes the temporary files. The
 * announced length is over what the server takes in before it makes the
 * temporary file (on the headers, during the pause); what is sent is under
 * what it gathers before a write, so no write makes it read again. */
static void test_upload_hung_up_with_last_bytes(void **state)
{
    (void)state;
    put_ok("/v1/files/hu/keep", "old");
    const char head[] = "PUT /v1/files/hu/keep HTTP/1.1\r\nHost: x\r\n"
                        "Content-Length: 4000000\r\n\r\n";
    static char body[200 * 1000];
    memset(body, 'x', sizeof(body));
    for (int round = 0; round < 10; round++) {
        int fd = raw_connect(ts.port);
        assert_true(fd >= 0);
        assert_int_equal(send(fd, head, sizeof(head) - 1, MSG_NOSIGNAL),
                         (ssize_t)(sizeof(head) - 1));
        for (int i = 0; i < 300 && temp_files_in("hu") == 0; i++)
            usleep(10000);
        assert_int_equal(temp_files_in("hu"), 1);
        assert_int_equal(send(fd, body, sizeof(body), MSG_NOSIGNAL), (ssize_t)sizeof(body));
        close(fd);
        for (int i = 0; i < 300 && temp_files_in("hu") > 0; i++)
            usleep(10000);
        assert_int_equal(temp_files_in("hu"), 0);
    }
    get_expect("/v1/files/hu/keep", "old");
}

/* Reads from fd until want appears in what was read (true), the peer
 * closes or 2 s pass (false). */
static bool read_until(int fd, char *buf, size_t cap, const char *want)
{
    size_t got = 0;
    buf[0] = '\0';
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    while (!strstr(buf, want) && got + 1 < cap) {
        ssize_t k = recv(fd, buf + got, cap - 1 - got, 0);
        if (k <= 0) return false;
        got += (size_t)k;
        buf[got] = '\0';
    }
    return strstr(buf, want) != NULL;
}

/* A small PUT whose client waits for 100 Continue gets it before any
 * check, and its answer after the body; a refused one (bad mode) too, and
 * the connection stays open for the next request. */
static void test_small_put_with_expect(void **state)
{
    (void)state;
    int fd = raw_connect(ts.port);
    assert_true(fd >= 0);
    static const char *const targets[] = {"/v1/files/ex/ok", "/v1/files/ex/bad?mode=9"};
    static const char *const answers[] = {"HTTP/1.1 204", "HTTP/1.1 400"};
    char buf[4096], head[256];
    for (int i = 0; i < 2; i++) {
        int n = snprintf(head, sizeof(head),
                         "PUT %s HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                         "Expect: 100-continue\r\n\r\n",
                         targets[i]);
        assert_int_equal(send(fd, head, (size_t)n, MSG_NOSIGNAL), n);
        assert_true(read_until(fd, buf, sizeof(buf), "\r\n\r\n"));
        assert_non_null(strstr(buf, "HTTP/1.1 100 Continue"));
        assert_int_equal(send(fd, "hello", 5, MSG_NOSIGNAL), 5);
        /* The 204 ends with its header block, the 400 with its JSON body. */
        assert_true(read_until(fd, buf, sizeof(buf), i == 0 ? "\r\n\r\n" : "}"));
        assert_non_null(strstr(buf, answers[i]));
    }
    const char get[] = "GET /v1/files/ex/ok HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(send(fd, get, sizeof(get) - 1, MSG_NOSIGNAL), (ssize_t)(sizeof(get) - 1));
    assert_true(read_until(fd, buf, sizeof(buf), "hello"));
    close(fd);
    char p[1024];
    struct stat sb;
    snprintf(p, sizeof(p), "%s/ex/bad", ts.fx.root);
    assert_int_not_equal(lstat(p, &sb), 0);
    assert_int_equal(temp_files_in("ex"), 0);
}

static void test_race_swap(void **state);

/* Stopping the server closes idle keep-alive connections instead of waiting
 * for their idle timeout (60 s here; the bound is 20 s). */
struct stopper {
    struct rest_server *srv;
    atomic_int done;
};

static void *stop_thread(void *arg)
{
    struct stopper *s = arg;
    rest_server_stop(s->srv);
    atomic_store(&s->done, 1);
    return NULL;
}

static void test_stop_with_idle_connection(void **state)
{
    (void)state;
    struct daemon_config c2 = ts.cfg;
    c2.http_idle_timeout_ms = 60000;
    struct daemon_state s2 = {.cfg = &c2, .root_fd = ts.fx.root_fd, .started = ts.st.started};
    char err[256];
    struct stopper sp = {rest_server_start(&s2, err, sizeof(err)), 0};
    assert_non_null(sp.srv);
    int fd = raw_connect(s2.bound_rest_port);
    assert_true(fd >= 0);
    const char req[] = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL), (ssize_t)(sizeof(req) - 1));
    char buf[512];
    assert_true(recv(fd, buf, sizeof(buf), 0) > 0); /* answered; connection left open */
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, stop_thread, &sp), 0);
    for (int i = 0; i < 2000 && !atomic_load(&sp.done); i++)
        usleep(10000);
    assert_true(atomic_load(&sp.done));
    pthread_join(th, NULL);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_health),
        cmocka_unit_test(test_metadata),
        cmocka_unit_test(test_put_get_roundtrip),
        cmocka_unit_test(test_overwrites_release_replaced_files),
        cmocka_unit_test(test_put_large_streamed),
        cmocka_unit_test(test_put_modes),
        cmocka_unit_test(test_put_parents_and_dirs),
        cmocka_unit_test(test_put_multipart),
        cmocka_unit_test(test_get_ranges_and_head),
        cmocka_unit_test(test_listing),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_percent_decoding),
        cmocka_unit_test(test_unresolvable),
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_traversal),
        cmocka_unit_test(test_symlinks_out),
        cmocka_unit_test(test_odd_paths),
        cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_write_read_concurrency),
        cmocka_unit_test(test_write_delete_concurrency),
        cmocka_unit_test(test_delete_during_download),
        cmocka_unit_test(test_slow_upload_does_not_block),
        cmocka_unit_test(test_abandoned_upload),
        cmocka_unit_test(test_upload_hung_up_with_last_bytes),
        cmocka_unit_test(test_small_put_with_expect),
        cmocka_unit_test(test_race_swap),
        cmocka_unit_test(test_stop_with_idle_connection),
        cmocka_unit_test(test_delete_root),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

/* S7: a thread swaps a directory for a symlink to the outside while the
 * client reads and writes through it. */
struct swapper {
    atomic_int stop;
};

static void *swap_loop(void *arg)
{
    struct swapper *s = arg;
    char a[700], b[700];
    snprintf(a, sizeof(a), "%s/race/d", ts.fx.root);
    snprintf(b, sizeof(b), "%s/race/link", ts.fx.root);
    for (int i = 0; i < 5000000 && !atomic_load(&s->stop); i++)
        renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
    return NULL;
}

static void test_race_swap(void **state)
{
    (void)state;
    plant_outside();
    put_ok("/v1/files/race/d/secret", "inside!!");
    char abs[600];
    snprintf(abs, sizeof(abs), "%s/odir", ts.fx.outside);
    fx_symlink(abs, ts.fx.root, "race/link");
    fx_write(ts.fx.outside, "odir/secret", "OUTSIDE!");
    struct swapper s = {0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, swap_loop, &s), 0);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int ok = 0;
    for (int i = 0; i < 3000; i++) {
        struct http_resp r;
        http_do(ts.port, "GET", "/v1/files/race/d/secret", NULL, 0, NULL, &r);
        if (r.status == 200) {
            assert_string_equal(r.body, "inside!!");
            ok++;
        }
        http_resp_free(&r);
        http_do(ts.port, "PUT", "/v1/files/race/d/written", "x", 1, NULL, &r);
        http_resp_free(&r);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= 3) break;
    }
    atomic_store(&s.stop, 1);
    pthread_join(th, NULL);
    printf("race: %d reads inside\n", ok);
    assert_false(fx_exists(ts.fx.outside, "odir/written"));
    char buf[64];
    assert_int_equal(fx_read(ts.fx.outside, "odir/secret", buf, sizeof(buf)), 8);
    assert_string_equal(buf, "OUTSIDE!");
    /* remove the extra file so later checks of the outside count hold */
    char p[700];
    snprintf(p, sizeof(p), "%s/odir/secret", ts.fx.outside);
    unlink(p);
}
