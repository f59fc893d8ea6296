/* SPDX-License-Identifier: Apache-2.0 */
/* Integration-test harness (see daemon_harness.h). */
#include "daemon_harness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "process.pb-c.h"
#include "test_parse.h"

#define PROC_PATH(m) "/process.v1.ProcessService/" m

uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int daemon_start(struct daemon *d, const char *binary, const char *const *extra)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->dir, sizeof(d->dir), "/tmp/sbx_daemon_test_XXXXXX");
    if (!mkdtemp(d->dir)) return -1;
    snprintf(d->root, sizeof(d->root), "%s/root", d->dir);
    char log[320];
    snprintf(log, sizeof(log), "%s/daemon.log", d->dir);

    const char *args[64] = {binary, "--listen-host", "127.0.0.1", "--grpc-port", "0", "--rest-port",
                            "0",    "--root-dir",    d->root};
    int n = 9;
    for (int i = 0; extra && extra[i] && n < 62; i++)
        args[n++] = extra[i];
    args[n] = NULL;

    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out[1], 1);
        if (lfd >= 0) dup2(lfd, 2);
        setpgid(0, 0);
        /* A test that dies (an assertion abort) takes its daemon along. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        execv(binary, (char *const *)args);
        _exit(127);
    }
    close(out[1]);
    d->pid = pid;
    /* The daemon prints grpc-port=N and rest-port=N once it listens. */
    char buf[256] = "";
    size_t have = 0;
    uint64_t end = now_ms() + 15000;
    while (now_ms() < end && (!d->grpc_port || !d->rest_port)) {
        struct pollfd p = {.fd = out[0], .events = POLLIN};
        if (poll(&p, 1, 100) <= 0) continue;
        ssize_t r = read(out[0], buf + have, sizeof(buf) - 1 - have);
        if (r <= 0) break;
        have += (size_t)r;
        buf[have] = '\0';
        char *g = strstr(buf, "grpc-port="), *rp = strstr(buf, "rest-port=");
        long port;
        if (g && strchr(g, '\n') && test_parse_long(g + 10, 1, 65535, &port, NULL))
            d->grpc_port = (int)port;
        if (rp && strchr(rp, '\n') && test_parse_long(rp + 10, 1, 65535, &port, NULL))
            d->rest_port = (int)port;
    }
    close(out[0]);
    if (!d->grpc_port || !d->rest_port) {
        daemon_stop(d, 100, NULL);
        return -1;
    }
    snprintf(d->target, sizeof(d->target), "127.0.0.1:%d", d->grpc_port);
    char err[256];
    d->conn = sbx_grpc_connect(d->target, NULL, err, sizeof(err));
    if (!d->conn) {
        fprintf(stderr, "connect %s: %s\n", d->target, err);
        daemon_stop(d, 100, NULL);
        return -1;
    }
    return 0;
}

void daemon_signal(struct daemon *d, int sig)
{
    if (d->pid > 0) kill(d->pid, sig);
}

int daemon_wait(struct daemon *d, unsigned wait_ms, unsigned *elapsed_ms)
{
    uint64_t start = now_ms();
    int status = -1;
    while (d->pid > 0) {
        pid_t r = waitpid(d->pid, &status, WNOHANG);
        if (r == d->pid) {
            d->pid = 0;
            break;
        }
        if (now_ms() - start > wait_ms) return -1;
        usleep(5000);
    }
    if (elapsed_ms) *elapsed_ms = (unsigned)(now_ms() - start);
    return status;
}

void daemon_cleanup(struct daemon *d)
{
    if (d->conn) {
        sbx_grpc_conn_close(d->conn);
        d->conn = NULL;
    }
    if (d->dir[0]) {
        if (getenv("SBX_KEEP_DAEMON_LOG")) {
            char cmd[600];
            snprintf(cmd, sizeof(cmd), "cat %s/daemon.log >&2", d->dir);
            (void)!system(cmd);
        }
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", d->dir, d->dir);
        (void)!system(cmd);
        d->dir[0] = '\0';
    }
}

int daemon_stop(struct daemon *d, unsigned wait_ms, unsigned *elapsed_ms)
{
    int status = -1;
    if (d->pid > 0) {
        kill(d->pid, SIGTERM);
        status = daemon_wait(d, wait_ms, elapsed_ms);
        if (d->pid > 0) {
            kill(-d->pid, SIGKILL);
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &status, 0);
            d->pid = 0;
            status = -1;
        }
    }
    daemon_cleanup(d);
    return status;
}

