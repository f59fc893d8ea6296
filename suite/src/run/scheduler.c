/* SPDX-License-Identifier: Apache-2.0 */
/* Scheduler: forked workers, their event pipes, timeouts and cleanups. */
#include "scheduler.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock_util.h"
#include "die_with_parent.h"
#include "case_context.h"
#include "catalog.h"
#include "liveness.h"
#include "text_util.h"
#include "worker.h"
#include "worker_event.h"

enum { MAX_LINE = 64 * 1024, MAX_TRACKED = 256, CLEANUP_TIMEOUT_S = 45, SETUP_ALLOWANCE_S = 5 };

enum job_kind { JOB_CASE, JOB_CLEANUP };

struct job {
    enum job_kind kind;
    pid_t pid;
    size_t idx;
    int rep_fd, out_fd;
    char *line;
    size_t line_len;
    bool line_overlong;
    double start, deadline;
    bool done_seen, timed_out, exited;
    int status;
    int32_t pids[MAX_TRACKED];
    size_t n_pids;
    bool got_error, got_skip;
    bool skip_before_error; /* the first error came after a skip */
    bool unreachable;       /* the case reported it could not reach the runtime */
};

/* Consecutive cases that timed out or could not reach the runtime. */
struct breaker {
    unsigned streak;
    char last[64]; /* the last such case's ID */
};

static void handle_event(struct job *j, struct case_result *r, const char *line)
{
    struct worker_event ev;
    void *holder;
    if (worker_event_decode(line, &ev, &holder) != 0) return;
    switch (ev.kind) {
    case WEV_START:
        break;
    case WEV_DONE:
        j->done_seen = true;
        break;
    case WEV_FAIL:
        case_result_add_failure(r, ev.expected, ev.text, ev.request);
        break;
    case WEV_NOTE:
        case_result_add_note(r, ev.text);
        break;
    case WEV_DOC_FINDING:
        case_result_add_doc_finding(r, ev.text);
        break;
    case WEV_SKIP:
        if (!j->got_skip) { /* the first reason is the real one */
            free(r->reason);
            r->reason = strdup(ev.text);
        }
        j->got_skip = true;
        break;
    case WEV_ERROR:
        /* An error that follows a skip is its consequence (a case that could
         * not be checked here went on and failed to set up): the skip and
         * its reason stand. */
        if (j->got_skip && !j->got_error) j->skip_before_error = true;
        if (!j->got_error && !j->got_skip) {
            free(r->reason);
            r->reason = strdup(ev.text);
        }
        j->got_error = true;
        break;
    case WEV_UNREACHABLE:
        j->unreachable = true;
        break;
    case WEV_TRACK:
        if (j->n_pids < MAX_TRACKED) j->pids[j->n_pids++] = ev.pid;
        break;
    case WEV_UNTRACK:
        for (size_t i = 0; i < j->n_pids; i++)
            if (j->pids[i] == ev.pid) {
                j->pids[i] = j->pids[--j->n_pids];
                break;
            }
        break;
    }
    worker_event_release(holder);
}

static void consume_report(struct job *j, struct case_result *r, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            if (!j->line_overlong) {
                j->line[j->line_len] = '\0';
                handle_event(j, r, j->line);
            }
            j->line_len = 0;
            j->line_overlong = false;
        } else if (j->line_len + 1 < MAX_LINE) {
            j->line[j->line_len++] = buf[i];
        } else {
            j->line_overlong = true; /* a line this long is not one of ours: drop it */
        }
    }
}

static void consume_output(struct case_result *r, const char *buf, size_t n)
{
    size_t have = r->output ? strlen(r->output) : 0;
    r->output_total += n;
    if (have >= SCHED_MAX_OUTPUT) return;
    size_t keep = n < SCHED_MAX_OUTPUT - have ? n : SCHED_MAX_OUTPUT - have;
    char *grown = realloc(r->output, have + keep + 1);
    if (!grown) return;
    /* Output is text for the log; NUL bytes would cut it short. */
    for (size_t i = 0; i < keep; i++)
        grown[have + i] = buf[i] ? buf[i] : '?';
    grown[have + keep] = '\0';
    r->output = grown;
}

