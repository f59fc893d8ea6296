/* SPDX-License-Identifier: Apache-2.0 */
/* S9: special files inside the root (a FIFO, a unix socket) made through
 * the process API never block a request or the daemon: GET, HEAD and PUT
 * answer promptly with a 4xx Error, and health stays prompt afterwards;
 * also when they are reached through a symlink that stays inside the root. */
#include "case_api.h"
#include "common/conf_util.h"
#include "common/rest_expect.h"
#include "rest_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Generous for a loaded machine: a blocked open never answers at all. */
#define PROMPT_MS 6000L
#define HEALTH_MS 5000L

/* Opening the FIFO read-write (never blocks on Linux) completes any open()
 * the daemon is stuck in, and closing it gives a stuck reader end-of-file,
 * so one blocked request does not hold the daemon for the rest of the run. */
static void unblock_fifo(struct case_ctx *ctx, const char *name)
{
    char *q = conf_sh_quote(name);
    char *script =
        conf_xasprintf("if [ -p %s ]; then exec 3<> %s; sleep 0.2; exec 3>&-; fi; exit 0", q, q);
    char why[200];
    conf_sh(ctx, script, NULL, why, sizeof why);
    free(script);
    free(q);
}

static void special_request(struct case_ctx *ctx, const char *method, const char *name,
                            const char *kind)
{
    char *rel = conf_xasprintf("%s/%s", case_dir(ctx), name);
    char *target = rest_files_target(rel);
    static const char *const octet[] = {"Content-Type: application/octet-stream", NULL};
    static const char body[] = "written into a special file";
    bool put = strcmp(method, "PUT") == 0;
    struct http_request req = {.method = method,
                               .target = target,
                               .body = put ? body : NULL,
                               .body_len = put ? sizeof body - 1 : 0,
                               .headers = put ? octet : NULL,
                               .timeout_ms = PROMPT_MS,
                               .max_body = 64 * 1024};
    struct http_response resp = {0};
    case_request(ctx, "%s %s (%s, %ld ms timeout)", method, target, kind, PROMPT_MS);
    int rc = rest_do(ctx, &req, &resp);
    if (rc != 0) {
        case_fail(ctx, "a prompt 4xx Error for a special file",
                  "no response within %.1f s (%s): the request blocks", PROMPT_MS / 1000.0,
                  resp.error);
    } else if (resp.status < 400 || resp.status >= 500) {
        char *pv = http_body_preview(&resp, 160);
        case_fail(ctx, "a 4xx Error for a special file", "status %ld, body %s", resp.status,
                  pv ? pv : "");
        free(pv);
    } else if (strcmp(method, "HEAD") != 0) {
        char why[200];
        if (!conf_error_body_ok(&resp, conf_error_code_for_status(resp.status), why, sizeof why))
            case_fail(ctx, "a 4xx Error body", "status %ld: %s", resp.status, why);
    }
    http_response_free(&resp);
    free(target);
    free(rel);
    if (strcmp(kind, "FIFO") == 0) unblock_fifo(ctx, name);
    long hs;
    double secs;
    case_request(ctx, "GET /v1/health (after %s on the %s)", method, kind);
    if (!conf_health_ok(case_rest_addr(ctx), HEALTH_MS, &hs, &secs))
        case_fail(ctx, "/v1/health answers 200 within 5 s",
                  "status %ld after %.1f s: the daemon is stalled", hs, secs);
}

static void listing_prompt(struct case_ctx *ctx, const char *kind)
{
    char *target = rest_files_target(case_dir(ctx));
    struct http_request req = {.method = "GET", .target = target, .timeout_ms = PROMPT_MS};
    struct http_response resp = {0};
    case_request(ctx, "GET %s (directory holding a %s)", target, kind);
    if (rest_do(ctx, &req, &resp) != 0)
        case_fail(ctx, "the listing of a directory holding a special file answers promptly",
                  "no response within %.1f s (%s)", PROMPT_MS / 1000.0, resp.error);
    http_response_free(&resp);
    free(target);
}

/* Makes the FIFO `fifo` in the case directory through Execute; false (the
 * case failed or skipped, with the reason) when it cannot. */
static bool make_fifo(struct case_ctx *ctx)
{
    char why[300];
    int rc = conf_sh(ctx, "mkfifo fifo && [ -p fifo ]", NULL, why, sizeof why);
    if (rc < 0) {
        case_fail(ctx, "Execute (P1) runs mkfifo to make the FIFO", "%s", why);
        return false;
    }
    if (rc != 0) {
        case_skip(ctx, "cannot make a FIFO in the runtime with mkfifo: %s", why);
        return false;
    }
    return true;
}

