/* SPDX-License-Identifier: Apache-2.0 */
/* Starting the S7 swapper inside the runtime (see swapper.h). */
#include "confinement/swapper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "case_api.h"
#include "common/conf_util.h"
#include "common/shipped_helper.h"
#include "process_client.h"

#define SWAP_MAX 50000000L /* bound on the count, whatever the speed */
#define READY_WAIT_MS 15000u

/* python3 and perl: the same exchange loop as the helper (argv: dir,
 * target, ms, max). */
static const char PY_SWAP[] =
    "import ctypes,os,sys,time\n"
    "d,t,ms,mx=sys.argv[1],sys.argv[2],int(sys.argv[3]),int(sys.argv[4])\n"
    "lc=ctypes.CDLL(None,use_errno=True)\n"
    "x=lambda:lc.renameat2(-100,d.encode(),-100,(d+'.link').encode(),2)\n"
    "try: os.unlink(d+'.link')\n"
    "except OSError: pass\n"
    "os.symlink(t,d+'.link')\n"
    "if x()!=0 or x()!=0:\n"
    "  os.unlink(d+'.link'); print('unsupported',ctypes.get_errno()); sys.exit(2)\n"
    "print('ready',flush=True)\n"
    "t0=time.monotonic(); end=t0+ms/1000; n=0\n"
    "while n<mx and (n%256 or time.monotonic()<end):\n"
    "  if x()!=0: break\n"
    "  n+=1\n"
    "if n%2 and x()==0: n+=1\n"
    "os.unlink(d+'.link')\n"
    "print('swaps',n,'ms',int((time.monotonic()-t0)*1000))\n";

static const char PERL_SWAP[] =
    "use Time::HiRes qw(time); my($d,$t,$ms,$mx,$nr)=@ARGV; my $l=\"$d.link\";\n"
    "sub x { syscall($nr,-100,$d,-100,$l,2)==0 }\n"
    "unlink $l; symlink($t,$l) or die \"symlink: $!\";\n"
    "unless (x() && x()) { unlink $l; print \"unsupported \".($!+0).\"\\n\"; exit 2 }\n"
    "$|=1; print \"ready\\n\"; my $t0=time; my $end=$t0+$ms/1000; my $n=0;\n"
    "while ($n<$mx && (($n%256) || time<$end)) { last unless x(); $n++ }\n"
    "$n++ if ($n%2 && x()); unlink $l;\n"
    "printf \"swaps %d ms %d\\n\", $n, (time-$t0)*1000;\n";

/* renameat2's number for perl's syscall(), by architecture (0: unknown). */
static int renameat2_nr(void)
{
    struct utsname u;
    if (uname(&u) != 0) return 0;
    if (strcmp(u.machine, "x86_64") == 0) return 316;
    if (strcmp(u.machine, "aarch64") == 0 || strncmp(u.machine, "riscv", 5) == 0) return 276;
    return 0;
}

/* Waits for "ready" on the stream's stdout. 1 when it came; 0 when the
 * stream ended or went quiet first (detail says how). */
static int wait_ready(struct rpc_stream *s, int32_t *pid, char *detail, size_t dlen)
{
    char out[256] = "", err[256] = "";
    size_t no = 0, ne = 0;
    uint64_t t0 = case_now_ms();
    while (case_now_ms() - t0 < READY_WAIT_MS) {
        struct rpc_event ev = {0};
        rpc_next(s, 1000, &ev);
        if (ev.kind == PEV_INIT) *pid = ev.process_id;
        if (ev.kind == PEV_STDOUT || ev.kind == PEV_STDERR) {
            char *b = ev.kind == PEV_STDOUT ? out : err;
            size_t *bn = ev.kind == PEV_STDOUT ? &no : &ne;
            size_t take = ev.len < 255 - *bn ? ev.len : 255 - *bn;
            memcpy(b + *bn, ev.data, take);
            *bn += take;
            b[*bn] = '\0';
            if (strstr(out, "ready\n")) return 1;
        }
        if (ev.kind == PEV_EXIT) {
            snprintf(detail, dlen, "exited %d (%.60s%s%.100s)", (int)ev.exit_code, out,
                     ne ? "; stderr " : "", err);
            return 0;
        }
        if (ev.kind == PEV_END || ev.kind == PEV_ERROR) {
            snprintf(detail, dlen, "the stream ended with status %d %.80s", ev.code,
                     ev.message ? ev.message : "");
            return 0;
        }
    }
    snprintf(detail, dlen, "no \"ready\" within %u ms", READY_WAIT_MS);
    return 0;
}