/* Reads what is available; closes the fd at EOF. */
static void drain(struct job *j, struct case_result *r, bool report)
{
    int *fd = report ? &j->rep_fd : &j->out_fd;
    char buf[8192];
    /* Bounded: a straggler that keeps writing cannot hold the parent here. */
    for (int rounds = 0; *fd >= 0 && rounds < 4096; rounds++) {
        ssize_t n = read(*fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            close(*fd);
            *fd = -1;
            return;
        }
        if (report)
            consume_report(j, r, buf, (size_t)n);
        else
            consume_output(r, buf, (size_t)n);
    }
}

static bool spawn_case(struct job *j, struct case_result *r, const struct sched_opts *o)
{
    int rep[2], out[2];
    if (pipe2(rep, O_CLOEXEC) != 0) return false;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(rep[0]);
        close(rep[1]);
        return false;
    }
    fflush(NULL);
    pid_t runner = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(rep[0]);
        close(rep[1]);
        close(out[0]);
        close(out[1]);
        return false;
    }
    if (pid == 0) {
        /* A worker dies with the runner, and with it the private runtimes
         * its case started (their own death signal is the worker's). */
        if (!die_with_parent(runner, SIGKILL)) _exit(1);
        setpgid(0, 0);
        close(rep[0]);
        close(out[0]);
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        worker_run_case(r->def, o->target, o->seed,
                        (uint64_t)(case_timeout_s(r->def) * o->timeout_scale * 1000.0), rep[1]);
    }
    setpgid(pid, pid); /* also here, so a kill of the group never misses */
    close(rep[1]);
    close(out[1]);
    fcntl(rep[0], F_SETFL, O_NONBLOCK);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    memset(j, 0, sizeof *j);
    j->line = malloc(MAX_LINE);
    j->kind = JOB_CASE;
    j->pid = pid;
    j->rep_fd = rep[0];
    j->out_fd = out[0];
    j->start = clock_mono_s();
    j->deadline = j->start + case_timeout_s(r->def) * o->timeout_scale + SETUP_ALLOWANCE_S;
    r->seed = case_derive_seed(o->seed, r->def->id);
    return j->line != NULL;
}

static void spawn_cleanup(struct job *j, size_t idx, const struct job *from,
                          const struct sched_opts *o, const char *dir)
{
    fflush(NULL);
    pid_t runner = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        if (o->log_fd >= 0)
            dprintf(o->log_fd, "cleanup %s: fork failed: %s\n", dir, strerror(errno));
        j->pid = -1;
        return;
    }
    if (pid == 0) {
        if (!die_with_parent(runner, SIGKILL)) _exit(1);
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
        }
        int rc = worker_cleanup(o->target, dir, from->pids, from->n_pids, o->log_fd);
        _exit(rc == 0 ? 0 : 1);
    }
    setpgid(pid, pid);
    memset(j, 0, sizeof *j);
    j->kind = JOB_CLEANUP;
    j->pid = pid;
    j->idx = idx;
    j->rep_fd = j->out_fd = -1;
    j->start = clock_mono_s();
    j->deadline = j->start + CLEANUP_TIMEOUT_S;
}

static void finish_case(struct job *j, struct case_result *r, const struct sched_opts *o)
{
    r->seconds = clock_mono_s() - j->start;
    if (j->timed_out) {
        r->outcome = OUT_TIMEOUT;
        free(r->reason);
        r->reason = NULL;
        char buf[200];
        snprintf(buf, sizeof buf,
                 "no result within %.0f s (case timeout %u s x %.2g); the worker "
                 "was killed",
                 j->deadline - j->start, case_timeout_s(r->def), o->timeout_scale);
        r->reason = strdup(buf);
    } else if (!j->done_seen) {
        char buf[300];
        if (WIFSIGNALED(j->status))
            snprintf(buf, sizeof buf, "the case crashed: its worker died of signal %d (%s)%s%s",
                     WTERMSIG(j->status), strsignal(WTERMSIG(j->status)),
                     r->reason ? "; last error: " : "", r->reason ? r->reason : "");
        else
            snprintf(buf, sizeof buf, "the case's worker exited with status %d before finishing",
                     WIFEXITED(j->status) ? WEXITSTATUS(j->status) : -1);
        free(r->reason);
        r->reason = strdup(buf);
        r->outcome = OUT_ERROR;
    } else if (j->got_error && !j->skip_before_error) {
        r->outcome = OUT_ERROR;
    } else if (j->got_skip) {
        r->outcome = OUT_SKIP;
    } else if (r->failures_total > 0) {
        r->outcome = OUT_FAIL;
    } else {
        r->outcome = OUT_PASS;
    }
    if (r->outcome != OUT_SKIP && r->outcome != OUT_ERROR && r->outcome != OUT_TIMEOUT) {
        free(r->reason);
        r->reason = NULL;
    }
}