static void s9_fifo(struct case_ctx *ctx)
{
    char why[300];
    if (!make_fifo(ctx)) return;
    special_request(ctx, "GET", "fifo", "FIFO");
    special_request(ctx, "HEAD", "fifo", "FIFO");
    special_request(ctx, "PUT", "fifo", "FIFO");
    listing_prompt(ctx, "FIFO");
    unblock_fifo(ctx, "fifo");
    conf_sh(ctx, "rm -f fifo", NULL, why, sizeof why);
}
SBX_CASE(s9_fifo, .id = "S9-001", .title = "GET, HEAD and PUT of a FIFO answer promptly with 4xx",
         .clauses = "S9", .level = LEVEL_SHOULD, .tags = "files,errors", .timeout_s = 60,
         .catches = "opening a FIFO like a regular file, so GET or HEAD hangs waiting for a "
                    "writer (and stalls the daemon, its health and its shutdown), or PUT writes "
                    "into the pipe or replaces it",
         .how = "makes a FIFO with Execute `mkfifo`; GET, HEAD and PUT on it must each answer a "
                "4xx (with an Error body except HEAD) within 6 s, the directory's listing within "
                "6 s, and /v1/health 200 within 5 s after each; a stuck open is released "
                "afterwards (the FIFO is opened read-write through Execute) so the run goes on");

/* Makes the bound unix socket file `sock` in the case directory with
 * whatever the runtime's host offers: python3, perl (Debian's perl-base is
 * in every Debian image, slim ones included), socat or nc -U. conf_sh's
 * result: 0 made, > 0 no tool, < 0 Execute failed. */
static int make_socket(struct case_ctx *ctx, char *why, size_t whylen)
{
    const char *script =
        "rm -f sock\n"
        "if command -v python3 >/dev/null 2>&1; then\n"
        "  python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind(\"sock\")' "
        "2>/dev/null\n"
        "fi\n"
        "if [ ! -S sock ] && command -v perl >/dev/null 2>&1; then\n"
        "  perl -MSocket -e 'socket(S, AF_UNIX, SOCK_STREAM, 0) && "
        "bind(S, pack_sockaddr_un(\"sock\")) or exit 1' 2>/dev/null\n"
        "fi\n"
        "if [ ! -S sock ] && command -v socat >/dev/null 2>&1; then\n"
        "  socat UNIX-LISTEN:sock /dev/null & p=$!; sleep 0.3; kill $p 2>/dev/null\n"
        "fi\n"
        "if [ ! -S sock ] && command -v nc >/dev/null 2>&1; then\n"
        "  nc -lU sock >/dev/null 2>&1 & p=$!; sleep 0.3; kill $p 2>/dev/null\n"
        "fi\n"
        "[ -S sock ]\n";
    return conf_sh(ctx, script, NULL, why, whylen);
}

static void s9_socket(struct case_ctx *ctx)
{
    char why[300];
    int rc = make_socket(ctx, why, sizeof why);
    if (rc < 0) {
        case_fail(ctx, "Execute (P1) runs a shell to make the socket file", "%s", why);
        return;
    }
    if (rc != 0) {
        case_skip(ctx, "cannot make a unix socket file in the runtime (no python3, perl, "
                       "socat or nc -U)");
        return;
    }
    special_request(ctx, "GET", "sock", "socket");
    special_request(ctx, "HEAD", "sock", "socket");
    special_request(ctx, "PUT", "sock", "socket");
    listing_prompt(ctx, "socket");
    conf_sh(ctx, "rm -f sock", NULL, why, sizeof why);
}
SBX_CASE(
    s9_socket, .id = "S9-002",
    .title = "GET, HEAD and PUT of a unix socket file answer promptly with 4xx", .clauses = "S9",
    .level = LEVEL_SHOULD, .tags = "files,errors", .timeout_s = 60,
    .catches = "a socket file opened like a regular file: 500 from ENXIO, a hang, or a PUT "
               "that replaces it",
    .how = "makes a bound unix socket file through Execute (python3, perl, socat or "
           "nc -U, whichever the runtime has; skipped if none); GET, HEAD and PUT must each answer "
           "a 4xx (with an Error body except HEAD) within 6 s and /v1/health stays prompt");

/* The type a listing gives name (malloc'd), or NULL when it is not listed. */
static char *listed_type(const json_t *listing, const char *name)
{
    const char *t = entry_type(listing_entry(listing, name));
    return t ? conf_xstrdup(t) : NULL;
}

