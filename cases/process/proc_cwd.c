/* SPDX-License-Identifier: Apache-2.0 */
/* P4: the working directory of Execute, resolved beneath the sandbox root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proc_util.h"

/* Number of path components of the case directory (its depth below root). */
static int case_depth(struct case_ctx *ctx)
{
    int n = 1;
    for (const char *p = case_dir(ctx); *p; p++)
        if (*p == '/' && p[1] && p[1] != '/') n++;
    return n;
}

/* "../" repeated n times without the final slash. */
static void dotdots(char *out, size_t cap, int n)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s..", i ? "/" : "");
}

/* Execute `cat <marker-rel>` with the given cwd; true when the marker's
 * content comes back (so the process ran where we think). */
static bool runs_in(struct case_ctx *ctx, const char *cwd, const char *marker_rel,
                    const char *content, const char *expected)
{
    char script[1024];
    snprintf(script, sizeof script, "cat '%s'", marker_rel);
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = cwd};
    struct rpc_result r;
    rpc_execute(ctx, &spec, &r);
    bool ok = r.code == SBX_GRPC_OK && r.exit_code == 0 && r.out_len == strlen(content) &&
              memcmp(r.out, content, r.out_len) == 0;
    if (!ok) {
        char *e = pu_preview(r.err, r.err_len, 200);
        if (r.code != SBX_GRPC_OK)
            case_fail(ctx, expected, "cwd %s%s%s: status %d (%s)", cwd ? "\"" : "",
                      cwd ? cwd : "absent", cwd ? "\"" : "", r.code, r.message ? r.message : "");
        else
            case_fail(ctx, expected, "cwd %s%s%s: `%s` gave exit %d, stderr %s", cwd ? "\"" : "",
                      cwd ? cwd : "absent", cwd ? "\"" : "", script, (int)r.exit_code, e ? e : "?");
        free(e);
    }
    rpc_result_free(&r);
    return ok;
}

static void cwd_default_root(struct case_ctx *ctx)
{
    char token[64], script[256], rel[512];
    snprintf(token, sizeof token, "root-marker-%016llx", (unsigned long long)case_rand(ctx));
    snprintf(script, sizeof script, "printf %s > p4-marker", token);
    if (!pu_sh_ok(ctx, script, "set-up: writing a marker file in the case directory", NULL)) return;
    snprintf(rel, sizeof rel, "%s/p4-marker", case_dir(ctx));
    runs_in(ctx, NULL, rel, token, "without cwd the process starts in the sandbox root");
    runs_in(ctx, "", rel, token, "with an empty cwd the process starts in the sandbox root");
}
SBX_CASE(cwd_default_root, .id = "P4-001",
         .title = "Without cwd (or with an empty one) the process starts in the root",
         .clauses = "P4", .level = LEVEL_MUST, .tags = "process", .timeout_s = 20,
         .catches = "the daemon's own working directory (or another default) used when cwd is "
                    "absent or empty",
         .how = "writes a marker in the case directory, then reads it with the path relative "
                "to the root, once without cwd and once with cwd \"\"");