int daemon_fd_count(const struct daemon *d)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)d->pid);
    DIR *dir = opendir(path);
    if (!dir) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(dir));)
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

int daemon_child_count(const struct daemon *d)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)d->pid);
    DIR *dir = opendir(path);
    if (!dir) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.') continue;
        char cp[400];
        snprintf(cp, sizeof(cp), "%s/%s/children", path, e->d_name);
        FILE *f = fopen(cp, "re");
        if (!f) continue;
        n += test_count_numbers(f);
        fclose(f);
    }
    closedir(dir);
    return n;
}

int daemon_http_get(const struct daemon *d, const char *path)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d->rest_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(s);
        return -1;
    }
    char req[512];
    int n =
        snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
    if (write(s, req, (size_t)n) != n) {
        close(s);
        return -1;
    }
    char buf[64] = "";
    size_t have = 0;
    struct pollfd p = {.fd = s, .events = POLLIN};
    while (have < 12 && poll(&p, 1, 5000) > 0) {
        ssize_t r = read(s, buf + have, sizeof(buf) - 1 - have);
        if (r <= 0) break;
        have += (size_t)r;
    }
    close(s);
    buf[have] = '\0';
    long status;
    return have >= 12 && test_parse_long(buf + 9, 100, 999, &status, NULL) ? (int)status : -1;
}

/* ---- requests ------------------------------------------------------------ */

struct packed_config {
    Process__V1__ProcessConfig cfg;
    Process__V1__ProcessConfig__EnvVarsEntry env[32];
    Process__V1__ProcessConfig__EnvVarsEntry *envp[32];
};

static void fill_config(struct packed_config *pc, const struct proc_req *r)
{
    process__v1__process_config__init(&pc->cfg);
    size_t argc = 0;
    while (r->argv && r->argv[argc])
        argc++;
    pc->cfg.n_command = argc;
    pc->cfg.command = (char **)r->argv;
    size_t n = 0;
    for (size_t i = 0; r->env && r->env[i] && r->env[i + 1] && n < 32; i += 2, n++) {
        process__v1__process_config__env_vars_entry__init(&pc->env[n]);
        pc->env[n].key = (char *)r->env[i];
        pc->env[n].value = (char *)r->env[i + 1];
        pc->envp[n] = &pc->env[n];
    }
    pc->cfg.n_env_vars = n;
    pc->cfg.env_vars = pc->envp;
    if (r->cwd) {
        pc->cfg._cwd_case = PROCESS__V1__PROCESS_CONFIG___CWD_CWD;
        pc->cfg.cwd = (char *)r->cwd;
    }
}

static uint8_t *pack(const ProtobufCMessage *m, size_t *len)
{
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *b = malloc(*len ? *len : 1);
    protobuf_c_message_pack(m, b);
    return b;
}

uint8_t *pack_execute(const struct proc_req *r, size_t *len)
{
    struct packed_config pc;
    fill_config(&pc, r);
    Process__V1__ExecuteRequest req = PROCESS__V1__EXECUTE_REQUEST__INIT;
    req.config = r->argv ? &pc.cfg : NULL;
    return pack(&req.base, len);
}

uint8_t *pack_start(const struct proc_req *r, size_t *len)
{
    struct packed_config pc;
    fill_config(&pc, r);
    Process__V1__StartRequest req = PROCESS__V1__START_REQUEST__INIT;
    req.config = r->argv ? &pc.cfg : NULL;
    Process__V1__PTY pty = PROCESS__V1__PTY__INIT;
    if (r->pty) {
        pty.cols = r->cols;
        pty.rows = r->rows;
        req._pty_case = PROCESS__V1__START_REQUEST___PTY_PTY;
        req.pty = &pty;
    }
    return pack(&req.base, len);
}

