/* SPDX-License-Identifier: Apache-2.0 */
/* Canaries outside the sandbox root, planted and watched through Execute. */
#include "confinement/canary.h"

#include "case_api.h"
#include "common/conf_util.h"
#include "process_client.h"
#include "rest_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

/* Fixed, recognisable mtime for every canary (touch -t format) and sizes
 * no ordinary response has. */
#define CANARY_TOUCH "200102030405.06"
static const size_t canary_sizes[CANARY_FILES] = {1237, 1381, 1453, 1549};
static const char *const canary_labels[CANARY_FILES] = {"P", "INNER", "SIB", "TMP"};

static char *canary_content(const struct canary_set *c, int i)
{
    struct sbuf b = {0};
    sbuf_printf(&b, "%s-%s-", c->secret_tag, canary_labels[i]);
    for (size_t k = 0; b.len < canary_sizes[i]; k++) {
        char ch = (char)('a' + (k % 26));
        sbuf_add(&b, &ch, 1);
    }
    return sbuf_take(&b);
}

/* The shell prelude every script starts with: variables naming our paths. */
static void script_prelude(struct sbuf *b, const struct canary_set *c)
{
    char *qp = conf_sh_quote(c->parent);
    char *qsib = conf_sh_quote(c->sib);
    sbuf_printf(b, "P=%s; ID='%s'; SIB=%s; TS='%s'\n", qp, c->id, qsib, CANARY_TOUCH);
    free(qp);
    free(qsib);
}

static char *plant_script(const struct canary_set *c, bool want_parent, bool want_tmp)
{
    struct sbuf b = {0};
    script_prelude(&b, c);
    sbuf_puts(&b, "umask 022\n");
    if (want_parent) {
        char *c0 = canary_content(c, 0), *c1 = canary_content(c, 1), *c2 = canary_content(c, 2);
        sbuf_printf(&b,
                    "plant_parent() {\n"
                    "  printf '%%s' '%s' > \"$P/$ID-file\" && chmod 640 \"$P/$ID-file\" &&\n"
                    "  touch -t \"$TS\" \"$P/$ID-file\" &&\n"
                    "  mkdir \"$P/$ID-dir\" &&\n"
                    "  printf '%%s' '%s' > \"$P/$ID-dir/$ID-inner\" &&\n"
                    "  chmod 600 \"$P/$ID-dir/$ID-inner\" && touch -t \"$TS\" "
                    "\"$P/$ID-dir/$ID-inner\" &&\n"
                    "  touch -t \"$TS\" \"$P/$ID-dir\" &&\n"
                    "  mkdir \"$P/$SIB\" &&\n"
                    "  printf '%%s' '%s' > \"$P/$SIB/$ID-sibfile\" &&\n"
                    "  touch -t \"$TS\" \"$P/$SIB/$ID-sibfile\" && touch -t \"$TS\" \"$P/$SIB\"\n"
                    "}\n"
                    "if plant_parent 2>/dev/null; then echo PARENT-OK; fi\n",
                    c0, c1, c2);
        free(c0);
        free(c1);
        free(c2);
    }
    if (want_tmp) {
        char *c3 = canary_content(c, 3);
        sbuf_printf(&b,
                    "if printf '%%s' '%s' > \"/tmp/$ID-tmpfile\" && chmod 644 \"/tmp/$ID-tmpfile\" "
                    "&& touch -t \"$TS\" \"/tmp/$ID-tmpfile\"; then echo TMP-OK; fi 2>/dev/null\n",
                    c3);
        free(c3);
    }
    sbuf_puts(&b, "exit 0\n");
    return sbuf_take(&b);
}