static void cwd_relative(struct case_ctx *ctx)
{
    char token[64], script[256];
    snprintf(token, sizeof token, "rel-marker-%016llx", (unsigned long long)case_rand(ctx));
    snprintf(script, sizeof script, "mkdir -p n1/n2/n3 && printf %s > m && printf %s > n1/n2/n3/m",
             token, token);
    if (!pu_sh_ok(ctx, script, "set-up: creating nested directories and markers", NULL)) return;
    const char *d = case_dir(ctx);
    char cwd[1024];
    runs_in(ctx, d, "m", token, "a relative cwd resolved beneath the root");
    snprintf(cwd, sizeof cwd, "%s/", d);
    runs_in(ctx, cwd, "m", token, "a relative cwd with a trailing slash resolved beneath the root");
    snprintf(cwd, sizeof cwd, "./%s", d);
    runs_in(ctx, cwd, "m", token, "a relative cwd starting with ./ resolved beneath the root");
    snprintf(cwd, sizeof cwd, "%s/n1/n2/n3", d);
    runs_in(ctx, cwd, "m", token, "a nested relative cwd resolved beneath the root");
    snprintf(cwd, sizeof cwd, "%s/n1/../n1/n2/n3", d);
    runs_in(ctx, cwd, "m", token, "a relative cwd with a `..` that stays inside the root");

    /* Start resolves cwd the same way. */
    snprintf(cwd, sizeof cwd, "%s/n1/n2/n3", d);
    struct rpc_spec sspec = {.argv = PU_ARGV("cat", "m"), .cwd = cwd};
    struct pu_stream ps = {.label = "Start of `cat m` in a nested relative cwd"};
    if (pu_start(ctx, &ps, &sspec, NULL, 10000) && pu_finish(&ps, 10000))
        CASE_CHECK(ctx,
                   ps.exit_code == 0 && ps.out_len == strlen(token) &&
                       memcmp(ps.out, token, ps.out_len) == 0,
                   "Start: a nested relative cwd resolved beneath the root",
                   "exit_code %d, stdout %.*s", (int)ps.exit_code, (int)ps.out_len,
                   ps.out ? (const char *)ps.out : "");
    pu_free(&ps);

    /* The process's own view: pwd ends with the case directory. */
    snprintf(cwd, sizeof cwd, "%s/n1/n2/n3", d);
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", "pwd -P"), .cwd = cwd};
    struct rpc_result r;
    rpc_execute(ctx, &spec, &r);
    if (r.code == SBX_GRPC_OK && r.exit_code == 0) {
        char suffix[1100];
        snprintf(suffix, sizeof suffix, "/%s/n1/n2/n3\n", d);
        size_t sl = strlen(suffix);
        CASE_CHECK(ctx, r.out_len >= sl && memcmp(r.out + r.out_len - sl, suffix, sl) == 0,
                   "pwd -P ending with the nested case directory", "pwd printed %.*s",
                   (int)r.out_len, (const char *)r.out);
    } else {
        case_fail(ctx, "pwd in a nested cwd to succeed", "status %d, exit %d", r.code,
                  (int)r.exit_code);
    }
    rpc_result_free(&r);
}
SBX_CASE(cwd_relative, .id = "P4-002",
         .title = "A relative cwd is resolved beneath the root (nested, ./, trailing /, inner ..)",
         .clauses = "P4", .level = LEVEL_MUST, .tags = "process", .timeout_s = 30,
         .catches = "cwd ignored, resolved against the daemon's directory, or nested paths "
                    "refused",
         .how = "creates markers in the case directory and three levels below, then reads "
                "them through relative paths with several spellings of cwd (Execute), and "
                "with a nested cwd through Start");

/* An escaping cwd: PERMISSION_DENIED and no process (the command would
 * create an absolute marker file inside the case directory). */
static void expect_denied(struct case_ctx *ctx, const char *cwd, const char *marker_abs,
                          const char *marker_rel)
{
    char script[1200];
    snprintf(script, sizeof script, "echo ran >> '%s'", marker_abs);
    struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = cwd};
    struct rpc_result r;
    rpc_execute(ctx, &spec, &r);
    CASE_CHECK(ctx, r.code == SBX_GRPC_PERMISSION_DENIED,
               "PERMISSION_DENIED (7) for a cwd outside the root", "cwd \"%s\": status %d (%s)%s",
               cwd, r.code, r.message ? r.message : "",
               r.code == SBX_GRPC_OK ? ", the process ran" : "");
    rpc_result_free(&r);
    int ex = pu_exists(ctx, marker_rel);
    CASE_CHECK(ctx, ex == 0, "no process started for a cwd outside the root",
               "cwd \"%s\": the command's marker file %s", cwd,
               ex == 1 ? "was created" : "could not be checked");
    if (ex == 1) pu_sh_ok(ctx, "rm -f escape-marker", "clean-up of the marker", NULL);
}