int h_execute(struct sbx_grpc_conn *c, const struct proc_req *r, unsigned timeout_ms,
              struct exec_result *res)
{
    memset(res, 0, sizeof(*res));
    size_t len;
    uint8_t *req = pack_execute(r, &len);
    struct sbx_grpc_call_opts o = {.timeout_ms = timeout_ms, .wait_ms = 60000};
    struct sbx_grpc_result out = {0};
    res->code = sbx_grpc_unary(c, PROC_PATH("Execute"), req, len, &o, &out);
    free(req);
    if (out.message) snprintf(res->message, sizeof(res->message), "%s", out.message);
    if (res->code == 0 && out.response) {
        Process__V1__ExecuteResponse *er =
            process__v1__execute_response__unpack(NULL, out.response_len, out.response);
        if (er) {
            res->exit_code = er->exit_code;
            res->out_len = er->stdout.len;
            res->err_len = er->stderr.len;
            res->out = malloc(er->stdout.len + 1);
            res->err = malloc(er->stderr.len + 1);
            if (er->stdout.len) memcpy(res->out, er->stdout.data, er->stdout.len);
            if (er->stderr.len) memcpy(res->err, er->stderr.data, er->stderr.len);
            res->out[res->out_len] = res->err[res->err_len] = 0;
            process__v1__execute_response__free_unpacked(er, NULL);
        } else {
            res->code = -2;
        }
    } else if (res->code == 0) {
        res->out = calloc(1, 1);
        res->err = calloc(1, 1);
    }
    sbx_grpc_result_free(&out);
    return res->code;
}

void exec_result_free(struct exec_result *res)
{
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}

struct sbx_grpc_call *h_start(struct sbx_grpc_conn *c, const struct proc_req *r)
{
    size_t len;
    uint8_t *req = pack_start(r, &len);
    char err[256];
    struct sbx_grpc_call_opts o = {.wait_ms = 120000};
    struct sbx_grpc_call *call =
        sbx_grpc_call_start(c, PROC_PATH("Start"), req, len, &o, err, sizeof(err));
    free(req);
    return call;
}

int h_next(struct sbx_grpc_call *call, int wait_ms, struct start_event *ev)
{
    memset(ev, 0, sizeof(*ev));
    const uint8_t *msg;
    size_t len;
    int rc = sbx_grpc_call_next(call, wait_ms, &msg, &len);
    if (rc == SBX_GRPC_NEXT_TIMEOUT) return ev->kind = EV_TIMEOUT;
    if (rc == SBX_GRPC_NEXT_ERROR) return ev->kind = EV_ERROR;
    if (rc == SBX_GRPC_NEXT_END) {
        const struct sbx_grpc_result *r = sbx_grpc_call_result(call);
        ev->value = r->end == SBX_GRPC_END_STATUS ? r->code : -1;
        return ev->kind = EV_END;
    }
    Process__V1__StartResponse *sr = process__v1__start_response__unpack(NULL, len, msg);
    if (!sr) return ev->kind = EV_BAD;
    switch (sr->event_case) {
    case PROCESS__V1__START_RESPONSE__EVENT_INIT:
        ev->kind = EV_INIT;
        ev->value = sr->init ? sr->init->process_id : 0;
        break;
    case PROCESS__V1__START_RESPONSE__EVENT_EXIT:
        ev->kind = EV_EXIT;
        ev->value = sr->exit ? sr->exit->exit_code : 0;
        break;
    case PROCESS__V1__START_RESPONSE__EVENT_STDOUT:
    case PROCESS__V1__START_RESPONSE__EVENT_STDERR: {
        bool out = sr->event_case == PROCESS__V1__START_RESPONSE__EVENT_STDOUT;
        ProtobufCBinaryData b = out ? sr->stdout : sr->stderr;
        ev->kind = out ? EV_STDOUT : EV_STDERR;
        ev->data = malloc(b.len + 1);
        if (b.len) memcpy(ev->data, b.data, b.len);
        ev->data[b.len] = 0;
        ev->len = b.len;
        break;
    }
    default:
        ev->kind = EV_BAD;
    }
    process__v1__start_response__free_unpacked(sr, NULL);
    return ev->kind;
}

void start_event_free(struct start_event *ev)
{
    free(ev->data);
    ev->data = NULL;
}

/* Capacity of a buffer holding len bytes and a NUL: the next power of two,
 * so appending an event at a time stays linear (a stream is thousands of
 * events; growing by each one is quadratic, and slow under ASan). */
static size_t pow2_at_least(size_t n)
{
    size_t c = 1;
    while (c < n)
        c *= 2;
    return c;
}