/* Kills, reaps and drains a job whose worker has ended or must end. */
static void reap(struct job *j, struct case_result *r, bool kill_now)
{
    if (kill_now) kill(-j->pid, SIGKILL);
    if (!j->exited) {
        int st = 0;
        pid_t w;
        do
            w = waitpid(j->pid, &st, kill_now ? 0 : WNOHANG);
        while (w < 0 && errno == EINTR);
        if (w == j->pid) {
            j->exited = true;
            j->status = st;
        }
    }
    if (j->exited && j->kind == JOB_CASE) {
        drain(j, r, true);
        drain(j, r, false);
        /* Anything the case left running in its group goes too. */
        kill(-j->pid, SIGKILL);
        if (j->rep_fd >= 0) close(j->rep_fd);
        if (j->out_fd >= 0) close(j->out_fd);
        j->rep_fd = j->out_fd = -1;
    }
}

/* Counts a finished case; true when the breaker opens (res->unresponsive
 * then says why). A streak that reaches the threshold is confirmed by a
 * liveness probe: cases can time out on their own against a live runtime. */
static bool breaker_count(struct breaker *b, const struct job *j, const struct case_result *r,
                          struct run_results *res, const struct sched_opts *o)
{
    if (!o->unresponsive_after) return false;
    bool stuck = r->outcome == OUT_TIMEOUT || (j->unreachable && r->outcome != OUT_PASS);
    if (!stuck) {
        b->streak = 0;
        return false;
    }
    b->streak++;
    snprintf(b->last, sizeof b->last, "%s", r->def->id);
    if (b->streak < o->unresponsive_after) return false;
    char why[400];
    if (liveness_probe(o->target, why, sizeof why)) {
        if (o->log_fd >= 0)
            dprintf(o->log_fd,
                    "%u consecutive cases timed out or could not connect, but the runtime "
                    "answers health and Execute: running on\n",
                    b->streak);
        b->streak = 0;
        return false;
    }
    char buf[600];
    snprintf(buf, sizeof buf,
             "runtime unresponsive: %u consecutive cases timed out or could not connect (the "
             "last %s), then %s",
             b->streak, b->last, why);
    res->unresponsive = strdup(buf);
    if (o->log_fd >= 0) dprintf(o->log_fd, "circuit breaker: %s\n", buf);
    return true;
}

/* The breaker opened: a case that did not finish is an error. */
static void mark_unresponsive(struct case_result *r, const struct run_results *res, bool started)
{
    r->outcome = OUT_ERROR;
    free(r->reason);
    r->reason =
        text_fmt("%s (%s)", res->unresponsive, started ? "stopped while running" : "not run");
}