static void cwd_dotdot_escape(struct case_ctx *ctx)
{
    char *marker = pu_case_abs(ctx, "escape-marker");
    if (!marker) return;
    int depth = case_depth(ctx);
    char up[512], cwd[1024];
    expect_denied(ctx, "..", marker, "escape-marker");
    expect_denied(ctx, "../", marker, "escape-marker");
    expect_denied(ctx, "./..", marker, "escape-marker");
    dotdots(up, sizeof up, depth + 1);
    snprintf(cwd, sizeof cwd, "%s/%s", case_dir(ctx), up);
    expect_denied(ctx, cwd, marker, "escape-marker");
    dotdots(up, sizeof up, depth + 3);
    snprintf(cwd, sizeof cwd, "%s/%s/tmp", case_dir(ctx), up);
    expect_denied(ctx, cwd, marker, "escape-marker");
    free(marker);
}
SBX_CASE(cwd_dotdot_escape, .id = "P4-003",
         .title = "A cwd escaping the root by `..` fails with PERMISSION_DENIED, nothing runs",
         .clauses = "P4", .level = LEVEL_MUST, .tags = "process,traversal", .timeout_s = 30,
         .catches = "`..` resolved lexically past the root or against the host, the process "
                    "started anyway",
         .how = "sends cwds like .., ../, ./.., <case>/../../.., <case>/../../../../tmp; each "
                "must give "
                "PERMISSION_DENIED and the command (which appends to a marker file by "
                "absolute path) must not have run");

static void cwd_symlink_escape(struct case_ctx *ctx)
{
    char *marker = pu_case_abs(ctx, "escape-marker");
    if (!marker) return;
    char up[512], script[1024], cwd[1024];
    dotdots(up, sizeof up, case_depth(ctx) + 1);
    snprintf(script, sizeof script,
             "ln -s / esc-abs && ln -s '%s' esc-rel && ln -s esc-abs esc-chain && mkdir d && "
             "ln -s /tmp d/esc-tmp && ln -s ../esc-rel d/esc-up",
             up);
    if (!pu_sh_ok(ctx, script, "set-up: creating escaping symlinks in the case directory", NULL)) {
        free(marker);
        return;
    }
    static const char *const links[] = {"esc-abs",     "esc-rel",   "esc-chain",
                                        "esc-abs/tmp", "d/esc-tmp", "d/esc-up"};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(cwd, sizeof cwd, "%s/%s", case_dir(ctx), links[i]);
        expect_denied(ctx, cwd, marker, "escape-marker");
    }
    /* Control: links that stay inside the root are followed (S2), so a
     * runtime that refuses every symlink does not pass for a confined one. */
    char token[64];
    snprintf(token, sizeof token, "inside-%016llx", (unsigned long long)case_rand(ctx));
    snprintf(script, sizeof script,
             "mkdir -p in/deep && printf %s > in/deep/m && ln -s in/deep in-link && "
             "ln -s ../in d/up-in-link",
             token);
    if (pu_sh_ok(ctx, script, "set-up: creating symlinks that stay inside the root", NULL)) {
        snprintf(cwd, sizeof cwd, "%s/in-link", case_dir(ctx));
        runs_in(ctx, cwd, "m", token, "a cwd through a symlink that stays inside the root used");
        snprintf(cwd, sizeof cwd, "%s/d/up-in-link/deep", case_dir(ctx));
        runs_in(ctx, cwd, "m", token,
                "a cwd through a relative `..` symlink that stays inside the root used");
    }
    free(marker);
}
SBX_CASE(cwd_symlink_escape, .id = "P4-004",
         .title = "A cwd escaping the root through a symlink fails with PERMISSION_DENIED",
         .clauses = "P4,S2", .level = LEVEL_MUST, .tags = "process,traversal", .timeout_s = 40,
         .catches = "symlinks followed out of the root when resolving cwd (absolute, relative, "
                    "chained, as a parent component)",
         .how = "creates symlinks to /, to a relative path above the root, a chain, and links "
                "inside a subdirectory; each as cwd must give PERMISSION_DENIED and the "
                "command's marker file must not appear; links that stay inside the root must "
                "work as cwd (control)");

static void cwd_absolute(struct case_ctx *ctx)
{
    char token[64], script[256], rel[512], cwd[1024];
    snprintf(token, sizeof token, "abs-marker-%016llx", (unsigned long long)case_rand(ctx));
    snprintf(script, sizeof script, "printf %s > m", token);
    if (!pu_sh_ok(ctx, script, "set-up: writing a marker file", NULL)) return;
    snprintf(rel, sizeof rel, "%s/m", case_dir(ctx));
    runs_in(ctx, "/", rel, token, "cwd \"/\" taken as the sandbox root");
    snprintf(cwd, sizeof cwd, "/%s", case_dir(ctx));
    runs_in(ctx, cwd, "m", token, "an absolute cwd resolved beneath the root");
    char *abs = pu_case_abs(ctx, "");
    if (abs) {
        runs_in(ctx, abs, "m", token, "the root's own absolute path (and below) taken as it is");
        free(abs);
    }
}
SBX_CASE(cwd_absolute, .id = "P4-005", .title = "An absolute cwd is resolved beneath the root",
         .clauses = "P4", .level = LEVEL_SHOULD, .tags = "process,traversal", .timeout_s = 20,
         .catches = "an absolute cwd taken as a host path (\"/\" = host root)",
         .how = "reads a marker with cwd \"/\" (path relative to root), \"/<case dir>\" and "
                "\"<root's absolute path>/<case dir>\"");