static void append(uint8_t **buf, size_t *len, const uint8_t *d, size_t n)
{
    if (*len + n + 1 > pow2_at_least(*len + 1)) *buf = realloc(*buf, pow2_at_least(*len + n + 1));
    if (n) memcpy(*buf + *len, d, n);
    *len += n;
    (*buf)[*len] = 0;
}

void h_collect(struct sbx_grpc_call *call, unsigned wait_ms, struct stream_summary *s)
{
    memset(s, 0, sizeof(*s));
    s->status = -1;
    s->order_ok = true;
    s->out = calloc(1, 1);
    s->err = calloc(1, 1);
    uint64_t end = now_ms() + wait_ms;
    bool exited = false;
    while (now_ms() < end) {
        struct start_event ev;
        int k = h_next(call, 200, &ev);
        if (k == EV_TIMEOUT) continue;
        if (k == EV_END) {
            s->status = ev.value;
            s->exit_last = exited;
            break;
        }
        if (k == EV_ERROR || k == EV_BAD) {
            s->status = -1;
            s->order_ok = false;
            break;
        }
        if (s->events == 0) s->init_first = k == EV_INIT;
        s->events++;
        if (exited) s->order_ok = false; /* anything after the ExitEvent */
        if (k == EV_INIT) {
            s->inits++;
            s->id = ev.value;
        } else if (k == EV_EXIT) {
            s->exits++;
            s->exit_code = ev.value;
            exited = true;
        } else {
            if (ev.len > s->max_chunk) s->max_chunk = ev.len;
            if (k == EV_STDOUT)
                append(&s->out, &s->out_len, ev.data, ev.len);
            else
                append(&s->err, &s->err_len, ev.data, ev.len);
        }
        start_event_free(&ev);
    }
}

void stream_summary_free(struct stream_summary *s)
{
    free(s->out);
    free(s->err);
    s->out = s->err = NULL;
}

int h_raw(struct sbx_grpc_conn *c, const char *path, const void *req, size_t len)
{
    struct sbx_grpc_call_opts o = {.wait_ms = 20000};
    struct sbx_grpc_result out = {0};
    int code = sbx_grpc_unary(c, path, req, len, &o, &out);
    sbx_grpc_result_free(&out);
    return code;
}

int h_write_stdin(struct sbx_grpc_conn *c, int32_t id, const void *data, size_t len, bool eof)
{
    Process__V1__WriteStdinRequest r;
    process__v1__write_stdin_request__init(&r);
    Google__Protobuf__Empty empty = GOOGLE__PROTOBUF__EMPTY__INIT;
    r.process_id = id;
    if (eof) {
        r.payload_case = PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_EOF;
        r.eof = &empty;
    } else {
        r.payload_case = PROCESS__V1__WRITE_STDIN_REQUEST__PAYLOAD_INPUT;
        r.input = (ProtobufCBinaryData){len, (uint8_t *)data};
    }
    size_t n;
    uint8_t *b = pack(&r.base, &n);
    int code = h_raw(c, PROC_PATH("WriteStdin"), b, n);
    free(b);
    return code;
}

int h_signal(struct sbx_grpc_conn *c, int32_t id, int wire_signal)
{
    Process__V1__SendSignalRequest r = PROCESS__V1__SEND_SIGNAL_REQUEST__INIT;
    r.process_id = id;
    r.signal = (Process__V1__Signal)wire_signal;
    size_t n;
    uint8_t *b = pack(&r.base, &n);
    int code = h_raw(c, PROC_PATH("SendSignal"), b, n);
    free(b);
    return code;
}

int h_resize(struct sbx_grpc_conn *c, int32_t id, uint32_t cols, uint32_t rows)
{
    Process__V1__ResizeTTYRequest r = PROCESS__V1__RESIZE_TTYREQUEST__INIT;
    r.process_id = id;
    r.cols = cols;
    r.rows = rows;
    size_t n;
    uint8_t *b = pack(&r.base, &n);
    int code = h_raw(c, PROC_PATH("ResizeTTY"), b, n);
    free(b);
    return code;
}

bool pid_gone(int pid)
{
    char p[64], buf[512];
    snprintf(p, sizeof(p), "/proc/%d/stat", pid);
    FILE *f = fopen(p, "re");
    if (!f) return true;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *rp = strrchr(buf, ')');
    return rp && rp[2] == 'Z';
}
