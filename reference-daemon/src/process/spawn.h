/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROCESS_SPAWN_H
#define SBX_PROCESS_SPAWN_H
/* Starting one child process: argv with PATH lookup, a prepared environment,
 * a working directory given as a descriptor, its own process group (or its
 * own session on a pseudo-terminal), and no descriptor of the daemon other
 * than its three standard streams. No event loop here: the caller gets the
 * parent's ends of the pipes and a pidfd and watches them however it likes. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum spawn_stdin {
    SPAWN_STDIN_NULL, /* /dev/null: a reader sees EOF at once (Execute) */
    SPAWN_STDIN_PIPE, /* a pipe whose write end the caller keeps (Start) */
};

struct spawn_opts {
    char *const *argv; /* NULL-terminated, argv[0] looked up in the daemon's PATH */
    char *const *envp; /* NULL-terminated, the child's whole environment */
    int cwd_fd;        /* directory to start in (O_PATH is fine); -1 = inherit */
    enum spawn_stdin stdin_mode;
    bool pty;          /* run on a new pseudo-terminal as controlling tty */
    uint16_t pty_cols; /* initial window size when pty (0 -> 80x24) */
    uint16_t pty_rows;
    bool own_group;      /* setpgid(0,0); false leaves it in the daemon's group */
    bool merge_stderr;   /* stderr joins the stdout pipe */
    bool outlive_daemon; /* no PR_SET_PDEATHSIG: it survives the daemon's death */
};

struct spawn_result {
    pid_t pid;
    int pidfd;      /* CLOEXEC; readable once the child has exited */
    int stdin_fd;   /* write end (non-blocking), or -1 */
    int stdout_fd;  /* read end (non-blocking); the PTY master when pty */
    int stderr_fd;  /* read end (non-blocking), or -1 when pty/merged */
    int pty_master; /* == stdout_fd == stdin_fd when pty, else -1 */
};

/* Starts the child. Returns 0 and fills *res, or a positive errno: the
 * exec error of the child (ENOENT, EACCES, ENOTDIR ...) or a set-up failure
 * in the daemon (EMFILE, EAGAIN ...). On failure no child is left behind and
 * no descriptor is leaked. */
int spawn_process(const struct spawn_opts *opts, struct spawn_result *res);

/* Closes every descriptor in *res that is still open and marks it -1. Does
 * not touch the child. */
void spawn_result_close(struct spawn_result *res);

/* Sets the window size of the PTY master to o's (80x24 when unset).
 * Returns ioctl's result. */
int spawn_set_pty_size(int master, const struct spawn_opts *o);

#endif