static void cwd_missing(struct case_ctx *ctx)
{
    char cwd[1024];
    static const char *const tails[] = {"does-not-exist", "no/such/nested/dir"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(cwd, sizeof cwd, "%s/%s", case_dir(ctx), tails[i]);
        struct rpc_spec spec = {.argv = PU_ARGV("true"), .cwd = cwd};
        struct rpc_result r;
        rpc_execute(ctx, &spec, &r);
        CASE_CHECK(ctx, r.code == SBX_GRPC_NOT_FOUND, "NOT_FOUND (5) for a cwd that does not exist",
                   "cwd \"%s\": status %d (%s)", cwd, r.code, r.message ? r.message : "");
        rpc_result_free(&r);
    }
}
SBX_CASE(cwd_missing, .id = "P4-006", .title = "A cwd that does not exist fails with NOT_FOUND",
         .clauses = "P4", .level = LEVEL_SHOULD, .tags = "process,errors", .timeout_s = 20,
         .catches = "INTERNAL, UNKNOWN or a started process for a missing cwd",
         .how = "runs `true` with cwd <case>/does-not-exist and a missing nested path");

static void cwd_not_directory(struct case_ctx *ctx)
{
    if (!pu_sh_ok(ctx, "printf data > plain.txt", "set-up: writing a regular file", NULL)) return;
    char *marker = pu_case_abs(ctx, "notdir-marker");
    if (!marker) return;
    char cwd[1024], script[1200];
    snprintf(script, sizeof script, "echo ran >> '%s'", marker);
    static const char *const tails[] = {"plain.txt", "plain.txt/"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(cwd, sizeof cwd, "%s/%s", case_dir(ctx), tails[i]);
        struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = cwd};
        struct rpc_result r;
        rpc_execute(ctx, &spec, &r);
        /* Any code: which one is not fixed by the contract. */
        CASE_CHECK(ctx, r.code > 0, "an error status for a cwd that is a regular file",
                   "cwd \"%s\": status %d (%s)%s", cwd, r.code, r.message ? r.message : "",
                   r.code == SBX_GRPC_OK ? ": the process ran" : "");
        if (r.code > 0) case_note(ctx, "cwd \"%s\": status %d", cwd, r.code);
        rpc_result_free(&r);
    }
    CASE_CHECK(ctx, pu_exists(ctx, "notdir-marker") == 0,
               "no process started for a cwd that is a regular file",
               "the command's marker file was written");
    free(marker);
}
SBX_CASE(cwd_not_directory, .id = "P4-007",
         .title = "A cwd that is not a directory fails with an error status", .clauses = "P4",
         .level = LEVEL_MUST, .tags = "process,errors", .timeout_s = 20,
         .catches = "a file used as cwd silently replaced by another directory",
         .how = "runs a command that appends to a marker file with cwd set to a regular file "
                "(with and without a trailing slash); any gRPC error status passes (the code "
                "is noted), and the marker must not appear");

/* A Start that must be refused with `want` and must not run its command
 * (which appends to marker_rel). An InitEvent before the refusal is P8's
 * (SHOULD) business, noted here; a stream that runs the process fails. */