static char *state_script(const struct canary_set *c)
{
    struct sbuf b = {0};
    script_prelude(&b, c);
    if (c->fixture) sbuf_printf(&b, "( %s ) >/dev/null 2>&1\n", c->fixture);
    /* One stat and one cksum for all canaries, names listed by globs: a
     * check runs after every probe, and each program started costs the
     * runtime a fork and an exec. An unmatched glob prints itself, so an
     * unreadable directory still shows. Only regular files are read: a
     * canary replaced by a FIFO must not block the check. */
    sbuf_puts(&b, "st() { for f do shift; if [ -e \"$f\" ] || [ -L \"$f\" ]; then\n"
                  "  set -- \"$@\" \"$f\"; else echo \"absent $f\"; fi; done\n"
                  "  if [ $# -gt 0 ]; then stat -c '%n %s %a %Y %F' \"$@\" 2>&1; fi; }\n"
                  "sum() { for f do shift; if [ -f \"$f\" ]; then set -- \"$@\" \"$f\"; fi; done\n"
                  "  if [ $# -gt 0 ]; then cksum \"$@\" 2>&1; fi; }\n"
                  "names() { for f in \"$@\"; do echo \"$f\"; done; }\n");
    if (c->have_parent)
        sbuf_puts(&b, "set -- \"$P/$ID-file\" \"$P/$ID-dir\" \"$P/$ID-dir/$ID-inner\" "
                      "\"$P/$SIB\" \"$P/$SIB/$ID-sibfile\"\n");
    else
        sbuf_puts(&b, "set --\n");
    if (c->have_tmp) sbuf_puts(&b, "set -- \"$@\" \"/tmp/$ID-tmpfile\"\n");
    sbuf_puts(&b, "st \"$@\"; sum \"$@\"\n");
    if (c->have_parent)
        sbuf_puts(&b, "echo 'names in parent:'; names \"$P\"/*\"$ID\"* \"$P\"/.*\"$ID\"*\n"
                      "echo 'names in canary dir:'; names \"$P/$ID-dir\"/* "
                      "\"$P/$ID-dir\"/.[!.]* \"$P/$ID-dir\"/..?*\n"
                      "echo 'names in sibling dir:'; names \"$P/$SIB\"/* "
                      "\"$P/$SIB\"/.[!.]* \"$P/$SIB\"/..?*\n");
    if (c->have_tmp) sbuf_puts(&b, "echo 'names in /tmp:'; names /tmp/*\"$ID\"* /tmp/.*\"$ID\"*\n");
    sbuf_puts(&b, "exit 0\n");
    return sbuf_take(&b);
}

static char *remove_script(const struct canary_set *c)
{
    struct sbuf b = {0};
    script_prelude(&b, c);
    /* Only names containing our unique id are ever removed. */
    sbuf_puts(&b, "for f in \"$P\"/*\"$ID\"* \"$P\"/.*\"$ID\"* /tmp/*\"$ID\"* /tmp/.*\"$ID\"*; do\n"
                  "  if [ -e \"$f\" ] || [ -L \"$f\" ]; then\n"
                  "    chmod -R u+rwx -- \"$f\" 2>/dev/null; rm -rf -- \"$f\"\n"
                  "  fi\n"
                  "done\nexit 0\n");
    return sbuf_take(&b);
}

static int run_state(struct case_ctx *ctx, const struct canary_set *c, char **out, char *why,
                     size_t whylen)
{
    char *script = state_script(c);
    int rc = conf_sh(ctx, script, out, why, whylen);
    free(script);
    return rc;
}

static int do_plant(struct case_ctx *ctx, struct canary_set *c, bool want_parent, bool want_tmp,
                    char *why, size_t whylen)
{
    char *script = plant_script(c, want_parent, want_tmp);
    char *out = NULL;
    int rc = conf_sh(ctx, script, &out, why, whylen);
    free(script);
    if (rc != 0) {
        free(out);
        return -1;
    }
    c->have_parent = want_parent && strstr(out, "PARENT-OK") != NULL;
    c->have_tmp = want_tmp && strstr(out, "TMP-OK") != NULL;
    free(out);
    free(c->baseline);
    c->baseline = NULL;
    if (run_state(ctx, c, &c->baseline, why, whylen) != 0) return -1;
    return 0;
}

