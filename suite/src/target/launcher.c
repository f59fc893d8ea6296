/* SPDX-License-Identifier: Apache-2.0 */
/* Launch mode: start, health-wait and stop a runtime under test. */
#include "launcher.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "die_with_parent.h"
#include "fs_util.h"
#include "rest_client.h"
#include "runtime_guard.h"

/* Names cover the three metadata situations the contract distinguishes:
 * served (prefixed, no marker), hidden by a credential marker in any letter
 * case (MUST list, then SHOULD list), and not prefixed at all. */
const char *const launcher_planted_vars[] = {
    "SANDBOX_CONFORMANCE=1",
    "SANDBOX_PLAIN_VALUE=visible value",
    "SANDBOX_EMPTY_VALUE=",
    "SANDBOX_API_TOKEN=planted-secret-token",
    "SANDBOX_db_Password=planted-secret-password",
    "SANDBOX_MY_KEY_ID=planted-secret-key",
    "SANDBOX_Client_Secret=planted-secret-secret",
    "SANDBOX_cloud_credential=planted-secret-credential",
    "SANDBOX_AUTH_HEADER=planted-secret-auth",
    "SANDBOX_PRIVATE_NOTE=planted-secret-private",
    "SANDBOX_TLS_CERT=planted-secret-cert",
    "OTHER_VISIBLE=1",
    "NOT_SANDBOX_PREFIXED=1",
    NULL,
};

/* Variables taken from the suite's own environment (tooling, not data). */
static const char *const passthrough_vars[] = {
    "PATH", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TMPDIR", NULL,
};

static double mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- Words ------------------------------------------------------------- */

static int push_word(char ***v, size_t *n, const char *s, size_t len)
{
    char **grown = realloc(*v, (*n + 2) * sizeof **v);
    if (!grown) return -1;
    *v = grown;
    grown[*n] = strndup(s, len);
    if (!grown[*n]) return -1;
    grown[++*n] = NULL;
    return 0;
}

char **launcher_split_words(const char *t, char *err, size_t err_len)
{
    char **v = NULL;
    size_t n = 0;
    size_t cap = strlen(t) + 1;
    char *cur = malloc(cap);
    if (!cur) return NULL;
    const char *p = t;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p) break;
        size_t l = 0;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'') {
                const char *e = strchr(p + 1, '\'');
                if (!e) {
                    snprintf(err, err_len, "unterminated ' in the launch command");
                    goto fail;
                }
                memcpy(cur + l, p + 1, (size_t)(e - p - 1));
                l += (size_t)(e - p - 1);
                p = e + 1;
            } else if (*p == '"') {
                p++;
                while (*p && *p != '"') {
                    if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) p++;
                    cur[l++] = *p++;
                }
                if (*p != '"') {
                    snprintf(err, err_len, "unterminated \" in the launch command");
                    goto fail;
                }
                p++;
            } else if (*p == '\\' && p[1]) {
                cur[l++] = p[1];
                p += 2;
            } else {
                cur[l++] = *p++;
            }
        }
        if (push_word(&v, &n, cur, l) != 0) goto fail;
    }
    free(cur);
    if (!v) snprintf(err, err_len, "the launch command is empty");
    return v;
fail:
    free(cur);
    launcher_free_words(v);
    return NULL;
}

void launcher_free_words(char **words)
{
    for (char **w = words; w && *w; w++)
        free(*w);
    free(words);
}

