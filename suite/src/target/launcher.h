/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_LAUNCHER_H
#define SBX_LAUNCHER_H
/* Launch mode: starts a runtime from a command template on free loopback
 * ports over a fresh root, with a controlled environment, waits until it is
 * healthy, and stops it with SIGTERM, collecting its exit. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct launch_opts {
    const char *command_template;  /* words with {grpc_port} {rest_port} {root} {host} */
    const char *work_dir;          /* where the root and the log are created */
    const char *const *extra_env;  /* NULL-terminated "NAME=value" additions */
    const char *const *extra_args; /* NULL-terminated words appended to the command */
    bool missing_root;             /* pass a root path that does not exist yet */
    bool no_planted_env;           /* plant no SANDBOX_* (or other) data variables */
    bool own_process_group;        /* setpgid: not killed with the caller's group */
    bool confine;                  /* private mount namespace, host read-only (confine.h) */
    unsigned health_timeout_ms;    /* 0 = 20 s */
    const char *host;              /* numeric address the runtime listens on, and {host}
                                      (NULL = 127.0.0.1); the ports are reserved on 127.0.0.1 */
};

struct launched_runtime {
    pid_t pid;
    pid_t guard; /* runtime_guard.h: kills it and removes dir if the suite dies */
    int grpc_port, rest_port;
    char grpc_addr[64], rest_addr[64];
    char *root;         /* absolute */
    char *dir;          /* private directory holding root and log */
    char *log_path;     /* the runtime's stdout and stderr */
    char **env;         /* the full environment it was given (NULL-terminated) */
    char **argv;        /* the expanded command (NULL-terminated) */
    char *command_line; /* printable form of argv */
    bool exited;
    int status;           /* waitpid status once exited */
    double started_at;    /* monotonic seconds */
    double healthy_after; /* seconds from start to the first healthy answer */
};

/* The environment planted for every launched runtime besides PATH and
 * friends: SANDBOX_* names (some with credential markers) and others. */
extern const char *const launcher_planted_vars[];

/* Splits a command template into words (quotes and backslashes as in sh,
 * no expansion). NULL-terminated malloc'd vector, or NULL on a syntax error. */
char **launcher_split_words(const char *template_text, char *err, size_t err_len);
void launcher_free_words(char **words);

/* Starts the runtime and waits for /v1/health 200 and the gRPC port.
 * 0 on success; -1 with err filled (the runtime is then stopped). */
int launcher_start(const struct launch_opts *o, struct launched_runtime *rt, char *err,
                   size_t err_len);

/* Whether a TCP connection to host (numeric, v4 or v6) and port is accepted. */
bool launcher_tcp_accepts(const char *host, int port);

/* Waits up to timeout_ms for the runtime to exit; 0 and rt->status when it
 * did, -1 on timeout. */
int launcher_wait(struct launched_runtime *rt, unsigned timeout_ms);

/* SIGTERM, wait up to grace_ms, then SIGKILL; returns 0 when it exited on
 * its own after SIGTERM, 1 when it had to be killed. */
int launcher_stop(struct launched_runtime *rt, unsigned grace_ms);

/* "exited with status 0", "killed by signal 9 (Killed)". */
void launcher_describe_status(int status, char *buf, size_t len);

/* Kills if still running, reaps, removes the private directory, frees. */
void launcher_release(struct launched_runtime *rt);

#endif