int canary_plant(struct case_ctx *ctx, struct canary_set *c)
{
    char why[512] = "";
    /* Names outside the root must be unique across concurrent runs, even
     * runs with the same --seed (they share /tmp): mix in fresh entropy. */
    uint64_t salt = 0;
    if (getrandom(&salt, sizeof salt, 0) != (ssize_t)sizeof salt)
        salt = ((uint64_t)getpid() << 32) ^ case_now_ms();
    snprintf(c->hex, sizeof c->hex, "%016llx", (unsigned long long)(case_rand(ctx) ^ salt));
    snprintf(c->id, sizeof c->id, "sbxcanary-%s", c->hex);
    snprintf(c->secret_tag, sizeof c->secret_tag, "SBXSECRET-%s", c->hex);
    memcpy(c->sizes, canary_sizes, sizeof c->sizes);

    const char *root = case_root_path(ctx);
    if (!root) {
        case_skip(ctx, "the sandbox root's absolute path is unknown, so no canary can be "
                       "placed outside it");
        return -1;
    }
    /* The kernel walks ".." from the root's physical directory. */
    char *qroot = conf_sh_quote(root);
    char *script = conf_xasprintf("cd -- %s && pwd -P", qroot);
    free(qroot);
    char *out = NULL;
    int rc = conf_sh(ctx, script, &out, why, sizeof why);
    free(script);
    if (rc != 0 || !out || out[0] != '/') {
        case_fail(ctx, "Execute `cd <root> && pwd -P` prints the root's physical path (P1, P4)",
                  "%s", rc != 0 ? why : "unexpected output");
        free(out);
        return -1;
    }
    out[strcspn(out, "\n")] = '\0';
    c->root = out;
    if (strcmp(c->root, "/") == 0) {
        case_skip(ctx, "the sandbox root is \"/\": nothing lies outside it");
        return -1;
    }
    char *slash = strrchr(c->root, '/');
    c->parent = slash == c->root ? conf_xstrdup("/")
                                 : conf_xasprintf("%.*s", (int)(slash - c->root), c->root);
    c->parent_depth = conf_path_depth(c->parent);
    snprintf(c->pfile, sizeof c->pfile, "%s-file", c->id);
    snprintf(c->pdir, sizeof c->pdir, "%s-dir", c->id);
    snprintf(c->pinner, sizeof c->pinner, "%s-inner", c->id);
    snprintf(c->sib, sizeof c->sib, "%.200s-%s", slash + 1, c->id);
    snprintf(c->sibfile, sizeof c->sibfile, "%s-sibfile", c->id);
    snprintf(c->tfile, sizeof c->tfile, "%s-tmpfile", c->id);

    /* /tmp is outside unless the root is /tmp itself (the root "/" was
     * refused above). */
    bool tmp_outside = strcmp(c->root, "/tmp") != 0;
    if (do_plant(ctx, c, true, tmp_outside, why, sizeof why) != 0) {
        case_fail(ctx, "Execute of a shell script succeeds (P1)", "%s", why);
        return -1;
    }
    if (!c->have_parent && !c->have_tmp) {
        canary_remove(ctx, c);
        case_skip(ctx,
                  "could not plant canaries outside the root (in %s and /tmp): the runtime's "
                  "processes cannot write there",
                  c->parent);
        return -1;
    }
    if (!c->have_parent)
        case_note(ctx, "no canary in the root's parent %s (not writable); /tmp canaries only",
                  c->parent);
    return 0;
}

static void describe_diff(struct sbuf *d, const char *before, const char *after)
{
    /* Lines present in one state but not the other, a few of each. */
    int shown = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *a = pass == 0 ? before : after;
        const char *b = pass == 0 ? after : before;
        const char *p = a;
        while (*p && shown < 6) {
            size_t n = strcspn(p, "\n");
            bool found = false;
            for (const char *q = b; *q;) {
                size_t m = strcspn(q, "\n");
                if (m == n && memcmp(p, q, n) == 0) {
                    found = true;
                    break;
                }
                q += m + (q[m] ? 1 : 0);
            }
            if (!found && n) {
                sbuf_printf(d, "%s%s '%.*s'", d->len ? "; " : "", pass == 0 ? "was" : "now",
                            (int)(n > 160 ? 160 : n), p);
                shown++;
            }
            p += n + (p[n] ? 1 : 0);
        }
    }
    if (!d->len) sbuf_puts(d, "outside state changed (order of entries)");
}