static void start_refused(struct case_ctx *ctx, const struct rpc_spec *spec, int want,
                          const char *expected)
{
    struct rpc_stream *s = rpc_start(ctx, spec, NULL);
    if (!s) {
        case_error(ctx, "out of memory");
        return;
    }
    const char *cwd = spec->cwd ? spec->cwd : "(absent)";
    bool init = false, exited = false, concluded = false;
    uint64_t end = case_now_ms() + 10000;
    for (int i = 0; i < 10000 && !concluded; i++) {
        uint64_t now = case_now_ms();
        if (now >= end) break;
        struct rpc_event ev;
        rpc_next(s, (unsigned)(end - now), &ev);
        /* The commands end at once if they run: no signal is needed (and an
         * id from a refused start may name nothing of this case's). */
        if (ev.kind == PEV_INIT) {
            init = true;
        } else if (ev.kind == PEV_EXIT) {
            exited = true;
        } else if (ev.kind == PEV_END || ev.kind == PEV_ERROR) {
            concluded = true;
            if (ev.kind == PEV_END && ev.code == SBX_GRPC_OK)
                case_fail(ctx, expected, "cwd \"%s\": status OK%s (a process was run)", cwd,
                          exited ? " after an ExitEvent" : "");
            else
                CASE_CHECK(ctx, ev.code == want, expected, "cwd \"%s\": status %d (%s)", cwd,
                           ev.code, ev.message ? ev.message : "");
            if (init && ev.code == want)
                case_note(ctx, "cwd \"%s\": an InitEvent came before the refusal (P8)", cwd);
        }
    }
    if (!concluded)
        case_fail(ctx, expected, "cwd \"%s\": the call did not end within 10 s%s", cwd,
                  init ? " (an InitEvent came: the process runs)" : "");
    rpc_stream_free(s);
}

static void start_cwd_confined(struct case_ctx *ctx)
{
    char *marker = pu_case_abs(ctx, "start-escape-marker");
    if (!marker) return;
    char up[512], script[1200], cwd[1024];
    dotdots(up, sizeof up, case_depth(ctx) + 1);
    snprintf(script, sizeof script, "ln -s / esc-abs && mkdir d && ln -s '../%s' d/esc-up", up);
    if (!pu_sh_ok(ctx, script, "set-up: creating escaping symlinks in the case directory", NULL)) {
        free(marker);
        return;
    }
    snprintf(script, sizeof script, "echo ran >> '%s'", marker);
    const char *denied = "Start with a cwd outside the root: PERMISSION_DENIED (7)";
    static const char *const plain[] = {"..", "./../.."};
    for (size_t i = 0; i < 2; i++) {
        struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = plain[i]};
        start_refused(ctx, &spec, SBX_GRPC_PERMISSION_DENIED, denied);
    }
    static const char *const links[] = {"esc-abs", "esc-abs/tmp", "d/esc-up"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(cwd, sizeof cwd, "%s/%s", case_dir(ctx), i == 0 ? up : links[i - 1]);
        struct rpc_spec spec = {.argv = PU_ARGV("sh", "-c", script), .cwd = cwd};
        start_refused(ctx, &spec, SBX_GRPC_PERMISSION_DENIED, denied);
    }
    int ex = pu_exists(ctx, "start-escape-marker");
    CASE_CHECK(ctx, ex == 0, "no process started by Start for a cwd outside the root",
               "the command's marker file %s", ex == 1 ? "was created" : "could not be checked");

    /* P5 holds for Start as for Execute. */
    struct rpc_spec empty = {.argv = PU_ARGV(NULL), .cwd = case_dir(ctx)};
    start_refused(ctx, &empty, SBX_GRPC_INVALID_ARGUMENT,
                  "Start with an empty command: INVALID_ARGUMENT (3)");
    struct rpc_spec none = {.argv = NULL};
    start_refused(ctx, &none, SBX_GRPC_INVALID_ARGUMENT,
                  "Start without config: INVALID_ARGUMENT (3)");
    free(marker);
}
SBX_CASE(start_cwd_confined, .id = "P4-008",
         .title = "Start refuses an escaping cwd (PERMISSION_DENIED, nothing runs) and an empty "
                  "command",
         .clauses = "P4,P5,S2", .level = LEVEL_MUST, .tags = "process,traversal,errors",
         .timeout_s = 40,
         .catches = "cwd confinement or request validation done for Execute only: Start runs "
                    "its process in a directory outside the root, or runs an empty command",
         .how = "Start with cwds .., ./../.., <case>/<..s past the root>, a link to /, a path "
                "through it and a relative link past the root, each running a command that "
                "appends to a marker file: every call must end with PERMISSION_DENIED and the "
                "marker must not appear (an InitEvent before the refusal is left to P8-001); "
                "then Start with an empty command and without config must end with "
                "INVALID_ARGUMENT");