static bool try_one(struct case_ctx *ctx, struct swapper *sw, const char *kind,
                    const char *const *argv)
{
    struct rpc_spec spec = {.argv = argv, .cwd = case_dir(ctx), .timeout_ms = 60000};
    struct rpc_stream *s = rpc_start(ctx, &spec, NULL);
    char detail[300] = "Start failed";
    int32_t pid = 0;
    if (s && wait_ready(s, &pid, detail, sizeof detail) == 1) {
        sw->stream = s;
        sw->kind = kind;
        return true;
    }
    if (s) {
        struct rpc_result r = {0};
        rpc_collect(s, 5000, &r, NULL);
        rpc_result_free(&r);
        rpc_stream_free(s);
    }
    size_t n = strlen(sw->tried);
    snprintf(sw->tried + n, sizeof sw->tried - n, "%s%s: %s", n ? "; " : "", kind, detail);
    return false;
}

int swapper_start(struct case_ctx *ctx, const char *dir, const char *link_target, unsigned ms,
                  struct swapper *sw, char *why, size_t whylen)
{
    memset(sw, 0, sizeof *sw);
    char msbuf[16], maxbuf[24], nrbuf[8];
    snprintf(msbuf, sizeof msbuf, "%u", ms);
    snprintf(maxbuf, sizeof maxbuf, "%ld", SWAP_MAX);

    char hwhy[200] = "";
    if (shipped_helper_upload(ctx, "sbx-race-swapper", sw->helper, sizeof sw->helper, hwhy,
                              sizeof hwhy) == 0) {
        char cmd[140];
        snprintf(cmd, sizeof cmd, "./%s", sw->helper);
        const char *argv[] = {cmd, dir, link_target, msbuf, maxbuf, NULL};
        for (unsigned attempt = 0;; attempt++) {
            size_t before = strlen(sw->tried);
            if (try_one(ctx, sw, "static helper", argv)) return 0;
            if (!shipped_helper_busy_retry(attempt, sw->tried + before)) break;
        }
    } else {
        snprintf(sw->tried, sizeof sw->tried, "static helper: %s", hwhy);
    }

    const char *py[] = {"python3", "-c", PY_SWAP, dir, link_target, msbuf, maxbuf, NULL};
    if (try_one(ctx, sw, "python3", py)) return 0;
    int nr = renameat2_nr();
    if (nr) {
        snprintf(nrbuf, sizeof nrbuf, "%d", nr);
        const char *pl[] = {"perl", "-e", PERL_SWAP, dir, link_target, msbuf, maxbuf, nrbuf, NULL};
        if (try_one(ctx, sw, "perl", pl)) return 0;
    }

    /* Last: the link exists only between ln and rm, a small share of the
     * time; its rate is rarely enough. */
    char *qd = conf_sh_quote(dir), *qt = conf_sh_quote(link_target);
    char *script = conf_xasprintf(
        "D=%s; T=%s\n"
        "echo ready; t0=$(date +%%s); end=$(( t0 + %u )); n=0\n"
        "while [ \"$(date +%%s)\" -lt \"$end\" ] && [ $n -lt 200000 ]; do\n"
        "  for i in 1 2 3 4 5 6 7 8 9 10; do\n"
        "    mv \"$D\" \"$D.real\" && ln -s \"$T\" \"$D\" && rm \"$D\" && mv \"$D.real\" \"$D\"\n"
        "    n=$((n+1))\n"
        "  done\n"
        "done\n"
        "if [ -L \"$D\" ]; then rm \"$D\"; fi\n"
        "if [ -d \"$D.real\" ] && [ ! -e \"$D\" ]; then mv \"$D.real\" \"$D\"; fi\n"
        "echo \"swaps $n ms $(( ($(date +%%s) - t0) * 1000 ))\"\n",
        qd, qt, (ms + 999) / 1000);
    free(qd);
    free(qt);
    const char *shv[] = {"sh", "-c", script, NULL};
    bool ok = try_one(ctx, sw, "shell loop", shv);
    free(script);
    if (ok) return 0;
    snprintf(why, whylen, "%s", sw->tried);
    return -1;
}

int swapper_finish(struct case_ctx *ctx, struct swapper *sw, long *swaps, long *ms)
{
    *swaps = *ms = 0;
    struct rpc_result r = {0};
    int end = rpc_collect(sw->stream, 20000, &r, NULL);
    rpc_stream_free(sw->stream);
    sw->stream = NULL;
    const char *s = r.out ? strstr((const char *)r.out, "swaps ") : NULL;
    long v[3] = {0};
    if (s && conf_parse_longs(s + 6, ' ', v, 1)) {
        *swaps = v[0];
        const char *m = strstr(s, " ms ");
        if (m && conf_parse_longs(m + 4, ' ', v + 1, 1)) *ms = v[1];
    }
    int code = end == 0 ? r.code : -1;
    rpc_result_free(&r);
    shipped_helper_remove(ctx, sw->helper);
    return code;
}