int canary_check(struct case_ctx *ctx, struct canary_set *c, char **diff)
{
    char why[512] = "";
    char *now = NULL;
    *diff = NULL;
    /* The caller's checks of the answer that come after this probe must
     * still name the caller's request, not the probe's Execute. */
    char request[1100];
    case_request_copy(ctx, request, sizeof request);
    int rc = run_state(ctx, c, &now, why, sizeof why);
    case_request(ctx, "%s", request);
    if (rc != 0) {
        free(now);
        *diff = conf_xasprintf("the outside-state check (Execute) failed: %s", why);
        return -1;
    }
    if (strcmp(now, c->baseline) == 0) {
        free(now);
        return 0;
    }
    struct sbuf d = {0};
    describe_diff(&d, c->baseline, now);
    *diff = sbuf_take(&d);
    free(now);
    /* Restore, so later requests are judged against intact canaries. */
    bool had_parent = c->have_parent, had_tmp = c->have_tmp;
    canary_remove(ctx, c);
    if (do_plant(ctx, c, had_parent, had_tmp, why, sizeof why) != 0 ||
        c->have_parent != had_parent || c->have_tmp != had_tmp)
        case_error(ctx, "could not restore the canaries: %s", why);
    case_request(ctx, "%s", request);
    return 1;
}

void canary_remove(struct case_ctx *ctx, struct canary_set *c)
{
    if (!c->parent) return;
    char why[256];
    char *script = remove_script(c);
    conf_sh(ctx, script, NULL, why, sizeof why);
    free(script);
}

const char *canary_new_name(struct canary_set *c, char *buf, size_t buflen)
{
    snprintf(buf, buflen, "%s-new-%u", c->id, c->next_new++);
    return buf;
}

bool canary_body_leaks(const struct canary_set *c, const void *body, size_t len, const char *target,
                       char *why, size_t whylen)
{
    if (!body || !len) return false;
    if (conf_memmem(body, len, c->secret_tag, strlen(c->secret_tag))) {
        snprintf(why, whylen, "body contains the content of a canary outside the root");
        return true;
    }
    size_t dlen;
    char *decoded = conf_pct_decode_once(target, &dlen);
    const char *names[] = {c->pfile, c->pinner, c->sibfile, c->tfile, c->pdir};
    bool leak = false;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !leak; i++) {
        size_t n = strlen(names[i]);
        if (conf_memmem(body, len, names[i], n) && !strstr(target, names[i]) &&
            !conf_memmem(decoded, dlen, names[i], n)) {
            snprintf(why, whylen, "body names the canary %s that lies outside the root", names[i]);
            leak = true;
        }
    }
    free(decoded);
    return leak;
}

bool canary_size_matches(const struct canary_set *c, long long n)
{
    for (int i = 0; i < CANARY_FILES; i++)
        if (n == (long long)c->sizes[i]) return true;
    return false;
}

bool canary_length_leaks(const struct canary_set *c, const char *method,
                         const struct http_response *resp)
{
    if (resp->status < 200 || resp->status >= 300 || resp->content_length < 0 ||
        !canary_size_matches(c, resp->content_length))
        return false;
    if (resp->content_type && strncasecmp(resp->content_type, "application/json", 16) == 0)
        return false;
    if (strcmp(method, "HEAD") == 0) return true;
    return strcmp(method, "GET") == 0 &&
           (resp->body_truncated || resp->body_len != (size_t)resp->content_length);
}

void canary_free(struct canary_set *c)
{
    free(c->root);
    free(c->parent);
    free(c->baseline);
    free(c->fixture);
    c->root = c->parent = c->baseline = c->fixture = NULL;
}