/* Replaces every {name} in word; returns malloc'd text. */
static char *substitute(const char *word, const char *const keys[], const char *const vals[])
{
    size_t cap = strlen(word) + 1;
    for (size_t k = 0; keys[k]; k++)
        cap += strlen(vals[k]) * 4;
    char *out = malloc(cap + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (const char *p = word; *p;) {
        bool hit = false;
        for (size_t k = 0; keys[k]; k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(p, keys[k], kl) == 0 && o + strlen(vals[k]) < cap) {
                memcpy(out + o, vals[k], strlen(vals[k]));
                o += strlen(vals[k]);
                p += kl;
                hit = true;
                break;
            }
        }
        if (!hit) {
            if (o + 1 >= cap) break;
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    return out;
}

/* ---- Ports and readiness ----------------------------------------------- */

static int bind_ephemeral(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &l) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

bool launcher_tcp_accepts(const char *host, int port)
{
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST}, *ai = NULL;
    if (getaddrinfo(host, service, &hints, &ai) != 0) return false;
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    if (fd >= 0) close(fd);
    freeaddrinfo(ai);
    return ok;
}

static bool health_ok(const char *rest_addr)
{
    struct http_request req = {.method = "GET", .target = "/v1/health", .timeout_ms = 1000};
    struct http_response resp;
    bool ok = rest_do_at(rest_addr, &req, &resp) == 0 && resp.status == 200;
    http_response_free(&resp);
    return ok;
}

/* ---- Start / stop ------------------------------------------------------ */

static char **build_env(const struct launch_opts *o, const char *home)
{
    size_t n = 0, cap = 64;
    char **env = calloc(cap, sizeof *env);
    if (!env) return NULL;
    for (const char *const *v = passthrough_vars; *v; v++) {
        const char *val = getenv(*v);
        if (!val && strcmp(*v, "PATH") == 0) val = "/usr/local/bin:/usr/bin:/bin";
        if (val && n + 1 < cap) {
            size_t l = strlen(*v) + strlen(val) + 2;
            env[n] = malloc(l);
            if (env[n]) snprintf(env[n++], l, "%s=%s", *v, val);
        }
    }
    if (n + 1 < cap) {
        size_t l = strlen(home) + 6;
        env[n] = malloc(l);
        if (env[n]) snprintf(env[n++], l, "HOME=%s", home);
    }
    for (const char *const *v = launcher_planted_vars; !o->no_planted_env && *v && n + 1 < cap; v++)
        env[n++] = strdup(*v);
    for (const char *const *v = o->extra_env; v && *v && n + 1 < cap; v++) {
        /* A later definition replaces an earlier one of the same name. */
        const char *eq = strchr(*v, '=');
        size_t nl = eq ? (size_t)(eq - *v) : strlen(*v);
        bool replaced = false;
        for (size_t i = 0; i < n; i++)
            if (env[i] && strncmp(env[i], *v, nl) == 0 && env[i][nl] == '=') {
                free(env[i]);
                env[i] = strdup(*v);
                replaced = true;
            }
        if (!replaced) env[n++] = strdup(*v);
    }
    env[n] = NULL;
    return env;
}

static char *join_words(char **argv)
{
    size_t len = 1;
    for (char **a = argv; *a; a++)
        len += strlen(*a) * 4 + 3;
    char *s = malloc(len);
    if (!s) return NULL;
    size_t o = 0;
    for (char **a = argv; *a; a++) {
        bool quote = (*a)[strcspn(*a, " \t\"'\\$")] != '\0' || !**a;
        if (o) s[o++] = ' ';
        if (quote) s[o++] = '\'';
        for (const char *c = *a; *c; c++) {
            if (*c == '\'' && quote) {
                memcpy(s + o, "'\\''", 4);
                o += 4;
            } else {
                s[o++] = *c;
            }
        }
        if (quote) s[o++] = '\'';
    }
    s[o] = '\0';
    return s;
}

static void log_tail(const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char *text = fs_read_file(path, 1 << 20, &len);
    if (!text || len == 0) {
        free(text);
        return;
    }
    const char *tail = len > 600 ? text + len - 600 : text;
    size_t used = strlen(err);
    snprintf(err + used, err_len - used, "\n--- last output of the runtime ---\n%s", tail);
    free(text);
}

static int start_once(const struct launch_opts *o, struct launched_runtime *rt, char *err,
                      size_t err_len)
{
    int gfd = bind_ephemeral(&rt->grpc_port);
    int rfd = bind_ephemeral(&rt->rest_port);
    if (gfd < 0 || rfd < 0) {
        snprintf(err, err_len, "cannot reserve loopback ports: %s", strerror(errno));
        if (gfd >= 0) close(gfd);
        if (rfd >= 0) close(rfd);
        return -1;
    }
    close(gfd);
    close(rfd);
    const char *host = o->host ? o->host : "127.0.0.1";
    bool v6 = strchr(host, ':') != NULL;
    snprintf(rt->grpc_addr, sizeof rt->grpc_addr, v6 ? "[%s]:%d" : "%s:%d", host, rt->grpc_port);
    snprintf(rt->rest_addr, sizeof rt->rest_addr, v6 ? "[%s]:%d" : "%s:%d", host, rt->rest_port);

    char gport[16], rport[16];
    snprintf(gport, sizeof gport, "%d", rt->grpc_port);
    snprintf(rport, sizeof rport, "%d", rt->rest_port);
    const char *keys[] = {"{grpc_port}", "{rest_port}", "{root}", "{host}", NULL};
    const char *vals[] = {gport, rport, rt->root, host, NULL};

    char **words = launcher_split_words(o->command_template, err, err_len);
    if (!words) return -1;
    size_t nw = 0, ne = 0;
    while (words[nw])
        nw++;
    while (o->extra_args && o->extra_args[ne])
        ne++;
    rt->argv = calloc(nw + ne + 1, sizeof *rt->argv);
    if (!rt->argv) {
        launcher_free_words(words);
        return -1;
    }
    for (size_t i = 0; i < nw; i++)
        rt->argv[i] = substitute(words[i], keys, vals);
    for (size_t i = 0; i < ne; i++)
        rt->argv[nw + i] = substitute(o->extra_args[i], keys, vals);
    launcher_free_words(words);
    free(rt->command_line);
    rt->command_line = join_words(rt->argv);

    int logfd = open(rt->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (logfd < 0) {
        snprintf(err, err_len, "cannot create %s: %s", rt->log_path, strerror(errno));
        return -1;
    }
    dprintf(logfd, "--- %s\n", rt->command_line ? rt->command_line : "");
    rt->started_at = mono_seconds();
    pid_t suite = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_len, "fork: %s", strerror(errno));
        close(logfd);
        return -1;
    }
    if (pid == 0) {
        /* The runtime dies with the suite, even a suite killed by SIGKILL
         * (the death signal survives the exec below, and the namespace
         * confine_enter unshares). */
        if (!die_with_parent(suite, SIGKILL)) _exit(125);
        if (o->own_process_group) setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(logfd, 1);
        dup2(logfd, 2);
        closefrom(3);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        char cerr[512];
        if (o->confine && confine_enter(rt->dir, rt->argv[0], cerr, sizeof cerr) != 0) {
            dprintf(2, "%s\n", cerr);
            _exit(126);
        }
        execvpe(rt->argv[0], rt->argv, rt->env);
        dprintf(2, "cannot execute %s: %s\n", rt->argv[0], strerror(errno));
        _exit(127);
    }
    close(logfd);
    if (o->own_process_group) setpgid(pid, pid); /* also here: the guard's kill must not miss */
    rt->pid = pid;
    rt->exited = false;
    runtime_guard_stop(rt->guard);
    rt->guard = runtime_guard_start(pid, o->own_process_group, rt->dir);

    unsigned limit = o->health_timeout_ms ? o->health_timeout_ms : 20000;
    double deadline = rt->started_at + limit / 1000.0;
    bool healthy = false, grpc_up = false;
    while (mono_seconds() < deadline) {
        if (launcher_wait(rt, 0) == 0) {
            char how[128];
            launcher_describe_status(rt->status, how, sizeof how);
            snprintf(err, err_len, "the runtime %s before it became healthy (command: %s)", how,
                     rt->command_line ? rt->command_line : "?");
            log_tail(rt->log_path, err, err_len);
            return 1; /* may be a port race: the caller retries */
        }
        if (!grpc_up) grpc_up = launcher_tcp_accepts(host, rt->grpc_port);
        if (!healthy) healthy = health_ok(rt->rest_addr);
        if (healthy && grpc_up) {
            rt->healthy_after = mono_seconds() - rt->started_at;
            return 0;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    snprintf(err, err_len,
             "the runtime did not become healthy within %u ms (GET /v1/health on %s: %s; gRPC "
             "port %d: %s; command: %s)",
             limit, rt->rest_addr, healthy ? "200" : "no 200 answer", rt->grpc_port,
             grpc_up ? "accepting" : "not accepting", rt->command_line ? rt->command_line : "?");
    log_tail(rt->log_path, err, err_len);
    launcher_stop(rt, 2000);
    return -1;
}

int launcher_start(const struct launch_opts *o, struct launched_runtime *rt, char *err,
                   size_t err_len)
{
    memset(rt, 0, sizeof *rt);
    rt->pid = -1;
    err[0] = '\0';
    rt->dir = fs_make_temp_dir(o->work_dir, "runtime-");
    if (!rt->dir) {
        snprintf(err, err_len, "cannot create a temporary directory: %s", strerror(errno));
        return -1;
    }
    size_t dl = strlen(rt->dir) + 32;
    rt->root = malloc(dl);
    rt->log_path = malloc(dl);
    if (!rt->root || !rt->log_path) return -1;
    snprintf(rt->root, dl, "%s/root", rt->dir);
    snprintf(rt->log_path, dl, "%s/runtime.log", rt->dir);
    if (!o->missing_root && mkdir(rt->root, 0755) != 0) {
        snprintf(err, err_len, "cannot create %s: %s", rt->root, strerror(errno));
        return -1;
    }
    rt->env = build_env(o, rt->dir);
    if (!rt->env) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int rc = -1;
    for (int attempt = 0; attempt < 3; attempt++) {
        err[0] = '\0';
        if (attempt > 0) {
            for (char **a = rt->argv; a && *a; a++)
                free(*a);
            free(rt->argv);
            rt->argv = NULL;
        }
        rc = start_once(o, rt, err, err_len);
        /* Retry only when another process took a port between the choice
         * and the bind; any other early exit is the runtime's answer. */
        if (rc <= 0 || !strstr(err, "in use")) break;
    }
    return rc == 0 ? 0 : -1;
}

int launcher_wait(struct launched_runtime *rt, unsigned timeout_ms)
{
    if (rt->pid <= 0) return -1;
    if (rt->exited) return 0;
    double deadline = mono_seconds() + timeout_ms / 1000.0;
    for (;;) {
        int st;
        pid_t r = waitpid(rt->pid, &st, WNOHANG);
        if (r == rt->pid) {
            rt->exited = true;
            rt->status = st;
            return 0;
        }
        if (r < 0 && errno != EINTR) return -1;
        if (mono_seconds() >= deadline) return -1;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

int launcher_stop(struct launched_runtime *rt, unsigned grace_ms)
{
    if (rt->pid <= 0 || rt->exited) return 0;
    kill(rt->pid, SIGTERM);
    if (launcher_wait(rt, grace_ms) == 0) return 0;
    kill(rt->pid, SIGKILL);
    launcher_wait(rt, 5000);
    return 1;
}

void launcher_describe_status(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, len, "ended with wait status 0x%x", (unsigned)status);
}

void launcher_release(struct launched_runtime *rt)
{
    if (!rt) return;
    if (rt->pid > 0 && !rt->exited) {
        kill(rt->pid, SIGKILL);
        launcher_wait(rt, 5000);
    }
    runtime_guard_stop(rt->guard);
    rt->guard = 0;
    if (rt->dir) fs_remove_tree(rt->dir);
    for (char **a = rt->argv; a && *a; a++)
        free(*a);
    for (char **e = rt->env; e && *e; e++)
        free(*e);
    free(rt->argv);
    free(rt->env);
    free(rt->command_line);
    free(rt->root);
    free(rt->log_path);
    free(rt->dir);
    memset(rt, 0, sizeof *rt);
    rt->pid = -1;
}