void scheduler_run(struct run_results *res, const struct sched_opts *o)
{
    struct breaker breaker = {0};
    size_t total = 0, done = 0;
    for (size_t i = 0; i < res->count; i++)
        if (res->cases[i].selected && res->cases[i].outcome == OUT_NOT_RUN) total++;
    unsigned slots = o->jobs ? o->jobs : 1;
    struct job *jobs = calloc(slots * 2 + 2, sizeof *jobs);
    bool *active = calloc(slots * 2 + 2, sizeof *active);
    struct pollfd *pfd = calloc((slots * 2 + 2) * 2, sizeof *pfd);
    if (!jobs || !active || !pfd) {
        free(jobs);
        free(active);
        free(pfd);
        return;
    }
    size_t nslots = slots * 2 + 2; /* cases plus their cleanups */
    size_t next = 0;
    int phase = 0; /* 0: cases that may share; 1: cases that must run alone */
    for (;;) {
        unsigned running = 0, running_cases = 0;
        for (size_t s = 0; s < nslots; s++)
            if (active[s]) {
                running++;
                running_cases += jobs[s].kind == JOB_CASE;
            }
        bool interrupted = o->interrupted && *o->interrupted;
        bool stop = interrupted || res->unresponsive;
        /* Start what may start. */
        while (!stop && running < slots) {
            while (next < res->count &&
                   !(res->cases[next].selected && res->cases[next].outcome == OUT_NOT_RUN &&
                     (((res->cases[next].def->needs & NEEDS_ALONE) != 0) == (phase == 1))))
                next++;
            if (next >= res->count) {
                if (phase == 0 && running == 0) {
                    phase = 1;
                    next = 0;
                    continue;
                }
                break;
            }
            if (phase == 1 && running > 0) break; /* alone means alone, cleanups included */
            size_t s = 0;
            while (s < nslots && active[s])
                s++;
            if (s == nslots) break;
            struct case_result *r = &res->cases[next];
            if (!spawn_case(&jobs[s], r, o)) {
                r->outcome = OUT_ERROR;
                r->reason = strdup("the suite could not start a worker process (fork/pipe failed)");
                done++;
                if (o->on_done) o->on_done(o->ud, r, done, total);
                next++;
                continue;
            }
            jobs[s].idx = next;
            active[s] = true;
            running++;
            running_cases++;
            next++;
            if (phase == 1) break;
        }
        if (running == 0 && (stop || (phase == 1 && next >= res->count))) break;

        /* Wait for events. */
        nfds_t np = 0;
        for (size_t s = 0; s < nslots; s++) {
            if (!active[s]) continue;
            if (jobs[s].rep_fd >= 0)
                pfd[np++] = (struct pollfd){.fd = jobs[s].rep_fd, .events = POLLIN};
            if (jobs[s].out_fd >= 0)
                pfd[np++] = (struct pollfd){.fd = jobs[s].out_fd, .events = POLLIN};
        }
        if (np > 0)
            poll(pfd, np, 50);
        else
            nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);

        double t = clock_mono_s();
        for (size_t s = 0; s < nslots; s++) {
            if (!active[s]) continue;
            struct job *j = &jobs[s];
            struct case_result *r = &res->cases[j->idx];
            if (j->kind == JOB_CASE) {
                drain(j, r, true);
                drain(j, r, false);
            }
            bool late = t >= j->deadline;
            bool kill_now = late || stop;
            if (kill_now && j->kind == JOB_CASE && !stop) j->timed_out = true;
            reap(j, r, kill_now);
            if (!j->exited) continue;
            active[s] = false;
            if (j->kind == JOB_CLEANUP) {
                if (late && o->log_fd >= 0)
                    dprintf(o->log_fd, "cleanup of %s/%s timed out\n", o->target->prefix,
                            r->def->id);
                continue;
            }
            if (stop && !j->done_seen) {
                r->seconds = t - j->start;
                if (interrupted) {
                    r->outcome = OUT_SKIP;
                    free(r->reason);
                    r->reason = strdup("interrupted while running: the run was stopped");
                    r->not_run = true; /* no verdict of its own */
                } else {
                    mark_unresponsive(r, res, true);
                }
            } else {
                finish_case(j, r, o);
                if (!stop && breaker_count(&breaker, j, r, res, o)) stop = true;
            }
            free(j->line);
            j->line = NULL;
            done++;
            if (o->on_done) o->on_done(o->ud, r, done, total);
            if (!stop) {
                char dir[600];
                snprintf(dir, sizeof dir, "%s/%s", o->target->prefix, r->def->id);
                struct job tmp = *j;
                spawn_cleanup(j, tmp.idx, &tmp, o, dir);
                active[s] = j->pid > 0;
            }
        }
    }
    /* Cases that never started because the run was stopped. */
    for (size_t i = 0; i < res->count; i++) {
        struct case_result *r = &res->cases[i];
        if (!r->selected || r->outcome != OUT_NOT_RUN) continue;
        if (res->unresponsive) {
            mark_unresponsive(r, res, false);
        } else {
            r->outcome = OUT_SKIP;
            r->not_run = true;
            free(r->reason);
            r->reason = strdup("not run (interrupted)");
        }
    }
    free(jobs);
    free(active);
    free(pfd);
}