/* Links that stay inside the root lead to the special file `target`: the
 * name's own type must not decide (S9 through S2's in-root links), and the
 * listing reports each link by its target's type (F8). */
static void special_through_links(struct case_ctx *ctx, const char *target, const char *kind)
{
    char why[300];
    char *q = conf_sh_quote(target);
    char *script = conf_xasprintf("mkdir -p sub && ln -s %s via-%s && ln -s ../%s sub/via-%s && "
                                  "ln -s via-%s chain-%s",
                                  q, target, target, target, target, target);
    int rc = conf_sh(ctx, script, NULL, why, sizeof why);
    free(script);
    free(q);
    if (rc != 0) {
        case_fail(ctx, "Execute (P1) runs ln -s to make links to the special file", "%s", why);
        return;
    }
    char names[3][96];
    snprintf(names[0], sizeof names[0], "via-%s", target);
    snprintf(names[1], sizeof names[1], "sub/via-%s", target);
    snprintf(names[2], sizeof names[2], "chain-%s", target);
    static const char *const methods[] = {"GET", "HEAD", "PUT"};
    for (int n = 0; n < 3; n++)
        for (int m = 0; m < 3; m++)
            special_request(ctx, methods[m], names[n], kind);
    /* Refused, so nothing changed: the links are links, the file special. */
    char *check = conf_xasprintf("for l in via-%s sub/via-%s chain-%s; do [ -L $l ] || echo $l; "
                                 "done; [ -p %s ] || [ -S %s ] || echo %s",
                                 target, target, target, target, target, target);
    char *out = NULL;
    if (conf_sh(ctx, check, &out, why, sizeof why) == 0)
        CASE_CHECK(ctx, !out || strspn(out, " \n") == strlen(out),
                   "the links and the special file unchanged by the refused requests",
                   "replaced by another kind of file: %s", out);
    free(out);
    free(check);
    /* The listing: prompt (special_request's timeout bounds it too), and a
     * link listed by its target's type, never "symlink". */
    json_t *listing = rx_list(ctx, case_dir(ctx));
    if (listing) {
        char *own = listed_type(listing, target);
        for (int n = 0; n < 3; n += 2) {
            char *via = listed_type(listing, names[n]);
            if (via)
                CASE_CHECK(ctx, strcmp(via, "symlink") != 0 && (!own || strcmp(via, own) == 0),
                           "a link listed by its target's type (F8)", "%s listed as \"%s\", %s",
                           names[n], via,
                           own ? "its target as another type" : "its target not listed");
            free(via);
        }
        free(own);
        json_decref(listing);
    }
    char rm[300];
    snprintf(rm, sizeof rm, "rm -f via-%s sub/via-%s chain-%s", target, target, target);
    conf_sh(ctx, rm, NULL, why, sizeof why);
}

static void s9_through_links(struct case_ctx *ctx)
{
    char why[300];
    if (!make_fifo(ctx)) return;
    special_through_links(ctx, "fifo", "FIFO");
    unblock_fifo(ctx, "fifo");
    conf_sh(ctx, "rm -f fifo", NULL, why, sizeof why);
    /* A socket too, where the runtime's host has a tool to make one. */
    if (make_socket(ctx, why, sizeof why) == 0) {
        special_through_links(ctx, "sock", "socket");
        conf_sh(ctx, "rm -f sock", NULL, why, sizeof why);
    } else {
        case_note(ctx, "no unix socket file made (no python3, perl, socat or nc -U): FIFO only");
    }
}
SBX_CASE(s9_through_links, .id = "S9-003",
         .title = "A FIFO or socket reached through an in-root symlink answers promptly with 4xx",
         .clauses = "S9,F8", .level = LEVEL_SHOULD, .tags = "files,errors", .timeout_s = 120,
         .catches = "a special-file check made on the name (lstat): a symlink passes as not "
                    "special, the open follows it into the FIFO and GET or HEAD hangs; a PUT "
                    "that replaces the link or the FIFO; a link to it listed as a symlink",
         .how = "makes a FIFO (and a unix socket file where the runtime has python3, socat or "
                "nc -U) and three links to each that stay inside the root (via-fifo -> fifo, "
                "sub/via-fifo -> ../fifo, chain-fifo -> via-fifo) through Execute; GET, HEAD "
                "and PUT through each must answer a 4xx (with an Error body except HEAD) within "
                "6 s with /v1/health prompt after each, Execute must then find the links and "
                "the FIFO unchanged, and the listing must report each listed link with its "
                "target's type");
